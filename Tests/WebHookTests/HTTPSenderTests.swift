import Testing
import Explorer
@testable import WebHook

@MainActor
@Suite struct HTTPSenderTests {
    let event = FiredEvent(at: Timestamp(1_764_547_200.25), address: "FC:58:FA:1A:2B:3C", uuid: "FFE1", bytes: [0x01])

    func sender(_ url: String, _ headers: [String], body: String?, secrets: [String: String] = [:]) throws -> HTTPSender {
        let h = try headers.map { try HTTPHeader.parse($0).get() }
        let action = try HTTPHook.make(url: url, headers: h, body: body).get()
        return HTTPSender(hook: action, loop: EventLoop()) { secrets[$0] }
    }

    @Test func kintoneBodyGoesThroughUntouchedWithTheTokenFromSecrets() throws {
        let body = #"{"app": 7, "record": {"アイテム": {"value": "会議室A：ホワイトボードマーカー（黒）"}, "数量": {"value": "2"}, "押下": {"value": "{{hex}} {{time}}"}}}"#
        let s = try sender("https://example.cybozu.com/k/v1/record.json", ["X-Cybozu-API-Token: ${KINTONE_TOKEN}"], body: body,
                           secrets: ["KINTONE_TOKEN": "s3cr3t"])
        let r = try s.request(for: event).get()
        #expect(r.method == "POST")
        #expect(r.url == "https://example.cybozu.com/k/v1/record.json")
        #expect(r.value(forHeader: "x-cybozu-api-token") == "s3cr3t")
        #expect(r.value(forHeader: "Content-Type") == "application/json; charset=utf-8")
        let sent = String(decoding: r.body, as: UTF8.self)
        #expect(sent == #"{"app": 7, "record": {"アイテム": {"value": "会議室A：ホワイトボードマーカー（黒）"}, "数量": {"value": "2"}, "押下": {"value": "01 2025-12-01T00:00:00.250Z"}}}"#)
        #expect(!s.hook.headers[0].shown.contains("s3cr3t"))
    }

    @Test func aMissingSecretIsAnErrorNotAnEmptyHeader() throws {
        let s = try sender("https://example.com/x", ["Authorization: Bearer ${NOPE}"], body: nil)
        guard case let .failure(e) = s.request(for: event) else { Issue.record("built a request without the secret"); return }
        #expect(e.message.contains("${NOPE}"))
    }

    @Test func defaultBodyIsTheEventAsJSON() throws {
        let s = try sender("http://127.0.0.1:9/x", [], body: nil)
        let body = String(decoding: try s.request(for: event).get().body, as: UTF8.self)
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
        let body = String(decoding: try s.request(for: e).get().body, as: UTF8.self)
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
            HTTPSender.outcome(.answered(status: status, body: Array("nope\u{1B}[2J".utf8)))
        }
        #expect(outcome(201) == .delivered("HTTP 201"))
        #expect(outcome(500) == .retry("HTTP 500"))
        #expect(outcome(503) == .retry("HTTP 503"))
        #expect(outcome(429) == .retry("HTTP 429"))
        #expect(outcome(408) == .retry("HTTP 408"))
        #expect(outcome(400) == .rejected("HTTP 400: nope␛[2J"))
        #expect(HTTPSender.outcome(.answered(status: 404, body: [])) == .rejected("HTTP 404"))
        let long = HTTPSender.outcome(.answered(status: 403, body: Array(repeating: UInt8(ascii: "x"), count: 500)))
        #expect(long == .rejected("HTTP 403: " + String(repeating: "x", count: 160)))
    }

    /// libcurl's error codes, as the status bar says them; all are retried.
    @Test func transferErrorsAreRetriedWithAReason() {
        func reason(_ code: Int) -> SendOutcome { HTTPSender.outcome(.failed(code: code)) }
        #expect(reason(7) == .retry("cannot connect to the server"))  // CURLE_COULDNT_CONNECT
        #expect(reason(28) == .retry("the server did not answer in time"))  // CURLE_OPERATION_TIMEDOUT
        #expect(reason(6) == .retry("unknown host"))  // CURLE_COULDNT_RESOLVE_HOST
        #expect(reason(35) == .retry("TLS failed (certificate or handshake)"))  // CURLE_SSL_CONNECT_ERROR
        #expect(reason(60) == .retry("TLS failed (certificate or handshake)"))  // CURLE_PEER_FAILED_VERIFICATION
        #expect(reason(56) == .retry("no network"))  // CURLE_RECV_ERROR
        #expect(reason(3) == .retry("network error 3"))  // CURLE_URL_MALFORMAT
    }

    @Test func aSecretThatWouldBreakTheURLOrAHeaderIsAnError() throws {
        let u = try sender("http://127.0.0.1:9/${P}", [], body: nil, secrets: ["P": "a b"])
        #expect(throws: HookSpecError.self) { try u.request(for: event).get() }
        let h = try sender("http://127.0.0.1:9/x", ["X-Token: ${KEY}"], body: nil, secrets: ["KEY": "abc\r\nX-Evil: 1"])
        #expect(throws: HookSpecError.self) { try h.request(for: event).get() }
        #expect(HTTPSender.normalizedURL("https://example.com:8443/a?b=c#d") == "https://example.com:8443/a?b=c#d")
        #expect(HTTPSender.normalizedURL("http://") == nil)
        #expect(HTTPSender.normalizedURL("ftp://example.com/") == nil)
    }

    /// Non-ASCII in the path and query goes percent-encoded (escapes already there stay).
    @Test func theURLIsSentPercentEncoded() {
        #expect(HTTPSender.normalizedURL("http://example.com/会議?q=ä&r=%20") == "http://example.com/%e4%bc%9a%e8%ad%b0?q=%c3%a4&r=%20")
    }
}
