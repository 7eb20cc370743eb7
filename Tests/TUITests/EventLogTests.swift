import Testing
@testable import Explorer
@testable import TUI

/// The event log (`L`): fed by the one reducer, kept across screens, scrolled and filtered.
@Suite("Event log")
struct EventLogTests {
    typealias T = ScreenTests
    static let bsl = AttributeID("/s/b/e")

    /// A session: connect, a read, a failed write, notifications, a dropped link.
    static func session() -> AppState {
        var s = T.connected()
        _ = Reducer.reduce(&s, .backend(.readCompleted(bsl, .success([1])), at: T.t0 + 5))
        _ = Reducer.reduce(&s, .backend(.writeCompleted(bsl, [2], .request, .failed("Operation failed with ATT error: 0x80")),
                                        at: T.t0 + 6))
        _ = Reducer.reduce(&s, .backend(.notifyChanged(T.hrmChar, enabled: true, nil), at: T.t0 + 7))
        for i in 0..<5 { _ = Reducer.reduce(&s, .backend(.valueNotified(T.hrmChar, [0, UInt8(70 + i)]), at: T.t0 + 8 + Double(i))) }
        s.now = T.t0 + 20
        _ = Reducer.reduce(&s, .backend(.disconnected(T.hrm, .timeout), at: T.t0 + 20))
        return s
    }

    @Test func theReducerLogsWhatHappenedAndNotEveryNotification() {
        var s = Self.session()
        let texts = s.log.entries.map(\.text)
        #expect(texts.contains("Connected to Demo HRM"))
        #expect(texts.contains("Read 1 byte from Body Sensor Location: 01"))
        #expect(texts.contains { $0.hasPrefix("Write Body Sensor Location failed: ") })
        #expect(texts.contains("Notifications on: Heart Rate Measurement"))
        #expect(texts.last == "Demo HRM disconnected: connection timed out")
        #expect(!texts.contains { $0.contains("bpm") })        // values are the history's, not the log's
        #expect(s.log.entries.filter(\.problem).map(\.text).count == 2)
        // Kept when the route changes.
        _ = Reducer.reduce(&s, .backRequested)
        #expect(s.route == .scan && s.log.total == texts.count)
    }

    @Test func adapterAndBluetoothdComingAndGoing() {
        var s = T.state()
        _ = Reducer.reduce(&s, .backend(.adapterChanged(AdapterStatus(name: "hci0", power: .absent, discovering: false)), at: T.t0))
        _ = Reducer.reduce(&s, .backend(.adapterChanged(AdapterStatus(name: "hci0", power: .on, discovering: true)), at: T.t0 + 1))
        let texts = s.log.entries.map(\.text)
        #expect(texts.suffix(4) == ["No adapter (bluetoothd gone, or no controller)", "Scan stopped", "adapter hci0 on", "Scanning"])
    }

    @Test func regionChanges() {
        let s = HookAndRegionScreenTests.porch(rssi: [(4, -70)])
        #expect(s.log.entries.map(\.text).contains { $0.hasPrefix("Region Porch: entered (7C:9E:BD:4F:10:77 7/1 -70 dBm") })
    }

    @Test func thePanelScrollsFiltersAndCloses() {
        var s = Self.session()
        _ = Reducer.reduce(&s, .screenResized(width: 80, height: 24))
        #expect(Keymap.action(for: .char("L"), in: s) == .logToggled)
        _ = Reducer.reduce(&s, .logToggled)
        var lines = T.render(s)
        #expect(lines[1].hasPrefix("┌─ Event log: \(s.log.total) events "))
        #expect(lines[2].contains("everything, newest first · 1-\(s.log.total) of \(s.log.total)"))
        #expect(lines[3] == "│ 20:27:00.000  Demo HRM disconnected: connection timed out" + String(repeating: " ", count: 20) + "│")
        #expect(lines[22] == LogPanel.hints)
        // Keys are the panel's while it is shown: e filters, Esc closes.
        _ = Reducer.reduce(&s, Keymap.action(for: .char("e"), in: s)!)
        lines = T.render(s)
        #expect(lines[1].contains(", 2 problems"))
        #expect(lines[3].contains("Demo HRM disconnected") && lines[4].contains("Write Body Sensor Location failed"))
        #expect(Keymap.action(for: .char("r"), in: s) == nil)
        _ = Reducer.reduce(&s, Keymap.action(for: .escape, in: s)!)
        #expect(!s.log.shown && s.route == .device(T.hrm))   // kept after the link loss
    }

    @Test func aLongLogScrollsAtSixtyBySixteen() {
        var s = T.state()
        _ = Reducer.reduce(&s, .screenResized(width: 60, height: 16))
        for i in 0..<40 { s.log.append("event \(i)", at: T.t0 + Double(i)) }
        _ = Reducer.reduce(&s, .logToggled)
        _ = Reducer.reduce(&s, .logScrolled(by: 1_000_000))
        let visible = EventLog.visibleRows(height: 16)
        #expect(s.log.top == 40 - visible)
        let lines = Router.render(s, width: 60, height: 16).lines()
        #expect(lines[2].contains("\(40 - visible + 1)-40 of 40"))
        #expect(lines[3].contains("event \(40 - (40 - visible) - 1)") && lines[2 + visible].contains("event 0"))
        #expect(lines[2 + visible].hasSuffix("█│"))
        #expect(lines[15].hasSuffix("? help"))
        _ = ASCIIScreenTests.both(s, 60, 16)
    }

    /// A device's text in the log is shown, not run.
    @Test func hostileTextIsHarmless() {
        var log = EventLog()
        log.append("Evil\u{1B}[2J", at: T.t0)
        #expect(!log.entries[0].text.unicodeScalars.contains { $0.value == 0x1B })
        for i in 0..<(EventLog.capacity + 10) { log.append("\(i)", at: T.t0) }
        #expect(log.entries.count <= EventLog.capacity && log.total == EventLog.capacity + 11)
    }
}
