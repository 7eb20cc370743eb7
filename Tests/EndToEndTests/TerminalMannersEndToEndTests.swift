import TestSupport
import Foundation
import Testing

/// The real binary in tmux, in a locale without UTF-8 and in the smallest terminals.
@Suite("End to end: locale and terminal size", .serialized)
struct TerminalMannersEndToEndTests {
    /// `LANG=C`: ASCII only, and each column where its title is.
    @Test func aCLocaleDrawsASCIIInColumns() throws {
        let t = try Tmux("langc", width: 80, height: 24, command: "export LANG=C LC_ALL=C; " + wrapped("--demo"))
        let screen = try t.waitFor(text: "Demo HRM")
        #expect(screen.unicodeScalars.allSatisfy { $0.isASCII }, "\(screen)")
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0].hasPrefix(" bleexplr | Scan"))
        let header = try #require(lines.first { $0.contains("ADDRESS") })
        let row = try #require(lines.first { $0.contains("Demo HRM") })
        func column(_ s: String, _ of: String) -> Int? { s.range(of: of).map { s.distance(from: s.startIndex, to: $0.lowerBound) } }
        #expect(column(header, "ADDRESS") == column(row, "E4:1C:22:5D:90:11"))
        #expect(column(header, "RSSI").map { $0 + 1 } == column(row, "-"))   // " -52 ####."
        #expect(lines.last { !$0.isEmpty }?.hasSuffix("? help") == true)
        try t.keys("q")
        try DemoEndToEndTests.expectRestored(t, exit: 0)
    }

    /// Smaller than 60x16 at the start: one line, status 3, the terminal as it was.
    @Test func aTooSmallTerminalIsRefusedWithOneLine() throws {
        let t = try Tmux("small", width: 50, height: 12, command: wrapped("--demo"))
        let screen = try t.waitFor(text: "EXIT=")
        // 50 columns wrap the line (tmux drops the space at the wrap): compare without spaces.
        let line = "bleexplr: the terminal is 50x12; the app needs at least 60x16 (enlarge it, or use the headless commands)"
        #expect(screen.filter { $0 != "\n" && $0 != " " }.contains(line.filter { $0 != " " }))
        try DemoEndToEndTests.expectRestored(t, exit: 3)
    }
}

/// `L` in the real app: the log of what happened, across screens.
@Suite("End to end: the event log")
struct EventLogEndToEndTests {
    @Test func theLogKeepsAConnectionAndItsRead() throws {
        let t = try Tmux("eventlog", width: 100, height: 30, command: wrapped("--demo"))
        try t.waitFor(text: "Demo HRM")
        try t.filterScanList("Demo HRM", "only Demo HRM") { $0.contains("Demo HRM") && !$0.contains("Demo iTag") }
        try t.keys("Enter")
        try t.waitFor(text: "Connected to Demo HRM")
        try t.keys("L")
        // A capture can catch a frame half written: wait for the whole panel, then check it.
        let log = try t.waitFor("the log with the connection") { $0.contains("Event log:") && $0.contains("Scanning") }
        #expect(log.contains("Connecting to Demo HRM") && log.contains("Connected to Demo HRM"))
        try t.keys("Escape", "d")
        try t.waitFor(text: "Disconnected from Demo HRM")
        try t.keys("L")
        let after = try t.waitFor("the log with the disconnection") { $0.contains("Event log:") && $0.contains("Scanning") }
        #expect(after.contains("Disconnected from Demo HRM") && after.contains("Connected to Demo HRM"))
        try t.keys("q")
        try DemoEndToEndTests.expectRestored(t, exit: 0)
    }
}
