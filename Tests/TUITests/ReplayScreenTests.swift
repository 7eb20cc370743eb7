import Testing
@testable import Explorer
@testable import TUI

/// A replay is every screen as usual, with where the replay is on the status bar.
@Suite("Replay on screen")
struct ReplayScreenTests {
    @Test func statusBarShowsTheReplay() {
        var s = ScreenTests.state()
        s.replay = ReplayStatus(start: ScreenTests.t0, end: ScreenTests.t0 + 75, position: ScreenTests.t0 + 12,
                                speed: .ten, paused: false, finished: false, skipped: 0)
        var lines = ScreenTests.render(s)
        #expect(lines[23].hasPrefix(" replay ▶ 10x 0:12/1:15 · sim0 on · scanning · 4 devices"))
        #expect(lines[23].hasSuffix("? help"))
        s.replay?.paused = true
        s.replay?.skipped = 2
        lines = ScreenTests.render(s)
        // Too long for 80 columns: the rest gives way to the device count and "? help".
        #expect(lines[23].hasPrefix(" replay ❚❚ 10x 0:12/1:15 paused (2 bad lines skipped) · s"))
        #expect(lines[23].hasSuffix("… · 4 devices  ? help"))
    }

    /// A replay's hint lines offer its own keys, and not what the past refuses (scan,
    /// connect, disconnect, read, write, notify).
    @Test func hintsOfferTheReplaysKeys() {
        var s = ScreenTests.state()
        s.replay = ReplayStatus(start: ScreenTests.t0, end: ScreenTests.t0 + 75, position: ScreenTests.t0 + 12,
                                speed: .one, paused: false, finished: false, skipped: 0)
        s.alert = nil
        #expect(ScreenTests.render(s)[22] == "Enter open · / filter · o sort · p pause · x speed · [ ] seek · ? help · q quit")
        var c = ScreenTests.connected()
        c.replay = s.replay
        c.alert = nil
        #expect(ScreenTests.render(c)[22] == "Enter open · Tab fold · p pause · x speed · [ ] seek · Esc back · ? help")
        c.route = .characteristic(ScreenTests.hrm, ScreenTests.hrmChar)
        #expect(ScreenTests.render(c)[22] == "f format · m messages · a hook · p pause · x speed · [ ] seek · Esc back")
        c.replay = nil
        #expect(ScreenTests.render(c)[22] == "n notify · f format · m messages · a hook · Esc back")
    }

    @Test func helpListsTheReplayKeysAndFits80x24() {
        var s = ScreenTests.state()
        s.showHelp = true
        let lines = ScreenTests.render(s)
        #expect(lines.count == 24)
        #expect(lines.contains { $0.contains("p x [ ] { }") && $0.contains("replay: pause, speed 1x/10x/max") })
        #expect(lines.contains { $0.contains("q Ctrl-C") })   // the last row still shows
    }
}
