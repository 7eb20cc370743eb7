#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A pipe closed on exec (pipe2 is not visible from Swift's Glibc module).
public func makePipe(_ fds: inout [Int32], nonblocking: Bool) -> Bool {
    guard pipe(&fds) == 0 else { return false }
    for fd in fds {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        if nonblocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }
    return true
}

/// Lets other threads hand work to the event loop: a locked list and a self-pipe whose
/// byte wakes poll. For libraries that call back on their own threads (the HTTP client).
public final class LoopInbox: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var items: [@MainActor @Sendable () -> Void] = []
    private let readFD: Int32
    private let writeFD: Int32

    @MainActor
    public init(loop: EventLoop) {
        var fds: [Int32] = [-1, -1]
        if !makePipe(&fds, nonblocking: true) { fds = [-1, -1] }
        readFD = fds[0]
        writeFD = fds[1]
        pthread_mutex_init(&mutex, nil)
        if readFD >= 0 { loop.addReader(fd: readFD) { [unowned self] in self.drain() } }
    }

    deinit {
        if readFD >= 0 { close(readFD); close(writeFD) }
        pthread_mutex_destroy(&mutex)
    }

    /// Safe from any thread.
    public func post(_ work: @escaping @MainActor @Sendable () -> Void) {
        pthread_mutex_lock(&mutex)
        items.append(work)
        pthread_mutex_unlock(&mutex)
        var b: UInt8 = 1
        _ = write(writeFD, &b, 1)  // a full pipe already means "wake up"
    }

    @MainActor
    private func drain() {
        var buf = [UInt8](repeating: 0, count: 256)
        while read(readFD, &buf, buf.count) > 0 {}
        pthread_mutex_lock(&mutex)
        let work = items
        items.removeAll()
        pthread_mutex_unlock(&mutex)
        for w in work { w() }
    }
}
