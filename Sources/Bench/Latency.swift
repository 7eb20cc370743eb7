@preconcurrency import Glibc
import Explorer

/// The real binary on a pseudo-terminal of our own, timed by what it writes: from start to
/// its first frame, from a key to the frame that answers it, from `q` to its exit.
@MainActor final class PtyApp {
    let pid: pid_t
    private let master: Int32
    private var seen: [UInt8] = []

    init?(_ binary: String, _ args: [String], width: UInt16 = 120, height: UInt16 = 40) {
        var m: Int32 = -1, s: Int32 = -1
        var size = winsize(ws_row: height, ws_col: width, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&m, &s, nil, nil, &size) == 0 else { return nil }
        master = m
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        for fd in Int32(0)...2 { posix_spawn_file_actions_adddup2(&actions, s, fd) }
        posix_spawn_file_actions_addclose(&actions, s)
        posix_spawn_file_actions_addclose(&actions, m)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        posix_spawnattr_setflags(&attr, 0x80)   // POSIX_SPAWN_SETSID: a session of its own, like a terminal's
        let words: [String] = [binary] + args
        let settings: [String] = ["TERM=xterm-256color", "LANG=C.UTF-8", "HOME=/tmp", "PATH=/usr/bin:/bin"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let env: [UnsafeMutablePointer<CChar>?] = settings.map { strdup($0) } + [nil]
        var child: pid_t = 0
        let rc = posix_spawn(&child, binary, &actions, &attr, argv, env)
        argv.forEach { free($0) }
        env.forEach { free($0) }
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attr)
        close(s)
        guard rc == 0 else { close(m); return nil }
        pid = child
    }

    /// Seconds until the output holds `marker` (after what was read so far), nil on timeout.
    func waitFor(_ marker: String, timeout: Double = 10) -> Double? {
        let needle = Array(marker.utf8)
        let t0 = monotonicSeconds()
        var buf = [UInt8](repeating: 0, count: 65536)
        while monotonicSeconds() - t0 < timeout {
            if let r = seen.firstRange(of: needle) {
                seen.removeSubrange(..<r.upperBound)
                return monotonicSeconds() - t0
            }
            var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) >= 0 else { return nil }
            if p.revents & Int16(POLLIN) != 0 {
                let n = read(master, &buf, buf.count)
                if n <= 0 { return nil }
                seen += buf[..<n]
                if seen.count > 1 << 20 { seen.removeFirst(seen.count - needle.count) }
            } else if p.revents != 0 { return nil }
        }
        return nil
    }

    /// Reads whatever is there, to start a measurement from a quiet screen.
    func drain(for seconds: Double) {
        _ = waitFor("\u{0}never\u{0}", timeout: seconds)
        seen.removeAll()
    }

    func type(_ keys: String) { _ = keys.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, keys.utf8.count) } }

    /// Seconds from now until the process has exited, nil if it did not within `timeout`.
    /// What it wrote meanwhile, and after, stays readable in `output`.
    func waitForExit(timeout: Double = 5) -> Double? {
        let t0 = monotonicSeconds()
        var status: Int32 = 0
        seen.removeAll()
        while monotonicSeconds() - t0 < timeout {
            _ = waitFor("\u{0}never\u{0}", timeout: 0.002)
            if waitpid(pid, &status, WNOHANG) == pid {
                exited = true
                let t = monotonicSeconds() - t0
                _ = waitFor("\u{0}never\u{0}", timeout: 0.2)   // the rest: what it wrote as it ended
                return t
            }
        }
        return nil
    }

    private(set) var exited = false

    /// What was read and not yet consumed by a `waitFor` (after `waitForExit`: its last words).
    var output: String { String(decoding: seen, as: UTF8.self) }

    func kill() {
        if !exited {
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(master)
    }
}

/// Time to the first frame; a key (`?`, the help) to the frame that shows it, and `q` to
/// the exit, in a crowded room of 1,000 demo devices advertising (about 1,300 reports a
/// second); medians of five.
@MainActor func benchLatency(_ report: Report) {
    let binary = CommandLine.arguments[0].replacingSuffix("bleexplr-bench", with: "bleexplr")
    guard access(binary, X_OK) == 0 else { print("latency skipped: needs \(binary)"); return }
    func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

    var first: [Double] = []
    for _ in 0..<5 {
        let t0 = monotonicSeconds()
        guard let app = PtyApp(binary, ["--demo"]) else { print("latency skipped: no pty"); return }
        if app.waitFor("ADDRESS") != nil { first.append(monotonicSeconds() - t0) }
        app.kill()
    }
    guard first.count == 5 else { report.text("time to the first frame, --demo, 120x40 (ms)", "failed"); return }
    report.figure("time to the first frame, --demo, 120x40 (ms)", median(first) * 1000, digits: 1, atMost: 200)

    guard let app = PtyApp(binary, ["--demo", "--crowd", "1000"]) else { return }
    defer { app.kill() }
    _ = app.waitFor("ADDRESS")
    app.drain(for: 2)   // the crowd heard
    var keys: [Double] = []
    for _ in 0..<5 {
        app.type("?")
        if let t = app.waitFor(" Keys ", timeout: 3) { keys.append(t) }
        app.type("\u{1B}")
        app.drain(for: 0.5)
    }
    if keys.count == 5 {
        report.figure("key to the frame that answers it, 1,000 devices advertising (ms)", median(keys) * 1000, digits: 1, atMost: 100)
    } else {
        report.text("key to the frame that answers it, 1,000 devices advertising (ms)", "failed (\(keys.count) of 5)")
    }
    app.type("q")
    if let t = app.waitForExit() {
        report.figure("q to exit, 1,000 devices advertising (ms)", t * 1000, digits: 1, atMost: 100)
    } else {
        report.text("q to exit, 1,000 devices advertising (ms)", "did not exit in 5 s")
    }
}
