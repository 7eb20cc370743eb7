import Foundation
import Testing

/// The real binary, `--demo`, in tmux.
@Suite("End to end: bleexplr --demo in tmux", .serialized)
struct DemoEndToEndTests {
    /// Checks the app left the terminal as it found it: normal screen, cooked mode, echo.
    static func expectRestored(_ t: Tmux, exit: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let screen = try t.waitFor(text: "EXIT=")
        #expect(screen.contains("EXIT=\(exit)"), sourceLocation: sourceLocation)
        let modes = try t.waitFor("stty modes") { $0.contains("icanon") }
        #expect(modes.contains("icanon echo") || modes.contains("isig icanon"), sourceLocation: sourceLocation)
        #expect(!modes.contains("-icanon") && !modes.contains("-echo "), sourceLocation: sourceLocation)
        #expect(try t.display("#{alternate_on}") == "0", sourceLocation: sourceLocation)
    }

    @Test func filterConnectBrowseNotifyQuit() throws {
        let t = try Tmux("hrm", command: wrapped("--demo --seed 7"))
        try t.waitFor(text: "Demo HRM")
        try t.keys("/")
        try t.literal("Demo HRM")
        try t.keys("Enter")
        var screen = try t.waitFor("only Demo HRM listed") { s in
            s.contains("Demo HRM") && !s.contains("Demo iTag") && !s.contains("/ filter:")
        }
        try t.keys("Enter")
        // The device screen opens by itself once services are resolved.
        screen = try t.waitFor(text: "Scan › Demo HRM")
        screen = try t.waitFor(text: "Heart Rate Measurement")
        #expect(screen.contains("● connected"))
        #expect(screen.contains("Body Sensor Location"))
        try t.keys("j", "Enter")
        try t.waitFor(text: "Scan › Demo HRM › Heart Rate Measurement")
        try t.keys("n")
        try t.waitFor(text: "Notify on")
        let first = try t.waitFor("a decoded value") { $0.contains(" bpm") }
        let firstValue = first.split(separator: "\n").first { $0.contains("Value") }
        let later = try t.waitFor("the value to change", timeout: 8) { s in
            s.split(separator: "\n").first { $0.contains("Value") } != firstValue && s.contains("3 values")
                || s.contains("4 values") || s.contains("5 values")
        }
        #expect(later.contains("notify"))
        try t.keys("q")
        try Self.expectRestored(t, exit: 0)
    }

    @Test func droppedLinkReturnsToScanListWithReason() throws {
        let t = try Tmux("flaky", command: wrapped("--demo --seed 3"))
        try t.waitFor(text: "Demo Flaky")
        try t.keys("/")
        try t.literal("flaky")
        try t.keys("Enter")
        try t.waitFor("only Demo Flaky") { !$0.contains("Demo HRM") && !$0.contains("/ filter:") }
        try t.keys("Enter")
        try t.waitFor(text: "attempt 2", timeout: 5)
        try t.waitFor(text: "Scan › Demo Flaky", timeout: 10)
        let back = try t.waitFor("back on the scan list", timeout: 20) { s in
            s.contains("Demo Flaky disconnected: connection timed out") && !s.contains("Scan › Demo Flaky")
        }
        #expect(back.contains("NAME"))
        try t.keys("q")
        try Self.expectRestored(t, exit: 0)
    }

    @Test(arguments: [("TERM", 143), ("HUP", 129), ("INT", 130)])
    func signalsRestoreTheTerminal(signal: String, exit: Int) throws {
        let t = try Tmux("sig\(signal)", command: wrapped("--demo"))
        try t.waitFor(text: "Demo HRM")
        let pid = try #require(try t.appPID())
        kill(pid, signal == "TERM" ? SIGTERM : signal == "HUP" ? SIGHUP : SIGINT)
        try Self.expectRestored(t, exit: exit)
    }

    @Test func ctrlCQuitsAndHelpListsKeys() throws {
        let t = try Tmux("ctrlc", command: wrapped("--demo"))
        try t.waitFor(text: "Demo HRM")
        try t.keys("?")
        let help = try t.waitFor(text: "any key closes")
        #expect(help.contains("notifications/indications on/off"))
        try t.keys("x")
        try t.waitFor("help closed") { !$0.contains("any key closes") }
        try t.keys("C-c")
        try Self.expectRestored(t, exit: 130)
    }

    @Test func resizeRedrawsAndTooSmallSaysSo() throws {
        let t = try Tmux("resize", command: wrapped("--demo"))
        try t.waitFor(text: "Demo HRM")
        try t.run(["resize-window", "-t", "bx", "-x", "50", "-y", "12"])
        try t.waitFor(text: "Terminal too small")
        try t.run(["resize-window", "-t", "bx", "-x", "120", "-y", "35"])
        let big = try t.waitFor("full screen again") { $0.contains("Demo HRM") && !$0.contains("too small") }
        #expect(big.split(separator: "\n", omittingEmptySubsequences: false).count >= 35)
        try t.keys("q")
        try Self.expectRestored(t, exit: 0)
    }

    @Test func evilNameNeverReachesTheTerminalRaw() throws {
        let t = try Tmux("evil", command: wrapped("--demo"))
        let screen = try t.waitFor(text: "Evil␛[2J")
        #expect(screen.contains("Demo HRM"))   // the screen was not cleared by the name
        let title = try t.display("#{pane_title}")
        #expect(!title.contains("pwned"))       // the OSC title sequence did not run
        try t.keys("q")
        try Self.expectRestored(t, exit: 0)
    }
}

@Suite("Command line")
struct CommandLineTests {
    static func run(_ args: [String], stdin: String = "/dev/null") throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Tmux.binary)
        p.arguments = args
        p.standardInput = FileHandle(forReadingAtPath: stdin)
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func badArgumentsGetOneClearLine() throws {
        var (code, out) = try Self.run(["--seed", "abc"])
        #expect(code == 2)
        #expect(out.hasPrefix("bleexplr: --seed takes a whole number, not 'abc'"))
        (code, out) = try Self.run(["--bogus"])
        #expect(code == 2 && out.hasPrefix("bleexplr: unknown argument '--bogus'"))
        (code, out) = try Self.run(["--record"])
        #expect(code == 2 && out.hasPrefix("bleexplr: --record needs a value"))
        (code, out) = try Self.run(["--version"])
        #expect(code == 0 && out.hasPrefix("bleexplr 0."))
    }

    @Test func noTerminalIsAClearError() throws {
        let (code, out) = try Self.run(["--demo"])
        #expect(code == 2)
        #expect(out.contains("needs a terminal"))
    }
}
