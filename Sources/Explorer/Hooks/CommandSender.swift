#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Runs `/bin/sh -c COMMAND` for each event, with the event in BLE_* environment
/// variables (BLE_HEX, BLE_TEXT, BLE_ADDRESS, BLE_UUID, BLE_TIME, BLE_SEQ, BLE_NAME,
/// BLE_DECODED). Never blocks the loop: the child's output comes through a pipe the loop
/// reads, and its exit is collected with a non-blocking waitpid on a short timer while it
/// runs (no timer when nothing runs). Exit 0 is delivered; anything else is retried a few
/// times; a command still running after `timeout` is killed.
@MainActor
public final class CommandSender: HookSender {
    public let command: String
    public let maxAttempts: Int? = 5
    private let loop: EventLoop
    private let timeout: Double

    public init(command: String, loop: EventLoop, timeout: Double = 60) {
        self.command = command; self.loop = loop; self.timeout = timeout
    }

    public func send(_ event: FiredEvent, _ done: @escaping @MainActor (SendOutcome) -> Void) {
        ChildProcess.run(["/bin/sh", "-c", command], environment: event.environment, loop: loop, timeout: timeout) { status, output in
            let last = output.split(separator: "\n").last.map { String($0) } ?? ""
            let note = last.isEmpty ? "" : ": " + TerminalSafe.text(String(last.prefix(120)))
            switch status {
            case .exited(0): done(.delivered("exit 0" + note))
            case let .exited(code): done(.retry("exit \(code)" + note))
            case let .signalled(sig): done(.retry("killed by signal \(sig)" + note))
            case .timedOut: done(.retry("still running after \(Int(self.timeout)) s, killed"))
            case let .failedToStart(why): done(.retry(why))
            }
        }
    }
}

/// A child process watched from the event loop.
@MainActor
public enum ChildProcess {
    public enum Status: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)
        case timedOut
        case failedToStart(String)
    }

    /// Spawns `argv` with the current environment plus `environment`; stdin is /dev/null,
    /// stdout and stderr are collected (the last 4 KiB). `done` runs on the loop.
    public static func run(_ argv: [String], environment: [(String, String)], loop: EventLoop, timeout: Double,
                           _ done: @escaping @MainActor (Status, String) -> Void) {
        var fds: [Int32] = [-1, -1]
        guard makePipe(&fds, nonblocking: false) else { done(.failedToStart("pipe: \(String(cString: strerror(errno)))"), ""); return }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        var attrs = posix_spawnattr_t()
        posix_spawnattr_init(&attrs)
        defer { posix_spawnattr_destroy(&attrs) }
        // The child starts with default signal handling and no blocked signals, and in its
        // own process group so a timeout can stop everything it started.
        var none = sigset_t(); sigemptyset(&none)
        var all = sigset_t(); sigfillset(&all)
        posix_spawnattr_setsigmask(&attrs, &none)
        posix_spawnattr_setsigdefault(&attrs, &all)
        posix_spawnattr_setpgroup(&attrs, 0)
        posix_spawnattr_setflags(&attrs, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        var env: [String] = []
        var p = environ
        let overridden = Set(environment.map { $0.0 + "=" })
        while let e = p.pointee {
            let s = String(cString: e)
            if !overridden.contains(where: { s.hasPrefix($0) }) { env.append(s) }
            p += 1
        }
        env += environment.map { "\($0.0)=\($0.1)" }
        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let cEnv: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) }; for e in cEnv { free(e) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, &attrs, cArgs, cEnv)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            done(.failedToStart("cannot run \(argv[0]): \(String(cString: strerror(rc)))"), "")
            return
        }
        let reader = fds[0]
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
        var output: [UInt8] = []
        var readerOpen = true
        func drain() {
            var buf = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(reader, &buf, buf.count)
                if n > 0 {
                    output += buf[0..<n]
                    if output.count > 4096 { output.removeFirst(output.count - 4096) }
                    continue
                }
                if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    loop.removeReader(fd: reader)
                    close(reader)
                    readerOpen = false
                }
                return
            }
        }
        loop.addReader(fd: reader) { drain() }
        let started = monotonicSeconds()
        var killed = false
        func check() {
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid {
                if readerOpen { drain() }
                if readerOpen { loop.removeReader(fd: reader); close(reader) }
                let text = String(decoding: output, as: UTF8.self)
                if killed { done(.timedOut, text); return }
                if status & 0x7F == 0 { done(.exited((status >> 8) & 0xFF), text) } else { done(.signalled(status & 0x7F), text) }
                return
            }
            if !killed, monotonicSeconds() - started > timeout {
                killed = true
                kill(-pid, SIGKILL)
            }
            loop.schedule(after: 0.05) { check() }
        }
        loop.schedule(after: 0.01) { check() }
    }
}
