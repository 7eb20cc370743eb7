import Foundation
import Synchronization

/// Drives the real bleexplr binary in a real terminal (tmux), as a user would.
public final class Tmux {
    public let socket: String
    public let session = "bx"

    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The binary under test: $BLEEXPLR_BIN, or the debug build `swift test` just made.
    public static var binary: String {
        if let b = ProcessInfo.processInfo.environment["BLEEXPLR_BIN"] { return b }
        return packageRoot.appendingPathComponent(".build/debug/bleexplr").path
    }

    public init(_ name: String, width: Int = 100, height: Int = 30, command: String) throws {
        socket = "bxe2e-\(name)-\(getpid())"
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw E2EError("bleexplr binary not found at \(Self.binary): build it first (swift build)")
        }
        _ = try? run(["kill-server"])
        let out = try run(["new-session", "-d", "-x", "\(width)", "-y", "\(height)", "-s", session,
                           "env", "TERM=xterm-256color", "LANG=C.UTF-8", "sh", "-c", command])
        guard out.status == 0 else { throw E2EError("tmux new-session failed: \(out.text)") }
    }

    deinit { _ = try? run(["kill-server"]) }

    @discardableResult
    public func run(_ args: [String]) throws -> (status: Int32, text: String) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
            throw E2EError("tmux is not installed: end-to-end tests cannot run (apt-get install tmux)")
        }
        return try spawn("/usr/bin/tmux", ["-L", socket] + args)
    }

    public func keys(_ keys: String...) throws { try run(["send-keys", "-t", session] + keys) }
    public func literal(_ text: String) throws { try run(["send-keys", "-t", session, "-l", text]) }

    public func screen() throws -> String { try run(["capture-pane", "-p", "-t", session]).text }
    public func display(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", session, format]).text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until the screen satisfies `condition`; fails with the last screen if not.
    @discardableResult
    public func waitFor(_ what: String, timeout: Double = 10, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            usleep(100_000)
        }
        throw E2EError("timed out waiting for \(what); screen was:\n\(last)")
    }

    @discardableResult
    public func waitFor(text: String, timeout: Double = 10) throws -> String {
        try waitFor("\"\(text)\"", timeout: timeout) { $0.contains(text) }
    }

    /// Filters the scan list (`/`, the text, Enter) and waits until the filter line has
    /// closed and `listed` holds for the screen.
    @discardableResult
    public func filterScanList(_ text: String, _ what: String, _ listed: (String) -> Bool) throws -> String {
        try keys("/")
        try literal(text)
        try keys("Enter")
        return try waitFor(what) { listed($0) && !$0.contains("/ filter:") }
    }

    /// The pid of the program running in the pane's shell (bleexplr).
    public func appPID() throws -> Int32? {
        let shell = try display("#{pane_pid}")
        let out = try spawn("/usr/bin/pgrep", ["-P", shell, "-f", "bleexplr"])
        return out.text.split(separator: "\n").first.flatMap { Int32($0) }
    }
}

public struct E2EError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// A command line that runs bleexplr, then reports how it ended and the terminal's
/// modes, so a test can check that the terminal was restored.
public func wrapped(_ args: String) -> String {
    // The shell survives a Ctrl-C meant for bleexplr (they share a process group here).
    "trap : INT; '\(Tmux.binary)' \(args); echo \"EXIT=$?\"; stty -a | tr ' ' '\\n' | grep -E '^-?(icanon|echo|isig)$' | tr '\\n' ' '; echo; sleep 60"
}

public func tempPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("bx-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
}

/// Starts a program with stdin from /dev/null and stdout and stderr into `outPath` (not a
/// pipe: the tmux server that new-session starts inherits it and would hold a pipe open
/// forever). `env` replaces the environment; `blocked` are signals it starts with blocked.
/// The test runner's threads may block signals and the mask survives exec, so the mask is
/// set explicitly: a tmux server started with SIGTERM blocked ignores kill-server and
/// outlives the test.
/// Held while a child is spawned with this process's environment, and by a test that
/// changes that environment (setenv reallocates `environ`: a spawn reading it at that
/// moment failed with EFAULT, and a child could inherit a variable meant for one test).
public let environmentLock = Mutex(())

public func startProcess(_ path: String, _ args: [String], output outPath: String, env: [String]? = nil,
                  blocked: [Int32] = []) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var attr = posix_spawnattr_t()
    posix_spawnattr_init(&attr)
    defer { posix_spawnattr_destroy(&attr) }
    var mask = sigset_t()
    sigemptyset(&mask)
    for s in blocked { sigaddset(&mask, s) }
    posix_spawnattr_setsigmask(&attr, &mask)
    posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK))
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + args).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?]? = env.map { $0.map { strdup($0) } + [nil] }
    defer { for a in argv { free(a) }; for e in envp ?? [] { free(e) } }
    var pid: pid_t = 0
    let rc = environmentLock.withLock { _ in
        envp == nil ? posix_spawn(&pid, path, &actions, &attr, argv, environ)
                    : posix_spawn(&pid, path, &actions, &attr, argv, envp!)
    }
    guard rc == 0 else { throw E2EError("cannot run \(path): error \(rc)") }
    return pid
}

/// The shell's way of saying how a process ended: its exit code, or 128 + the signal.
public func shellExitCode(_ status: Int32) -> Int32 {
    (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

/// Runs a program and waits for it (posix_spawn and waitpid rather than Foundation's
/// Process, whose exit monitoring missed tmux clients).
public func spawn(_ path: String, _ args: [String]) throws -> (status: Int32, text: String) {
    let outPath = tempPath("spawn-out")
    defer { unlink(outPath) }
    let pid = try startProcess(path, args, output: outPath)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    return (shellExitCode(status), text)
}
