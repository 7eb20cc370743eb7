import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Explorer

/// Sends each event as an HTTP request (POST by default) with Foundation's URLSession
/// (libcurl underneath, so https works). URLSession answers on its own thread; the
/// answer comes back to the event loop through a `LoopInbox`, so nothing blocks the UI.
/// 2xx is delivered; no answer, 408, 429 and 5xx are retried (for as long as it takes:
/// the queue keeps events meanwhile); other statuses are rejected.
/// Secrets (`${NAME}` in the URL, headers or body) are resolved only here, just before
/// sending, and never appear in reports.
@MainActor
public final class HTTPSender: ActionSender {
    public let action: HTTPAction
    public let maxAttempts: Int? = nil
    private let secret: (String) -> String?
    private let inbox: LoopInbox
    private let session: URLSession
    private var waiting: [Int: @MainActor (SendOutcome) -> Void] = [:]
    private var nextID = 0

    public init(action: HTTPAction, loop: EventLoop, timeout: Double = 15, secret: @escaping (String) -> String?) {
        self.action = action
        self.secret = secret
        inbox = LoopInbox(loop: loop)
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        config.timeoutIntervalForResource = timeout * 2
        config.httpCookieAcceptPolicy = .never
        config.urlCache = nil
        session = URLSession(configuration: config)
    }

    /// The request for an event, or why it cannot be built (a missing secret).
    public func request(for e: FiredEvent) -> Result<URLRequest, ActionSpecError> {
        let resolve = { (s: String) in ActionTemplate.resolveSecrets(s, self.secret) }
        let urlText: String
        switch resolve(action.url) { case let .success(u): urlText = u; case let .failure(e): return .failure(e) }
        guard let url = URL(string: urlText) else { return .failure(.init("not a valid URL: \(action.url)")) }
        var r = URLRequest(url: url)
        r.httpMethod = action.method
        var hasContentType = false
        for h in action.headers {
            switch resolve(h.value) {
            case let .success(v): r.addValue(v, forHTTPHeaderField: h.name)
            case let .failure(e): return .failure(e)
            }
            if h.name.lowercased() == "content-type" { hasContentType = true }
        }
        if !hasContentType { r.setValue("application/json; charset=utf-8", forHTTPHeaderField: "Content-Type") }
        let body: String
        if let template = action.body {
            // Secrets first, into the template only: a device whose value says
            // "${TOKEN}" must not get the token put in its place.
            switch resolve(template) {
            case let .success(t): body = ActionTemplate.render(t, e, json: action.isJSON)
            case let .failure(err): return .failure(err)
            }
        } else {
            body = e.json
        }
        r.httpBody = Data(body.utf8)
        return .success(r)
    }

    public func send(_ event: FiredEvent, _ done: @escaping @MainActor (SendOutcome) -> Void) {
        let req: URLRequest
        switch request(for: event) {
        case let .success(r): req = r
        case let .failure(e): done(.retry(e.message)); return
        }
        nextID += 1
        let id = nextID
        waiting[id] = done
        let inbox = self.inbox
        let task = session.dataTask(with: req) { data, response, error in
            let outcome = Self.outcome(data: data, response: response, error: error)
            inbox.post { [weak self] in
                guard let self, let d = self.waiting.removeValue(forKey: id) else { return }
                d(self.masked(outcome))
            }
        }
        task.resume()
    }

    /// A server that echoes the request back must not show a secret on screen or in the
    /// recording: every secret value this action uses is masked in what it answered.
    func masked(_ outcome: SendOutcome) -> SendOutcome {
        guard case let .rejected(text) = outcome else { return outcome }
        let names = ActionTemplate.secretNames(action.url) + action.headers.flatMap { ActionTemplate.secretNames($0.value) }
            + ActionTemplate.secretNames(action.body ?? "")
        var t = text
        for n in names { if let v = secret(n), v.count >= 3 { t = t.replacingOccurrences(of: v, with: "•••") } }
        return .rejected(t)
    }

    nonisolated static func outcome(data: Data?, response: URLResponse?, error: Error?) -> SendOutcome {
        if let error {
            let code = (error as NSError).code
            let why: String
            switch code {
            case NSURLErrorCannotConnectToHost: why = "cannot connect to the server"
            case NSURLErrorTimedOut: why = "the server did not answer in time"
            case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: why = "unknown host"
            case NSURLErrorNotConnectedToInternet, NSURLErrorNetworkConnectionLost: why = "no network"
            case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateUntrusted,
                 NSURLErrorServerCertificateHasBadDate, NSURLErrorServerCertificateHasUnknownRoot:
                why = "TLS failed (certificate or handshake)"
            default: why = "network error \(code)"
            }
            return .retry(why)
        }
        guard let http = response as? HTTPURLResponse else { return .retry("no HTTP answer") }
        let status = http.statusCode
        let snippet = data.map { TerminalSafe.text(String(decoding: $0.prefix(160), as: UTF8.self)) } ?? ""
        switch status {
        case 200..<300: return .delivered("HTTP \(status)")
        case 408, 429, 500..<600: return .retry("HTTP \(status)")
        default: return .rejected("HTTP \(status)" + (snippet.isEmpty ? "" : ": " + snippet))
        }
    }
}
