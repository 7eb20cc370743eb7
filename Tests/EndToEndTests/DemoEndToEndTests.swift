import TestSupport
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
        var screen = try t.filterScanList("Demo HRM", "only Demo HRM listed") { $0.contains("Demo HRM") && !$0.contains("Demo iTag") }
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

    /// Demo Flaky drops its link 8 s after every connection: the device screen stays,
    /// says why, and Esc goes back to the list.
    @Test func droppedLinkKeepsTheDeviceScreenWithTheReason() throws {
        let t = try Tmux("flaky", command: wrapped("--demo --seed 3"))
        try t.waitFor(text: "Demo Flaky")
        try t.filterScanList("flaky", "only Demo Flaky") { !$0.contains("Demo HRM") }
        try t.keys("Enter")
        try t.waitFor(text: "attempt 2", timeout: 5)
        try t.waitFor(text: "Scan › Demo Flaky", timeout: 10)
        let kept = try t.waitFor("the screen kept, marked", timeout: 20) { s in
            s.contains("● disconnected (connection timed out) — Enter reconnects  since ")
                && s.contains("Scan › Demo Flaky")
        }
        #expect(kept.contains("Battery Level"))
        try t.keys("Escape")
        let back = try t.waitFor("back on the scan list") { !$0.contains("Scan › Demo Flaky") && $0.contains("NAME") }
        #expect(!back.contains("Enter reconnects"))
        try t.keys("q")
        try Self.expectRestored(t, exit: 0)
    }

    /// Graceful signals quit cleanly; crash signals (as a Swift runtime trap or a bad
    /// pointer would raise) still restore the terminal before the process dies.
    @Test(arguments: [("TERM", SIGTERM, 143), ("HUP", SIGHUP, 129), ("INT", SIGINT, 130),
                      ("SEGV", SIGSEGV, 139), ("ABRT", SIGABRT, 134), ("ILL", SIGILL, 132)])
    func signalsRestoreTheTerminal(name: String, signal: Int32, exit: Int) throws {
        let t = try Tmux("sig\(name)", command: wrapped("--demo"))
        try t.waitFor(text: "Demo HRM")
        let pid = try #require(try t.appPID())
        kill(pid, signal)
        try Self.expectRestored(t, exit: exit)
    }

    @Test func ctrlCQuitsAndHelpListsKeys() throws {
        let t = try Tmux("ctrlc", command: wrapped("--demo"))
        try t.waitFor(text: "Demo HRM")
        try t.keys("?")
        let help = try t.waitFor(text: "any key closes")
        #expect(help.contains("notify on/off"))
        try t.keys("x")
        try t.waitFor("help closed") { !$0.contains("any key closes") }
        try t.keys("C-c")
        try Self.expectRestored(t, exit: 130)
    }

    /// Ctrl-C in a prompt cancels the prompt (as the help says), and the links stay up;
    /// outside one it quits.
    @Test func ctrlCInAPromptCancelsIt() throws {
        let t = try Tmux("ctrlcprompt", command: wrapped("--demo"))
        try t.waitFor(text: "Demo HRM")
        try t.keys("/")
        try t.literal("zzz")
        try t.waitFor(text: "/ filter: zzz")
        try t.keys("C-c")
        let after = try t.waitFor("the prompt closed") { !$0.contains("/ filter:") }
        #expect(!after.contains("EXIT="))
        #expect(after.contains("Demo HRM"))   // cancelled: the filter is gone too
        try t.keys("C-l")                      // repaints, changes nothing
        try t.waitFor(text: "Demo HRM")
        try t.keys("C-c")
        try Self.expectRestored(t, exit: 130)
    }

    /// NO_COLOR (no-color.org), set to anything, draws without colours; attributes stay.
    @Test func noColorDrawsWithoutColours() throws {
        let colour = try NSRegularExpression(pattern: "\u{1B}\\[([0-9]+;)*(3[0-7]|38|9[0-7])(;[0-9]+)*m")
        func colours(_ screen: String) -> Int {
            colour.numberOfMatches(in: screen, range: NSRange(screen.startIndex..., in: screen))
        }
        // (swift test itself runs its children with NO_COLOR=1.)
        for (env, coloured) in [("unset NO_COLOR", true), ("export NO_COLOR=", true), ("export NO_COLOR=1", false), ("export NO_COLOR=yes", false)] {
            let t = try Tmux("nocolor\(coloured)\(env.count)", command: env + "; " + wrapped("--demo"))
            try t.waitFor(text: "Demo HRM")
            usleep(300_000)
            let screen = try t.run(["capture-pane", "-p", "-e", "-t", t.session]).text
            #expect((colours(screen) > 0) == coloured, "\(env): \(colours(screen)) coloured runs")
            #expect(screen.contains("\u{1B}[7m") || screen.contains(";7m") || screen.contains("[7;"), "reverse stays")
            try t.keys("q")
            try Self.expectRestored(t, exit: 0)
        }
    }

    /// TERM=dumb cannot show the app: one clear line and status 3 (no usable terminal), as an unknown TERM;
    /// the headless commands still work there.
    @Test func aDumbTerminalIsRefusedWithOneLine() throws {
        let t = try Tmux("dumb", command: "export TERM=dumb; " + wrapped("--demo") )
        let screen = try t.waitFor(text: "EXIT=")
        #expect(screen.contains("bleexplr: terminal type 'dumb' cannot draw a full screen (it cannot move the cursor): "))
        #expect(screen.contains("EXIT=3"))
        let h = try Tmux("dumbscan", command: "export TERM=dumb; " + wrapped("--demo scan --duration 1"))
        let out = try h.waitFor(text: "EXIT=")
        #expect(out.contains("Demo HRM") && out.contains("EXIT=0"))
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
    /// The binary without a terminal: stdin /dev/null, stdout and stderr together.
    static func run(_ args: [String]) throws -> (Int32, String) {
        let (status, text) = try spawn(Tmux.binary, args)
        return (status, text)
    }

    @Test func badArgumentsGetOneClearLine() throws {
        var (code, out) = try Self.run(["--seed", "abc"])
        #expect(code == 2)
        #expect(out.hasPrefix("bleexplr: --seed takes a whole number, not 'abc'"))
        (code, out) = try Self.run(["--bogus"])
        #expect(code == 2 && out.hasPrefix("bleexplr: unknown option '--bogus'"))
        (code, out) = try Self.run(["--demo", "frobnicate"])
        #expect(code == 2 && out.hasPrefix("bleexplr: unknown command 'frobnicate'"))
        (code, out) = try Self.run(["--rssi-floor", "-500"])
        #expect(code == 2 && out.hasPrefix("bleexplr: --rssi-floor takes -127...20 dBm or off"))
        (code, out) = try Self.run(["--record"])
        #expect(code == 2 && out.hasPrefix("bleexplr: --record needs a value"))
        (code, out) = try Self.run(["--demo", "write", "E4:1C:22:5D:90:11", "2A39", "zz"])
        #expect(code == 2 && out.hasPrefix("bleexplr: Not hex: 'z'"))
        (code, out) = try Self.run(["--version"])
        #expect(code == 0 && out.hasPrefix("bleexplr 0."))
    }

    @Test func headlessScanListsTheDemoWorldAsJSONLines() throws {
        let (code, out) = try Self.run(["--demo", "scan", "--duration", "2", "--json"])
        #expect(code == 0)
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.count >= 9)
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(objects.contains { $0["name"] as? String == "Demo HRM" && $0["rssi"] is Int })
        // Beacons as fields, whole (the scan list's summary cuts the UUID).
        #expect(objects.contains {
            let b = $0["beacon"] as? [String: Any]
            return b?["kind"] as? String == "ibeacon" && b?["uuid"] as? String == "e2c56db5-dffb-48d2-b060-d0f5a71096e0"
                && b?["major"] as? Int == 1 && b?["minor"] as? Int == 42 && b?["power"] as? Int == -59
        })
        #expect(objects.contains { ($0["beacon"] as? [String: Any])?["url"] as? String == "https://example.com" })
        // Plain output makes the hostile name harmless too.
        let (_, plain) = try Self.run(["--demo", "scan", "--duration", "3"])   // seed 1: the evil device is first heard between 1.5 and 2.5 s
        #expect(plain.contains("Evil␛[2J"))
        #expect(!plain.unicodeScalars.contains { $0.value == 0x1B })
    }

    @Test func headlessServicesReadWriteNotify() throws {
        var (code, out) = try Self.run(["--demo", "services", "E4:1C:22:5D:90:11"])
        #expect(code == 0)
        #expect(out.contains("180D  Heart Rate") && out.contains("2A37  Heart Rate Measurement  [notify]"))
        (code, out) = try Self.run(["--demo", "read", "e4:1c:22:5d:90:11", "2a38", "--json"])
        #expect(code == 0)
        let obj = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        #expect(obj?["decoded"] as? String == "Chest" && obj?["hex"] as? String == "01")
        (code, out) = try Self.run(["--demo", "read", "E4:1C:22:5D:90:11", "2A37"])
        #expect(code == 1 && out == "bleexplr: read failed: NotPermitted: Read not permitted\n")
        (code, out) = try Self.run(["--demo", "write", "E4:1C:22:5D:90:11", "2A39", "02"])
        #expect(code == 1 && out.hasPrefix("bleexplr: write failed: Operation failed with ATT error: 0x80"))
        (code, out) = try Self.run(["--demo", "write", "FC:58:FA:1A:2B:3C", "2A06", "02", "--without-response"])
        #expect(code == 0 && out == "wrote 1 byte\n")
        (code, out) = try Self.run(["--demo", "notify", "E4:1C:22:5D:90:11", "2A37", "--count", "3", "--json"])
        #expect(code == 0)
        let values = out.split(separator: "\n")
        #expect(values.count == 3)
        #expect(values.allSatisfy { $0.contains("\"decoded\":\"") && $0.contains(" bpm") })
        (code, out) = try Self.run(["--demo", "notify", "E4:1C:22:5D:90:11", "FFFF"])
        #expect(code == 1 && out.contains("has no characteristic FFFF"))
        (code, out) = try Self.run(["--demo", "read", "nonsense", "2a19"])
        #expect(code == 2 && out.hasPrefix("bleexplr: 'nonsense' is not a Bluetooth address"))
    }

    @Test func noTerminalIsAClearError() throws {
        let (code, out) = try Self.run(["--demo"])
        #expect(code == 3)   // ExitCode.unavailable: not a bad command line
        #expect(out.contains("needs a terminal"))
    }
}
