import Testing
@testable import Explorer

/// `notify A UUID B UUID`: each device a job of its own, run together.
@Suite("Commands on several devices at once")
struct JobPartsTests {

    static func both(count: Int? = 2) -> AppState {
        var s = AppState(now: Fixture.t0)
        s.adapter = AdapterStatus(name: "sim0", power: .on, discovering: true)
        s.job = JobState(job: .notifying([(Fixture.hrm.rawValue, "2A37" as BLEUUID), (Fixture.itag.rawValue, "FFE1" as BLEUUID)],
                                         count: count, duration: nil, until: nil))
        return s
    }

    @Test func oneDeviceIsThePlainJob() {
        #expect(Job.notifying([("AA:BB:CC:DD:EE:FF", "2A37" as BLEUUID)], count: nil, duration: nil, until: nil)
                == .notify(address: "AA:BB:CC:DD:EE:FF", uuid: "2A37", count: nil, duration: nil, until: nil))
    }

    @Test func eachDeviceIsFoundConnectedAndSubscribedOnItsOwn() {
        var s = Self.both()
        // Two find timers, told apart; one scan.
        #expect(Reducer.reduce(&s, .appStarted(recordTo: nil))
                == [.backend(.startScan), .startTimer(.part(0, .find), after: 20), .startTimer(.part(1, .find), after: 20)])
        // The HRM heard: connected; the scan goes on for the iTag.
        let first = Fixture.apply(&s, Fixture.report(Fixture.hrm, name: "Demo HRM", rssi: -50))
        #expect(first == [.cancelTimer(.part(0, .find)), .backend(.connect(Fixture.hrm)), .startTimer(.part(0, .connect), after: 45)])
        #expect(s.scanWanted)
        // The iTag heard: connected too, and now the scan stops.
        let second = Fixture.apply(&s, Fixture.report(Fixture.itag, name: "Demo iTag", rssi: -60))
        #expect(second.contains(.backend(.connect(Fixture.itag))) && second.last == .backend(.stopScan))
        Fixture.apply(&s, .connected(Fixture.hrm))
        let hrmReady = Fixture.apply(&s, .servicesResolved(Fixture.hrm, Fixture.hrmServices, mtu: 247))
        #expect(hrmReady.contains(.backend(.setNotify(Fixture.hrm, Fixture.hrmChar, true))))
        Fixture.apply(&s, .connected(Fixture.itag))
        let itagReady = Fixture.apply(&s, .servicesResolved(Fixture.itag, Fixture.itagServices, mtu: 23))
        #expect(itagReady.contains(.backend(.setNotify(Fixture.itag, Fixture.itagChar, true))))
        #expect(Fixture.apply(&s, .notifyChanged(Fixture.hrmChar, enabled: true, nil)) == [.cancelTimer(.part(0, .operation))])
        Fixture.apply(&s, .notifyChanged(Fixture.itagChar, enabled: true, nil))
        // Each value names its device.
        let value = Fixture.apply(&s, .valueNotified(Fixture.itagChar, [1]))
        guard case let .output(.value(v))? = value.first else { Issue.record("no value: \(value)"); return }
        #expect(v.address == Fixture.itag.rawValue && v.named)
        #expect(CommandPrinter(json: false).lines(.value(v), now: Fixture.t0).first?.text.hasPrefix("FC:58:FA:1A:2B:3C FFE1  01") == true)
        // The iTag has its two values and leaves; the HRM goes on; the command ends with both.
        let left = Fixture.apply(&s, .valueNotified(Fixture.itagChar, [1]))
        #expect(left.contains(.backend(.disconnect(Fixture.itag))) && !left.contains { if case .finish = $0 { return true }; return false })
        Fixture.apply(&s, .disconnected(Fixture.itag, .local))
        #expect(s.job?.parts[1].exitCode == 0 && s.job?.exitCode == nil)
        Fixture.apply(&s, .valueNotified(Fixture.hrmChar, [0, 70]))
        Fixture.apply(&s, .valueNotified(Fixture.hrmChar, [0, 71]))
        #expect(Fixture.apply(&s, .disconnected(Fixture.hrm, .local)) == [.finish(exitCode: 0)])
        #expect(s.job?.exitCode == 0)
    }

    /// A timer reaches only its own job; one device never found fails the command, after
    /// the other has done its work.
    @Test func oneDeviceNotFoundFailsTheCommand() {
        var s = Self.both(count: 1)
        _ = Reducer.reduce(&s, .appStarted(recordTo: nil))
        Fixture.apply(&s, Fixture.report(Fixture.hrm, name: "Demo HRM", rssi: -50))
        let failed = Reducer.reduce(&s, .jobTimerFired(.part(1, .find)))
        #expect(failed.contains(.output(.failure("no device FC:58:FA:1A:2B:3C found in 20 s of scanning"))))
        #expect(failed.last == .backend(.stopScan))
        #expect(s.job?.parts[0].phase == .connecting && s.job?.parts[1].exitCode == 1)
        Fixture.apply(&s, .connected(Fixture.hrm))
        Fixture.apply(&s, .servicesResolved(Fixture.hrm, Fixture.hrmServices, mtu: 247))
        Fixture.apply(&s, .notifyChanged(Fixture.hrmChar, enabled: true, nil))
        Fixture.apply(&s, .valueNotified(Fixture.hrmChar, [0, 70]))
        #expect(Fixture.apply(&s, .disconnected(Fixture.hrm, .local)) == [.finish(exitCode: 1)])
    }

    /// Ctrl-C: every device is left, and an open-ended notify ends as asked (0).
    @Test func anInterruptLeavesEveryDevice() {
        var s = Self.both(count: nil)
        _ = Reducer.reduce(&s, .appStarted(recordTo: nil))
        Fixture.apply(&s, Fixture.report(Fixture.hrm, name: "Demo HRM", rssi: -50))
        Fixture.apply(&s, Fixture.report(Fixture.itag, name: "Demo iTag", rssi: -60))
        Fixture.apply(&s, .connected(Fixture.hrm))
        let out = Reducer.reduce(&s, .interrupted(signal: 2))
        #expect(out.contains(.backend(.disconnect(Fixture.hrm))) && out.contains(.backend(.disconnect(Fixture.itag))))
        Fixture.apply(&s, .disconnected(Fixture.hrm, .local))
        #expect(s.job?.parts[0].exitCode == 0 && s.job?.exitCode == nil)   // the iTag's disconnect has not come
        #expect(Reducer.reduce(&s, .jobTimerFired(.part(1, .linger))) == [.finish(exitCode: 0)])
    }
}
