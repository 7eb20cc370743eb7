import Testing
@testable import Explorer

/// `scan` without `--duration`: a line per device heard, changed or gone, until stopped.
@Suite("Live scan")
struct LiveScanTests {
    static func live() -> AppState {
        var s = AppState(now: Fixture.t0)
        s.job = JobState(job: .scan(duration: nil))
        return s
    }

    static func events(_ effects: [Effect]) -> [LiveScan.Event] {
        effects.compactMap { if case let .output(.scanEvent(e)) = $0 { return e }; return nil }
    }

    @Test func newChangedUnchangedAndGone() {
        var s = Self.live()
        #expect(Reducer.reduce(&s, .appStarted(recordTo: nil)) == [.backend(.startScan)])   // no timer: until stopped
        var e = Self.events(Fixture.apply(&s, Fixture.report(Fixture.hrm, name: "Demo HRM", rssi: -50)))
        #expect(e.map(\.kind) == [.new] && e[0].peripheral.name == "Demo HRM")
        e = Self.events(Fixture.apply(&s, Fixture.report(Fixture.hrm, name: "Demo HRM", rssi: -50), after: 0.5))
        #expect(e.isEmpty)   // nothing new
        e = Self.events(Fixture.apply(&s, Fixture.report(Fixture.hrm, name: nil, rssi: -57), after: 0.5))
        #expect(e.map(\.kind) == [.change] && e[0].changed == ["rssi"] && e[0].peripheral.rssi == -57)
        e = Self.events(Fixture.apply(&s, Fixture.report(Fixture.hrm, name: "HRM 2", rssi: -57,
                                                         adv: Advertisement(serviceUUIDs: ["180D"])), after: 0.5))
        #expect(e.first?.changed == ["name", "advertisement"])
        // A batch: each device once, in order.
        e = Self.events(Fixture.apply(&s, .advertisementsReceived([
            AdvertisementReport(id: Fixture.itag, address: Fixture.itag.rawValue, name: "Demo iTag", rssi: -60, connectable: true,
                                advertisement: Advertisement()),
            AdvertisementReport(id: Fixture.hrm, address: Fixture.hrm.rawValue, name: nil, rssi: -52, connectable: nil,
                                advertisement: Advertisement()),
        ]), after: 0.5))
        #expect(e.map(\.kind) == [.new, .change] && e.map(\.peripheral.id) == [Fixture.itag, Fixture.hrm])
        // bluetoothd forgets the iTag; the HRM ages out after a minute unheard.
        e = Self.events(Fixture.apply(&s, .peripheralRemoved(Fixture.itag), after: 1))
        #expect(e.map(\.kind) == [.gone] && e[0].peripheral.name == "Demo iTag" && e[0].peripheral.rssi == -60)
        e = Self.events(Reducer.reduce(&s, .tick(s.now + 61)))
        #expect(e.map(\.kind) == [.gone] && e[0].peripheral.id == Fixture.hrm && e[0].peripheral.lastSeen == Fixture.t0 + 2)
        e = Self.events(Reducer.reduce(&s, .tick(s.now + 1)))
        #expect(e.isEmpty)
        // Stopped by a signal: it ran until stopped, so that is success.
        #expect(Reducer.reduce(&s, .interrupted(signal: 2)) == [.cancelTimer(.find), .cancelTimer(.connect), .cancelTimer(.operation),
                                                     .cancelTimer(.reconnect), .finish(exitCode: 0)])
    }

    @Test func aTimedScanPrintsOnceAtTheEnd() {
        var s = AppState(now: Fixture.t0)
        s.job = JobState(job: .scan(duration: 2))
        #expect(Reducer.reduce(&s, .appStarted(recordTo: nil)) == [.backend(.startScan), .startTimer(.duration, after: 2)])
        #expect(Self.events(Fixture.apply(&s, Fixture.report(Fixture.hrm, name: "Demo HRM", rssi: -50))).isEmpty)
        #expect(Reducer.reduce(&s, .interrupted(signal: 2)).last == .finish(exitCode: 130))
    }

    @Test func linesAsTextAndJSON() {
        var p = Peripheral(id: Fixture.itag, address: Fixture.itag.rawValue, name: "Evil\u{1B}[2J", rssi: -58, seen: Fixture.t0,
                           connectable: true, advertisement: Advertisement())
        p.lastSeen = Fixture.t0 + 1
        let change = LiveScan.Event(kind: .change, at: Fixture.t0 + 1, peripheral: p, changed: ["rssi"])
        let text = CommandPrinter(json: false).lines(.scanEvent(change), now: Fixture.t0)
        #expect(text.map(\.text) == ["20:26:41.000  CHG  FC:58:FA:1A:2B:3C  -58 dBm  Evil␛[2J"])
        let json = CommandPrinter(json: true).lines(.scanEvent(change), now: Fixture.t0)
        #expect(json.count == 1 && json[0].stream == .stdout)
        #expect(json[0].text.hasPrefix(#"{"t":"2026-05-28T20:26:41.000Z","event":"change","changed":["rssi"],"address":"FC:58:FA:1A:2B:3C","name":"Evil\u001b[2J","rssi":-58,"#))
        let new = LiveScan.Event(kind: .new, at: Fixture.t0, peripheral: p, changed: [])
        #expect(CommandPrinter(json: true).lines(.scanEvent(new), now: Fixture.t0)[0].text.hasPrefix(#"{"t":"2026-05-28T20:26:40.000Z","event":"new","address""#))
        #expect(CommandPrinter(json: false).lines(.scanEvent(LiveScan.Event(kind: .gone, at: Fixture.t0, peripheral: p, changed: [])),
                                                  now: Fixture.t0)[0].text.contains("  DEL  FC:58:FA:1A:2B:3C"))
    }
}
