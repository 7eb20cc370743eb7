#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// One thread, one `poll(2)`: file descriptors (the terminal, D-Bus sockets, a signal
/// self-pipe) and timers. Nothing spins: when nothing is due, poll sleeps until the
/// next deadline. Tasks on the main actor would not run while poll blocks, so everything
/// (backends included) schedules here.
@MainActor
public final class EventLoop {
    public typealias Handler = @MainActor () -> Void

    public struct TimerID: Hashable, Sendable { let raw: Int }

    private struct Reader { let fd: Int32; let handler: Handler }
    private struct Timer { let id: Int; let deadline: Double; let handler: Handler }

    private var readers: [Int32: Handler] = [:]
    private var timers: [Timer] = []          // sorted by deadline, then id
    private var nextTimerID = 0
    private var stopped = false
    /// Runs before each poll (drain input, flush the recorder, redraw when dirty).
    public var beforeWait: Handler?

    public init() {}

    public func addReader(fd: Int32, _ handler: @escaping Handler) { readers[fd] = handler }
    public func removeReader(fd: Int32) { readers.removeValue(forKey: fd) }

    @discardableResult
    public func schedule(after seconds: Double, _ handler: @escaping Handler) -> TimerID {
        schedule(at: monotonicSeconds() + max(0, seconds), handler)
    }

    @discardableResult
    public func schedule(at deadline: Double, _ handler: @escaping Handler) -> TimerID {
        nextTimerID += 1
        let t = Timer(id: nextTimerID, deadline: deadline, handler: handler)
        let i = timers.firstIndex { $0.deadline > deadline } ?? timers.endIndex
        timers.insert(t, at: i)
        return TimerID(raw: t.id)
    }

    public func cancel(_ id: TimerID) { timers.removeAll { $0.id == id.raw } }

    public func stop() { stopped = true }

    /// Runs until `stop()`.
    public func run() {
        stopped = false
        while !stopped {
            runDueTimers()
            beforeWait?()
            if stopped { break }
            waitOnce()
        }
    }

    private func runDueTimers() {
        let now = monotonicSeconds()
        while let first = timers.first, first.deadline <= now {
            timers.removeFirst()
            first.handler()
            if stopped { return }
        }
    }

    private func waitOnce() {
        var fds = readers.keys.sorted().map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var timeout: Int32 = -1
        if let first = timers.first {
            let ms = (first.deadline - monotonicSeconds()) * 1000
            timeout = ms <= 0 ? 0 : Int32(min(ms.rounded(.up), 3_600_000))
        }
        let n = poll(&fds, nfds_t(fds.count), timeout)
        if n < 0 { return }  // EINTR: a signal; its self-pipe is readable now
        for p in fds where p.revents != 0 {
            readers[p.fd]?()
        }
    }
}

/// Signals become readable bytes on a self-pipe, handled in the loop like any input.
/// (Only async-signal-safe work happens in the handler: one write.)
nonisolated(unsafe) private var signalPipeWrite: Int32 = -1

private func onSignal(_ sig: Int32) {
    var b = UInt8(truncatingIfNeeded: sig)
    _ = write(signalPipeWrite, &b, 1)
}

@MainActor
public enum SignalPipe {
    /// Routes `signals` to `handler` through the loop. Call once.
    public static func install(_ signals: [Int32], loop: EventLoop, _ handler: @escaping @MainActor (Int32) -> Void) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        signalPipeWrite = fds[1]
        let readFD = fds[0]
        for s in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = onSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(s, &action, nil)
        }
        loop.addReader(fd: readFD) {
            var buf = [UInt8](repeating: 0, count: 64)
            let n = read(readFD, &buf, buf.count)
            if n > 0 { for i in 0..<n { handler(Int32(buf[i])) } }
        }
    }
}
