import Testing
@testable import Explorer
@testable import TUI

/// The smallest terminal the app runs in (Router.minWidth x minHeight): every screen
/// keeps its titles, whole words on its hint line, the device count and "? help".
@Suite("Screens at 60x16")
struct SmallScreenTests {
    static let w = Router.minWidth, h = Router.minHeight

    static func render(_ s: AppState) -> [String] { Router.render(s, width: w, height: h).lines() }

    /// The demo-like list with 24 devices: more than 60x16 shows.
    static func crowded() -> AppState {
        var s = ScreenTests.state()
        for i in 0..<20 {
            let a = "00:00:00:00:00:" + (i < 10 ? "0" : "") + String(i)
            _ = Reducer.reduce(&s, .backend(.advertisementReceived(AdvertisementReport(
                id: PeripheralID(a), address: a, name: "Sensor \(i)", rssi: -70 - i, connectable: true,
                advertisement: Advertisement())), at: ScreenTests.t0))
        }
        return s
    }

    /// The hint line holds whole hints only, each one the screen offers.
    static func expectWholeHints(_ line: String, _ s: AppState, sourceLocation: SourceLocation = #_sourceLocation) {
        let offered = Set(Keymap.hints(for: s).split(separator: " · ").map(String.init))
        for item in line.split(separator: " · ").map(String.init) {
            #expect(offered.contains(item), "cut hint '\(item)' in '\(line)'", sourceLocation: sourceLocation)
        }
    }

    @Test func scanListKeepsItsColumnTitlesAndShowsWhereItIs() {
        var s = Self.crowded()
        let lines = Self.render(s)
        #expect(lines[0] == " bleexplr │ Scan                                   sort RSSI")
        #expect(lines[1] == "  NAME         ADDRESS           RSSI       ADVERTISEM… AGE")
        // The scroll bar beside the 12 rows: a thumb at the top of the 24 devices.
        let bar = lines[2...13].map { String($0.last!) }
        #expect(bar.prefix(6).allSatisfy { $0 == "█" } && bar.suffix(6).allSatisfy { $0 == "│" }, "\(bar)")
        Self.expectWholeHints(lines[14], s)
        #expect(lines[15] == " sim0 on · scanning · 24 devices                     ? help")
        _ = Reducer.reduce(&s, .cursorMoved(.bottom))
        let end = Self.render(s)
        #expect(end[1] == lines[1])
        #expect(end[13].hasSuffix("█") && end[2].hasSuffix("│"))
    }

    /// A long status (a recording, regions, an error) gives way to the count and "? help".
    @Test func theStatusBarNeverRunsIntoHelp() {
        var s = Self.crowded()
        s.recording = .on(path: "/home/engineer/captures/bleexplr-20261201T214400.jsonl")
        s.scan.filter = "Sensor"
        s.lastError = "Operation failed with ATT error: 0x80"
        let bar = Self.render(s)[15]
        #expect(bar.hasSuffix(" · 20 of 24 devices  ? help") || bar.contains(" · 20 of 24 devices"), "\(bar)")
        #expect(bar.hasSuffix("? help"))
        #expect(!bar.contains("devices?") && !bar.contains("device?"))
        #expect(CellGrid.columns(of: bar) <= Self.w)
    }

    @Test func deviceScreenShowsWholeFacts() {
        var s = ScreenTests.connected()
        s.alert = nil
        let lines = Self.render(s)
        #expect(lines[1] == " Demo HRM  E4:1C:22:5D:90:11  ● connected  RSSI -52 dBm")
        #expect(lines[3].hasPrefix(" ▾ Heart Rate"))
        Self.expectWholeHints(lines[14], s)
        #expect(lines[15].hasSuffix("? help"))
    }

    @Test func characteristicAndDetailsScreensFit() {
        var s = ScreenTests.connected()
        _ = Reducer.reduce(&s, .cursorMoved(.down))
        _ = Reducer.reduce(&s, .rowActivated)
        _ = Reducer.reduce(&s, .backend(.valueNotified(ScreenTests.hrmChar, [0x16, 75, 0x00, 0x04]), at: ScreenTests.t0 + 7))
        s.alert = nil
        var lines = Self.render(s)
        #expect(lines[1] == " Heart Rate Measurement  2A37")
        #expect(lines[10].hasPrefix(" HISTORY 1 value, newest first"))
        Self.expectWholeHints(lines[14], s)
        s = ScreenTests.state()
        s.scan.cursor = ScreenTests.hrm
        _ = Reducer.reduce(&s, .detailsRequested)
        lines = Self.render(s)
        #expect(lines[3] == " Services       180D Heart Rate, 180F Battery")
        Self.expectWholeHints(lines[14], s)
    }

    /// The help does not fit in 16 rows: it wraps its text and scrolls to its last key.
    @Test func helpScrollsToItsLastKey() {
        var s = Self.crowded()
        _ = Reducer.reduce(&s, .screenResized(width: Self.w, height: Self.h))
        _ = Reducer.reduce(&s, .helpToggled)
        var lines = Self.render(s)
        let layout = HelpLayout(width: Self.w, height: Self.h)
        #expect(layout.maxTop > 0)
        #expect(lines.contains { $0.contains("↑↓ j k PgUp PgDn g G  move, page, top, bottom") })
        #expect(lines.contains { $0.contains(" ↓ 1-\(layout.visible) of \(layout.lines.count) · j k scroll") })
        #expect(!lines.joined().contains("quit (in a prompt"))
        // Nothing is cut: every word of the help is on some line of the box.
        let words = Set(layout.lines.flatMap { $0.text.split(separator: " ").map(String.init) })
        #expect(words.isSuperset(of: Keymap.help.flatMap { $0.1.split(separator: " ").map(String.init) }))
        // j scrolls instead of closing; G goes to the end, and no further.
        #expect(Keymap.action(for: .char("j"), in: s) == .helpScrolled(by: 1))
        _ = Reducer.reduce(&s, Keymap.action(for: .char("j"), in: s)!)
        #expect(s.showHelp && s.helpTop == 1)
        _ = Reducer.reduce(&s, Keymap.action(for: .char("G"), in: s)!)
        #expect(s.helpTop == layout.maxTop)
        _ = Reducer.reduce(&s, .helpScrolled(by: 1))
        #expect(s.helpTop == layout.maxTop)
        lines = Self.render(s)
        #expect(lines.contains { $0.contains("q Ctrl-C Ctrl-L") && $0.contains("quit (in a prompt") })
        #expect(lines.contains { $0.contains(" ↑  \(layout.maxTop + 1)-\(layout.lines.count) of \(layout.lines.count)") })
        // Larger, it fits: the scroll comes back into range and the box says any key closes.
        _ = Reducer.reduce(&s, .screenResized(width: 120, height: 40))
        #expect(s.helpTop == 0)
        #expect(Router.render(s, width: 120, height: 40).lines().contains { $0.contains("any key closes") })
        _ = Reducer.reduce(&s, Keymap.action(for: .char("x"), in: s)!)
        #expect(!s.showHelp)
    }

    @Test func everyScreenInASCIIKeepsItsColumns() {
        var s = ScreenTests.connected()
        _ = ASCIIScreenTests.both(s, Self.w, Self.h)
        s = Self.crowded()
        s.showHelp = true
        let lines = ASCIIScreenTests.both(s, Self.w, Self.h)
        #expect(lines[1] == " +- Keys -------------------------------------------------+")
    }
}
