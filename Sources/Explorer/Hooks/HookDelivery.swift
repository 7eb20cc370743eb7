/// How one attempt went.
public enum SendOutcome: Equatable, Sendable {
    case delivered(String)
    /// Worth another try later (no network, 5xx, 429, a command that failed).
    case retry(String)
    /// Will never succeed as it is (4xx): reported and dropped from the queue.
    case rejected(String)
}

/// Carries one event to its destination: a command or an HTTP server.
@MainActor
public protocol HookSender: AnyObject {
    func send(_ event: FiredEvent, _ done: @escaping @MainActor (SendOutcome) -> Void)
    /// Attempts before an event is given up (nil: keep trying, as for HTTP while offline).
    var maxAttempts: Int? { get }
}

/// What happened to an event, for the status bar, stdout and the recording.
public enum DeliveryReport: Equatable, Sendable {
    case queued(seq: Int, pending: Int)
    case delivered(seq: Int, attempt: Int, detail: String)
    case retrying(seq: Int, attempt: Int, after: Double, reason: String)
    case rejected(seq: Int, reason: String)
    case gaveUp(seq: Int, attempts: Int, reason: String)
    case dropped(seq: Int, reason: String)
    case failed(String)

    public var text: String {
        switch self {
        case let .queued(seq, pending): return "#\(seq) queued (\(pending) pending)"
        case let .delivered(seq, attempt, detail):
            return "#\(seq) delivered: \(detail)" + (attempt > 1 ? " (attempt \(attempt))" : "")
        case let .retrying(seq, attempt, after, reason):
            return "#\(seq) attempt \(attempt) failed: \(reason); retrying in \(formatFixed(after, 0)) s"
        case let .rejected(seq, reason): return "#\(seq) rejected: \(reason) (not retried)"
        case let .gaveUp(seq, attempts, reason): return "#\(seq) given up after \(attempts) attempts: \(reason)"
        case let .dropped(seq, reason): return "#\(seq) dropped: \(reason)"
        case let .failed(message): return message
        }
    }

    /// The event it is about; nil for a failure of the queue itself.
    public var seq: Int? {
        switch self {
        case let .queued(s, _), let .delivered(s, _, _), let .retrying(s, _, _, _), let .rejected(s, _),
             let .gaveUp(s, _, _), let .dropped(s, _): return s
        case .failed: return nil
        }
    }

    public var isProblem: Bool {
        switch self {
        case .queued, .delivered: return false
        case .retrying, .rejected, .gaveUp, .dropped, .failed: return true
        }
    }
}

/// Delivers fired events one at a time, in order, from a queue that survives restarts;
/// retries with backoff. The next event waits for the one before it, so a server sees
/// presses in the order they happened.
@MainActor
public final class HookDelivery {
    public let queue: HookQueue
    public let sender: HookSender
    private let loop: EventLoop
    private let backoff: Backoff
    private var inFlight = false
    private var attempt = 0
    private var retryTimer: EventLoop.TimerID?
    public var onReport: (@MainActor (DeliveryReport) -> Void)?

    public init(queue: HookQueue, sender: HookSender, loop: EventLoop, backoff: Backoff = Backoff()) {
        self.queue = queue; self.sender = sender; self.loop = loop; self.backoff = backoff
    }

    /// Delivers what an earlier run left in the queue.
    public func start() { pump() }

    public func fire(_ draft: FiredEvent) {
        do {
            let (e, dropped) = try queue.enqueue(draft)
            if let d = dropped {
                onReport?(.dropped(seq: d.seq, reason: "the queue is full (\(queue.capacity) events)"))
                if inFlight == false, attempt > 0 { attempt = 0 }
            }
            onReport?(.queued(seq: e.seq, pending: queue.pending.count))
        } catch {
            onReport?(.failed("event not queued: \(error.description)"))
            return
        }
        pump()
    }

    public var pendingCount: Int { queue.pending.count }

    private func pump() {
        guard !inFlight, retryTimer == nil, let e = queue.pending.first else { return }
        inFlight = true
        attempt += 1
        let n = attempt
        sender.send(e) { [weak self] outcome in
            guard let self else { return }
            self.inFlight = false
            // The event may have been dropped from a full queue meanwhile.
            guard self.queue.pending.first?.seq == e.seq else { self.attempt = 0; self.pump(); return }
            switch outcome {
            case let .delivered(detail):
                self.finish(e.seq, "delivered", .delivered(seq: e.seq, attempt: n, detail: detail))
            case let .rejected(reason):
                self.finish(e.seq, "rejected", .rejected(seq: e.seq, reason: reason))
            case let .retry(reason):
                if let max = self.sender.maxAttempts, n >= max {
                    self.finish(e.seq, "given up", .gaveUp(seq: e.seq, attempts: n, reason: reason))
                    return
                }
                let after = self.backoff.delay(afterAttempt: n)
                self.onReport?(.retrying(seq: e.seq, attempt: n, after: after, reason: reason))
                self.retryTimer = self.loop.schedule(after: after) { [weak self] in
                    self?.retryTimer = nil
                    self?.pump()
                }
            }
        }
    }

    private func finish(_ seq: Int, _ outcome: String, _ report: DeliveryReport) {
        attempt = 0
        do { try queue.complete(seq, outcome: outcome) } catch { onReport?(.failed(error.description)) }
        onReport?(report)
        pump()
    }

    /// Retry now (the link or the network is back).
    public func retryNow() {
        guard let t = retryTimer else { return }
        loop.cancel(t)
        retryTimer = nil
        pump()
    }
}
