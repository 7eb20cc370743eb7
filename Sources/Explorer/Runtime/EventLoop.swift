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

    public typealias WatchHandler = @MainActor (_ revents: Int16) -> Void

    public struct TimerID: Hashable, Sendable { let raw: Int }
    public struct WatchID: Hashable, Sendable { let raw: Int }

    private struct Timer { let id: Int; let deadline: Double; let handler: Handler }
    /// A watch polls for any `events` (POLLIN, POLLOUT) and can be switched off without
    /// being removed: libdbus toggles its write watch on and off as its queue fills.
    private struct Watch { let fd: Int32; var events: Int16; var enabled: Bool; let handler: WatchHandler }

    private var readers: [Int32: Handler] = [:]
    private var watches: [Int: Watch] = [:]
    private var nextWatchID = 0
    private var timers: [Timer] = []          // sorted by deadline, then id
    private var nextTimerID = 0
    private var stopped = false
    /// Runs before each poll (drain input, flush the recorder, redraw when dirty).
    public var beforeWait: Handler?

    public init() {}

    public func addReader(fd: Int32, _ handler: @escaping Handler) { readers[fd] = handler; pollSetStale = true }
    public func removeReader(fd: Int32) { readers.removeValue(forKey: fd); pollSetStale = true }

    /// Several watches may share one fd (libdbus adds one for reading, one for writing).
    @discardableResult
    public func addWatch(fd: Int32, events: Int16, enabled: Bool = true,
                         _ handler: @escaping WatchHandler) -> WatchID {
        nextWatchID += 1
        watches[nextWatchID] = Watch(fd: fd, events: events, enabled: enabled, handler: handler)
        pollSetStale = true
        return WatchID(raw: nextWatchID)
    }

    public func setWatch(_ id: WatchID, enabled: Bool) {
        guard watches[id.raw]?.enabled != enabled else { return }
        watches[id.raw]?.enabled = enabled
        pollSetStale = true
    }
    public func setWatch(_ id: WatchID, events: Int16) { watches[id.raw]?.events = events; pollSetStale = true }
    public func removeWatch(_ id: WatchID) { watches.removeValue(forKey: id.raw); pollSetStale = true }

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

    /// Runs until `condition` holds, `stop()` or `timeout` seconds pass; returns whether
    /// the condition holds. For tests and headless commands: the condition is checked
    /// after every timer and wake-up, and a timer at the deadline ends the wait.
    @discardableResult
    public func run(until condition: () -> Bool, timeout: Double) -> Bool {
        let deadline = monotonicSeconds() + max(0, timeout)
        let wake = schedule(at: deadline) {}
        defer { cancel(wake) }
        stopped = false
        while !stopped, !condition(), monotonicSeconds() < deadline {
            runDueTimers()
            if stopped || condition() { break }
            beforeWait?()
            if stopped || condition() { break }
            waitOnce()
        }
        return condition()
    }

    private func runDueTimers() {
        guard !timers.isEmpty else { return }   // no clock read (a system call where the clock is HPET)
        let now = monotonicSeconds()
        while let first = timers.first, first.deadline <= now {
            timers.removeFirst()
            first.handler()
            if stopped { return }
        }
    }

    /// What poll(2) waits on, kept between waits and rebuilt only after readers or
    /// watches change (a busy bus wakes the loop thousands of times a second).
    private var pollSetStale = true
    private var pollFDs: [pollfd] = []
    private var pollReaders: [Int32] = []
    private var pollWatches: [Int] = []

    private func waitOnce() {
        if pollSetStale {
            pollSetStale = false
            pollReaders = readers.keys.sorted()
            pollWatches = watches.keys.sorted().filter { watches[$0]!.enabled }
            pollFDs = pollReaders.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                + pollWatches.map { pollfd(fd: watches[$0]!.fd, events: watches[$0]!.events, revents: 0) }
        }
        let readerFDs = pollReaders, watchIDs = pollWatches
        var timeout: Int32 = -1
        if let first = timers.first {
            let ms = (first.deadline - monotonicSeconds()) * 1000
            timeout = ms <= 0 ? 0 : Int32(min(ms.rounded(.up), 3_600_000))
        }
        let n = poll(&pollFDs, nfds_t(pollFDs.count), timeout)
        if n <= 0 { return }  // EINTR: a signal; its self-pipe is readable now
        // poll rewrites every revents; handlers that change the set only mark it stale.
        let fds = pollFDs
        for (i, p) in fds.enumerated() where p.revents != 0 {
            if i < readerFDs.count {
                readers[p.fd]?()
            } else if let w = watches[watchIDs[i - readerFDs.count]], w.enabled {
                // A handler may have removed or disabled this watch meanwhile.
                w.handler(p.revents)
            }
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
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for s in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = onSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(s, &action, nil)
            sigaddset(&unblock, s)
        }
        // A parent may have started us with these blocked (the mask survives exec): they
        // would stay pending forever, and SIGTERM would never restore the terminal.
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        loop.addReader(fd: readFD) {
            var buf = [UInt8](repeating: 0, count: 64)
            let n = read(readFD, &buf, buf.count)
            if n > 0 { for i in 0..<n { handler(Int32(buf[i])) } }
        }
    }
}
