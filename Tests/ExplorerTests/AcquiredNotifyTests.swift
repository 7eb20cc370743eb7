import Testing
@testable import Explorer

/// Notifications through a socket (BlueZ's AcquireNotify): the reducer keeps the socket's
/// MTU while the subscription lasts, the peripheral learns the MTU, and the recording
/// keeps the fact and reads it back.
@Suite("Notifications through AcquireNotify")
struct AcquiredNotifyTests {
    @Test func theSocketsMTUIsKeptWhileTheSubscriptionLasts() {
        var s = Fixture.connectedHRM()
        s.peripherals.update(Fixture.hrm) { $0.mtu = nil }   // BlueZ before 5.62 gives none with the services
        Fixture.apply(&s, .notificationsAcquired(Fixture.hrmChar, mtu: 185))
        Fixture.apply(&s, .notifyChanged(Fixture.hrmChar, enabled: true, nil))
        #expect(s.notifySockets[Fixture.hrmChar] == 185)
        #expect(s.subscriptions.contains(Fixture.hrmChar))
        #expect(s.peripherals[Fixture.hrm]?.mtu == 185)
        Fixture.apply(&s, .notifyChanged(Fixture.hrmChar, enabled: false, nil))
        #expect(s.notifySockets[Fixture.hrmChar] == nil)
    }

    @Test func aDisconnectionLetsTheSocketGo() {
        var s = Fixture.connectedHRM()
        Fixture.apply(&s, .notificationsAcquired(Fixture.hrmChar, mtu: 185))
        Fixture.apply(&s, .notifyChanged(Fixture.hrmChar, enabled: true, nil))
        Fixture.apply(&s, .disconnected(Fixture.hrm, .remote))
        #expect(s.notifySockets.isEmpty)
        #expect(s.peripherals[Fixture.hrm]?.mtu == 247)   // the larger one the link had
    }

    @Test func recordedAndReadBack() throws {
        let s = Fixture.connectedHRM()
        let e = BackendEvent.notificationsAcquired(Fixture.hrmChar, mtu: 185)
        let line = try #require(RecordingFormat.line(for: .backend(e, at: Fixture.t0), state: s))
        #expect(line.contains(#""type":"notify-acquired""#) && line.contains(#""mtu":185"#), "\(line)")
        let header = RecordingFormat.headerLine(.init(started: Fixture.t0, backend: "bluez", adapter: "hci0", seed: nil))
        let r = try Recording.parse(header + "\n" + line + "\n")
        #expect(r.skipped == 0 && r.events.map(\.event) == [e])
        // An MTU no link can have is no fact.
        let odd = line.replacingOccurrences(of: #""mtu":185"#, with: #""mtu":70000"#)
        #expect(try Recording.parse(header + "\n" + odd + "\n").skipped == 1)
    }
}
