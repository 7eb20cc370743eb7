import Foundation
import Synchronization
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A dbus-daemon of our own: session-type config in a temp dir, unix socket there.
/// A missing dbus-daemon is an error (the test fails and says what to install).
///
/// Spawned with posix_spawn rather than Foundation.Process: the test runner's threads
/// block signals and a child inherits that mask, so SIGTERM would never reach it and
/// Process.waitUntilExit would hang. Killed with SIGKILL: a bus that crashes.
public final class PrivateBus {
    struct Failure: Error, CustomStringConvertible { let description: String }

    public let address: String
    public let directory: String
    private var pid: pid_t = 0

    public init() throws {
        let daemon = "/usr/bin/dbus-daemon"
        guard access(daemon, X_OK) == 0 else {
            throw Failure(description: "dbus-daemon is missing (\(daemon)): run scripts/install-deps (Debian package dbus-daemon)")
        }
        var template = Array("/tmp/bleexplr-bus-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed") }
        directory = String(cString: made)
        let config = directory + "/bus.conf"
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(directory)/bus</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(toFile: config, atomically: true, encoding: .utf8)

        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure(description: "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        // Nothing else of ours: a daemon that outlives a crashed test run must not keep
        // inherited descriptors open (the build lock that `flock` passed down, above all).
        // The pipe's end still arrives as stdout: dup2 clears close-on-exec.
        for fd in Int32(3)..<Int32(1024) {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let args = [daemon, "--config-file=\(config)", "--nofork", "--print-address"]
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = environmentLock.withLock { _ in posix_spawn(&child, daemon, &actions, &attr, &argv, environ) }
        pid = child
        close(fds[1])
        defer { close(fds[0]) }
        guard rc == 0 else { throw Failure(description: "cannot start dbus-daemon: \(String(cString: strerror(rc)))") }

        // The daemon prints its address once it listens; EOF means it died.
        var text = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 256)
        while !text.contains(10) {
            let n = read(fds[0], &buf, buf.count)
            if n <= 0 { break }
            text += buf[0..<n]
        }
        let line = String(decoding: text, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        address = line
        guard line.hasPrefix("unix:") else {
            kill()
            throw Failure(description: "dbus-daemon did not start (printed '\(line)')")
        }
    }

    /// The bus dies under its clients.
    public func kill() {
        guard pid > 0 else { return }
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        pid = 0
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
