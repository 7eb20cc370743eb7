import CCurl
import Dispatch
import Explorer

/// One HTTP request, ready to send: what `HTTPSender.request(for:)` builds from an event.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    /// In order, as sent (a name given twice is sent twice).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, url: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method; self.url = url; self.headers = headers; self.body = body
    }

    /// The first value of a header, the name compared without case.
    public func value(forHeader name: String) -> String? {
        let n = name.lowercased()
        return headers.first { $0.name.lowercased() == n }?.value
    }
}

/// What a transfer came to: no answer (a libcurl error code), or the server's status and
/// the start of its body.
enum HTTPTransfer: Equatable, Sendable {
    case failed(code: Int)
    case answered(status: Int, body: [UInt8])
}

/// Sends each event as an HTTP request (POST by default) with libcurl (so https works).
/// The transfer runs on a serial Dispatch queue of its own (one request in flight, the
/// connection kept for the next one); the answer comes back to the event loop through a
/// `LoopInbox`, so nothing blocks the UI.
/// 2xx is delivered; no answer, 408, 429 and 5xx are retried (for as long as it takes:
/// the queue keeps events meanwhile); other statuses are rejected.
/// Secrets (`${NAME}` in the URL, headers or body) are resolved only here, just before
/// sending, and never appear in reports.
@MainActor
public final class HTTPSender: HookSender {
    public let hook: HTTPHook
    public let maxAttempts: Int? = nil
    private let secret: (String) -> String?
    private let inbox: LoopInbox
    private let timeout: Double
    private let easy: CurlEasy?
    private let queue = DispatchQueue(label: "bleexplr.http")
    private var waiting: [Int: @MainActor (SendOutcome) -> Void] = [:]
    private var nextID = 0

    public init(hook: HTTPHook, loop: EventLoop, timeout: Double = 15, secret: @escaping (String) -> String?) {
        self.hook = hook
        self.secret = secret
        self.timeout = timeout
        inbox = LoopInbox(loop: loop)
        easy = curlReady ? CurlEasy() : nil
    }

    /// The request for an event, or why it cannot be built (a missing secret).
    public func request(for e: FiredEvent) -> Result<HTTPRequest, HookSpecError> {
        let resolve = { (s: String) in HookTemplate.resolveSecrets(s, self.secret) }
        let resolved: String
        switch resolve(hook.url) { case let .success(u): resolved = u; case let .failure(e): return .failure(e) }
        guard let url = Self.normalizedURL(resolved) else { return .failure(.init("not a valid URL: \(hook.url)")) }
        var headers: [(name: String, value: String)] = []
        var hasContentType = false
        for h in hook.headers {
            switch resolve(h.value) {
            case let .success(v):
                // A secret with a line break would start a header of its own.
                guard !v.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                    return .failure(.init("the header \(h.name) would have a line break (from a secret)"))
                }
                headers.append((h.name, v))
            case let .failure(e): return .failure(e)
            }
            if h.name.lowercased() == "content-type" { hasContentType = true }
        }
        if !hasContentType { headers.append(("Content-Type", "application/json; charset=utf-8")) }
        let body: String
        if let template = hook.body {
            // Secrets first, into the template only: a device whose value says
            // "${TOKEN}" must not get the token put in its place.
            switch resolve(template) {
            case let .success(t): body = HookTemplate.render(t, e, json: hook.isJSON)
            case let .failure(err): return .failure(err)
            }
        } else {
            body = e.json
        }
        return .success(HTTPRequest(method: hook.method, url: url, headers: headers, body: Array(body.utf8)))
    }

    /// The URL as sent: http or https, parsed by libcurl, non-ASCII bytes of the path and
    /// query percent-encoded (as URLSession did); nil if it is not one. Nothing in it may
    /// be below 0x21 or 0x7F (a secret put into the URL could bring a space or a line break).
    nonisolated static func normalizedURL(_ url: String) -> String? {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"),
              !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
              let u = bx_curl_url() else { return nil }
        defer { bx_curl_url_cleanup(u) }
        guard bx_curl_url_set(u, CURLUPART_URL, url, UInt32(CURLU_URLENCODE)) == CURLUE_OK else { return nil }
        var out: UnsafeMutablePointer<CChar>?
        guard bx_curl_url_get(u, CURLUPART_URL, &out, 0) == CURLUE_OK, let out else { return nil }
        defer { bx_curl_free(out) }
        return String(cString: out)
    }

    public func send(_ event: FiredEvent, _ done: @escaping @MainActor (SendOutcome) -> Void) {
        let req: HTTPRequest
        switch request(for: event) {
        case let .success(r): req = r
        case let .failure(e): done(.retry(e.message)); return
        }
        guard let easy else { done(.retry("libcurl could not start")); return }
        nextID += 1
        let id = nextID
        waiting[id] = done
        let inbox = self.inbox
        let timeout = self.timeout
        queue.async {
            let outcome = Self.outcome(easy.perform(req, timeout: timeout))
            inbox.post { [weak self] in
                guard let self, let d = self.waiting.removeValue(forKey: id) else { return }
                d(self.masked(outcome))
            }
        }
    }

    /// A server that echoes the request back must not show a secret on screen or in the
    /// recording: every secret value this action uses is masked in what it answered.
    func masked(_ outcome: SendOutcome) -> SendOutcome {
        guard case let .rejected(text) = outcome else { return outcome }
        var t = text
        for n in hook.secretNames { if let v = secret(n), v.count >= 3 { t = t.replacing(v, with: "•••") } }
        return .rejected(t)
    }

    nonisolated static func outcome(_ transfer: HTTPTransfer) -> SendOutcome {
        switch transfer {
        case let .failed(code):
            return .retry(reason(curlCode: code))
        case let .answered(status, data):
            let snippet = TerminalSafe.text(String(decoding: data.prefix(160), as: UTF8.self))
            switch status {
            case 0: return .retry("no HTTP answer")
            case 200..<300: return .delivered("HTTP \(status)")
            case 408, 429, 500..<600: return .retry("HTTP \(status)")
            default: return .rejected("HTTP \(status)" + (snippet.isEmpty ? "" : ": " + snippet))
            }
        }
    }

    /// Why there was no answer, for a person: libcurl's error codes grouped as the status
    /// bar says them.
    nonisolated static func reason(curlCode code: Int) -> String {
        switch CURLcode(UInt32(clamping: code)) {
        case CURLE_COULDNT_CONNECT: return "cannot connect to the server"
        case CURLE_OPERATION_TIMEDOUT: return "the server did not answer in time"
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return "unknown host"
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING: return "no network"
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            return "TLS failed (certificate or handshake)"
        default: return "network error \(code)"
        }
    }
}

/// curl_global_init, once per process, before the first handle.
private let curlReady: Bool = bx_curl_global_init() == CURLE_OK

/// One libcurl easy handle, used only on its sender's serial queue; kept between requests
/// so the connection (and TLS session) is reused.
final class CurlEasy: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer

    init?() {
        guard let h = bx_curl_easy_init() else { return nil }
        handle = h
    }

    deinit { bx_curl_easy_cleanup(handle) }

    /// What the server keeps of its answer: enough for the 160 characters a refusal shows.
    static let bodyLimit = 4096

    /// Sends and waits (up to `timeout` seconds): call it off the event loop.
    func perform(_ r: HTTPRequest, timeout: Double) -> HTTPTransfer {
        bx_curl_easy_reset(handle)  // the options of the last request go; its connection stays
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { bx_curl_slist_free_all(headers) }
        for h in r.headers {
            // "Name;" is curl's way to send a header with an empty value ("Name:" removes it).
            headers = bx_curl_slist_append(headers, h.value.isEmpty ? "\(h.name);" : "\(h.name): \(h.value)")
        }
        // No "Expect: 100-continue" pause before larger bodies.
        headers = bx_curl_slist_append(headers, "Expect:")
        let sink = ResponseSink()
        let code: CURLcode = r.body.withUnsafeBytes { body in
            var rc = bx_curl_set_url(handle, r.url)
            func set(_ c: CURLcode) { if rc == CURLE_OK { rc = c } }
            set(bx_curl_set_http_only(handle))
            set(bx_curl_set_no_signal(handle))
            set(bx_curl_set_no_redirects(handle))
            set(bx_curl_set_timeout_ms(handle, Int(timeout * 1000)))
            set(bx_curl_set_user_agent(handle, "bleexplr"))
            set(bx_curl_set_headers(handle, headers))
            set(bx_curl_set_body(handle, body.baseAddress, body.count))
            if r.method != "POST" { set(bx_curl_set_method(handle, r.method)) }
            set(bx_curl_set_write(handle, { data, size, count, user in
                let n = size * count
                guard let data, let user else { return n }
                let sink = Unmanaged<ResponseSink>.fromOpaque(user).takeUnretainedValue()
                let room = max(0, CurlEasy.bodyLimit - sink.bytes.count)
                if room > 0 {
                    sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(n, room)))
                }
                return n  // the rest is read and dropped
            }, Unmanaged.passUnretained(sink).toOpaque()))
            guard rc == CURLE_OK else { return rc }
            return withExtendedLifetime(sink) { bx_curl_easy_perform(handle) }
        }
        guard code == CURLE_OK else { return .failed(code: Int(code.rawValue)) }
        return .answered(status: bx_curl_response_code(handle), body: sink.bytes)
    }
}

private final class ResponseSink {
    var bytes: [UInt8] = []
}
