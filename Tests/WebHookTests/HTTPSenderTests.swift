import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Explorer
@testable import WebHook

@MainActor
@Suite struct HTTPSenderTests {
    let event = FiredEvent(at: Timestamp(1_764_547_200.25), address: "FC:58:FA:1A:2B:3C", uuid: "FFE1", bytes: [0x01])

    func sender(_ url: String, _ headers: [String], body: String?, secrets: [String: String] = [:]) throws -> HTTPSender {
        let h = try headers.map { try HTTPHeader.parse($0).get() }
        let action = try HTTPAction.make(url: url, headers: h, body: body).get()
        return HTTPSender(action: action, loop: EventLoop()) { secrets[$0] }
    }

    @Test func kintoneBodyGoesThroughUntouchedWithTheTokenFromSecrets() throws {
        let body = #"{"app": 7, "record": {"アイテム": {"value": "会議室A：ホワイトボードマーカー（黒）"}, "数量": {"value": "2"}, "押下": {"value": "{{hex}} {{time}}"}}}"#
        let s = try sender("https://example.cybozu.com/k/v1/record.json", ["X-Cybozu-API-Token: ${KINTONE_TOKEN}"], body: body,
                           secrets: ["KINTONE_TOKEN": "s3cr3t"])
        let r = try s.request(for: event).get()
        #expect(r.httpMethod == "POST")
        #expect(r.value(forHTTPHeaderField: "X-Cybozu-API-Token") == "s3cr3t")
        #expect(r.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=utf-8")
        let sent = String(decoding: r.httpBody ?? Data(), as: UTF8.self)
        #expect(sent == #"{"app": 7, "record": {"アイテム": {"value": "会議室A：ホワイトボードマーカー（黒）"}, "数量": {"value": "2"}, "押下": {"value": "01 2025-12-01T00:00:00.250Z"}}}"#)
        #expect(!s.action.headers[0].shown.contains("s3cr3t"))
    }

    @Test func aMissingSecretIsAnErrorNotAnEmptyHeader() throws {
        let s = try sender("https://example.com/x", ["Authorization: Bearer ${NOPE}"], body: nil)
        guard case let .failure(e) = s.request(for: event) else { Issue.record("built a request without the secret"); return }
        #expect(e.message.contains("${NOPE}"))
    }

    @Test func defaultBodyIsTheEventAsJSON() throws {
        let s = try sender("http://127.0.0.1:9/x", [], body: nil)
        let body = String(decoding: try s.request(for: event).get().httpBody ?? Data(), as: UTF8.self)
        let v = try JSONValue.parse(body)
        #expect(v["hex"]?.string == "01")
        #expect(v["address"]?.string == "FC:58:FA:1A:2B:3C")
        #expect(v["uuid"]?.string == "0000ffe1-0000-1000-8000-00805f9b34fb")
        #expect(v["seq"]?.int == 0)
    }

    /// A device's value that spells a secret's name stays that text; the secret goes only
    /// where the template put it.
    @Test func aValueNamingASecretDoesNotGetIt() throws {
        let s = try sender("http://127.0.0.1:9/x", [], body: #"{"v": "{{text}}", "k": "${KEY}"}"#, secrets: ["KEY": "s3cr3t"])
        let e = FiredEvent(at: Timestamp(1_764_547_200), address: "FC:58:FA:1A:2B:3C", uuid: "FFE1", bytes: Array("${KEY}".utf8))
        let body = String(decoding: try s.request(for: e).get().httpBody ?? Data(), as: UTF8.self)
        #expect(body == #"{"v": "${KEY}", "k": "s3cr3t"}"#)
    }

    /// A server that echoes the token in its refusal does not get it onto the screen.
    @Test func aRefusalEchoingTheTokenIsMasked() throws {
        let s = try sender("http://127.0.0.1:9/x", ["X-Token: ${KEY}"], body: nil, secrets: ["KEY": "s3cr3t"])
        #expect(s.masked(.rejected("HTTP 401: bad token s3cr3t")) == .rejected("HTTP 401: bad token •••"))
        #expect(s.masked(.retry("HTTP 500")) == .retry("HTTP 500"))
    }

    @Test func statusesAreDeliveredRetriedOrRejected() {
        func outcome(_ status: Int) -> SendOutcome {
            let r = HTTPURLResponse(url: URL(string: "http://x/")!, statusCode: status, httpVersion: nil, headerFields: nil)
            return HTTPSender.outcome(data: Data("nope\u{1B}[2J".utf8), response: r, error: nil)
        }
        #expect(outcome(201) == .delivered("HTTP 201"))
        #expect(outcome(500) == .retry("HTTP 500"))
        #expect(outcome(503) == .retry("HTTP 503"))
        #expect(outcome(429) == .retry("HTTP 429"))
        #expect(outcome(400) == .rejected("HTTP 400: nope␛[2J"))
        let refused = HTTPSender.outcome(data: nil, response: nil, error: URLError(.cannotConnectToHost))
        #expect(refused == .retry("cannot connect to the server"))
    }
}
