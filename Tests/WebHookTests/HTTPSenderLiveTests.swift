#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Dispatch
import Testing
import Explorer
@testable import WebHook

/// A one-thread HTTP/1.1 server on 127.0.0.1 for the tests: answers connections in turn
/// with the scripted replies (then closes each), and records every request as it came.
final class LocalServer: @unchecked Sendable {
    struct Request {
        var method = "", path = ""
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }
    enum Reply { case status(Int, String), silence }

    let port: UInt16
    private let fd: Int32
    private var mutex = pthread_mutex_t()
    private var got: [Request] = []

    init(_ replies: [Reply]) throws {
        (fd, port) = try Self.listening()
        pthread_mutex_init(&mutex, nil)
        DispatchQueue.global().async { self.serve(replies) }
    }

    /// A port nothing listens on (bound a moment ago, then closed).
    static func closedPort() throws -> UInt16 {
        let (fd, port) = try listening()
        close(fd)
        return port
    }

    private static func listening() throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bind(fd, sa, len) == 0 && listen(fd, 8) == 0 && getsockname(fd, sa, &len) == 0
            }
        }
        guard fd >= 0, ok else { throw ServerError() }
        return (fd, UInt16(bigEndian: addr.sin_port))
    }

    struct ServerError: Error {}

    var requests: [Request] {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return got
    }

    private func serve(_ replies: [Reply]) {
        for reply in replies {
            let c = accept(fd, nil, nil)
            guard c >= 0 else { return }
            defer { close(c) }
            guard let r = readRequest(c) else { continue }
            pthread_mutex_lock(&mutex)
            got.append(r)
            pthread_mutex_unlock(&mutex)
            switch reply {
            case .silence:
                // Holds the connection without answering, until the client gives up.
                var b: UInt8 = 0
                _ = recv(c, &b, 1, 0)
            case let .status(code, body):
                let out = Array("HTTP/1.1 \(code) X\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)
                _ = out.withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
        }
    }

    private func readRequest(_ c: Int32) -> Request? {
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        let end = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        var r = Request()
        var contentLength = 0
        while true {
            if headEnd == nil, let i = data.firstRange(of: end) {
                headEnd = i.upperBound
                let lines = String(decoding: data[..<i.lowerBound], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
                let first = lines[0].split(separator: " ")
                r.method = String(first[0]); r.path = String(first[1])
                for l in lines.dropFirst() {
                    guard let colon = l.firstIndex(of: ":") else { continue }
                    let v = l[l.index(after: colon)...].drop { $0 == " " }
                    r.headers.append((String(l[..<colon]), String(v)))
                }
                contentLength = Int(r.header("Content-Length") ?? "0") ?? 0
            }
            if let h = headEnd, data.count - h >= contentLength {
                r.body = Array(data[h..<(h + contentLength)])
                return r
            }
            let n = recv(c, &buf, buf.count, 0)
            guard n > 0 else { return nil }
            data += buf[..<n]
        }
    }

    deinit {
        close(fd)
        pthread_mutex_destroy(&mutex)
    }
}

/// HTTPSender over libcurl against a real socket: what goes on the wire, and how each
/// answer is classified.
@MainActor
@Suite struct HTTPSenderLiveTests {
    let event = FiredEvent(at: Timestamp(1_764_547_200.25), address: "FC:58:FA:1A:2B:3C", uuid: "FFE1", bytes: [0x01])

    func sender(_ url: String, _ headers: [String], body: String?, timeout: Double = 15,
                secrets: [String: String] = [:]) throws -> (HTTPSender, EventLoop) {
        let h = try headers.map { try HTTPHeader.parse($0).get() }
        let action = try HTTPHook.make(url: url, headers: h, body: body).get()
        let loop = EventLoop()
        return (HTTPSender(hook: action, loop: loop, timeout: timeout) { secrets[$0] }, loop)
    }

    /// Sends once and runs the event loop until the answer is back (the callback comes
    /// through the loop, not on curl's thread).
    func send(_ s: HTTPSender, _ loop: EventLoop) -> SendOutcome? {
        var outcome: SendOutcome?
        s.send(event) { outcome = $0 }
        _ = loop.run(until: { outcome != nil }, timeout: 10)
        return outcome
    }

    @Test func postsTheBytesAndHeadersAndClassifiesTheAnswers() throws {
        let server = try LocalServer([.status(201, #"{"id":"1"}"#), .status(500, "later"),
                                      .status(400, "bad token s3cr3t\u{1B}[2J")])
        let body = #"{"品目": "会議室A：マーカー（黒）", "hex": "{{hex}}", "k": "${KEY}"}"#
        let (s, loop) = try sender("http://127.0.0.1:\(server.port)/hook?a=1", ["X-Token: ${KEY}", "X-Empty:"], body: body,
                                   secrets: ["KEY": "s3cr3t"])
        #expect(send(s, loop) == .delivered("HTTP 201"))
        #expect(send(s, loop) == .retry("HTTP 500"))
        #expect(send(s, loop) == .rejected("HTTP 400: bad token •••␛[2J"))

        let got = server.requests
        #expect(got.count == 3)
        let r = try #require(got.first)
        #expect(r.method == "POST")
        #expect(r.path == "/hook?a=1")
        #expect(r.header("X-Token") == "s3cr3t")
        #expect(r.header("X-Empty") == "")
        #expect(r.header("Content-Type") == "application/json; charset=utf-8")
        #expect(r.header("Expect") == nil)
        #expect(r.body == Array(#"{"品目": "会議室A：マーカー（黒）", "hex": "01", "k": "s3cr3t"}"#.utf8))
        #expect(r.header("Content-Length") == String(r.body.count))
    }

    @Test func aContentTypeOfTheActionReplacesTheDefault() throws {
        let server = try LocalServer([.status(204, "")])
        let (s, loop) = try sender("http://127.0.0.1:\(server.port)/", ["Content-Type: text/plain"], body: "{{hex}}")
        #expect(send(s, loop) == .delivered("HTTP 204"))
        let r = try #require(server.requests.first)
        #expect(r.headers.filter { $0.0.lowercased() == "content-type" }.map(\.1) == ["text/plain"])
        #expect(r.body == Array("01".utf8))
    }

    @Test func aClosedPortIsRetried() throws {
        let port = try LocalServer.closedPort()
        let (s, loop) = try sender("http://127.0.0.1:\(port)/", [], body: nil)
        #expect(send(s, loop) == .retry("cannot connect to the server"))
    }

    @Test func aServerThatDoesNotAnswerTimesOut() throws {
        let server = try LocalServer([.silence])
        let (s, loop) = try sender("http://127.0.0.1:\(server.port)/", [], body: nil, timeout: 0.5)
        #expect(send(s, loop) == .retry("the server did not answer in time"))
    }
}
