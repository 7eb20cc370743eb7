import Testing
@testable import Explorer

@Suite("Simulated world")
struct SimulationTests {
    /// Runs the world to `t`, applying its events to a state.
    static func run(_ w: SimulatedWorld, _ s: inout AppState, to t: Double) -> [BackendEvent] {
        let events = w.advance(to: t)
        for (at, e) in events { _ = Reducer.reduce(&s, .backend(e, at: Fixture.t0 + at)) }
        return events.map(\.1)
    }

    @Test func sameSeedSameWorld() {
        let a = SimulatedWorld(seed: 42), b = SimulatedWorld(seed: 42)
        a.handle(.startScan, at: 0); b.handle(.startScan, at: 0)
        let ea = a.advance(to: 5), eb = b.advance(to: 5)
        #expect(ea.count > 20)
        #expect(ea.map(\.1) == eb.map(\.1))
        #expect(ea.map(\.0) == eb.map(\.0))
        let c = SimulatedWorld(seed: 43)
        c.handle(.startScan, at: 0)
        #expect(c.advance(to: 5).map(\.1) != ea.map(\.1))
    }

    @Test func worldHasTheDemoCast() {
        let w = SimulatedWorld(seed: 1)
        var s = AppState(now: Fixture.t0)
        w.handle(.startScan, at: 0)
        _ = Self.run(w, &s, to: 5)
        let names = Set(s.peripherals.values.compactMap(\.name))
        for n in ["Demo iTag", "Demo HRM", "Demo Thermo", "Demo Stream", "Demo Flaky", "Demo Bike"] { #expect(names.contains(n)) }
        #expect(names.contains(DemoCatalog.evilName))
        let beacons = s.peripherals.values.compactMap(\.advertisement.beacon)
        #expect(beacons.contains { if case .iBeacon = $0 { return true }; return false })
        #expect(beacons.contains(.eddystoneURL(url: "https://example.com", txPower: -21)))
        #expect(beacons.contains { if case .altBeacon(0x0118, DemoCatalog.altBeaconID, 7, 12, -60, 0) = $0 { return true }; return false })
        #expect(beacons.contains { if case .eddystoneEID(_, -16) = $0 { return true }; return false })
        #expect(s.peripherals.values.filter { !$0.connectable }.count >= 2)
    }

    /// The bike: descriptors read on connect, its vendor value shown by its 0x2904, CSC and
    /// Temperature Measurement notifications that stay decodable as they change.
    @Test func demoBikeDecodesEverything() {
        let w = SimulatedWorld(seed: 5)
        var s = AppState(now: Fixture.t0)
        let bike = PeripheralID("C8:2B:96:0E:51:3A")
        func feed(_ effects: [Effect], at t: Double) {
            for e in effects { if case let .backend(c) = e { w.handle(c, at: t) } }
        }
        func run(to t: Double) {
            // Effects go back to the world at the time of the event that caused them.
            for (at, e) in w.advance(to: t) { feed(Reducer.reduce(&s, .backend(e, at: Fixture.t0 + at)), at: at) }
        }
        w.handle(.startScan, at: 0)
        run(to: 2)
        s.scan.cursor = bike
        feed(Reducer.reduce(&s, .rowActivated), at: 2)
        run(to: 5)
        run(to: 5.5)   // the descriptor reads the resolved services asked for
        let chars = s.peripherals[bike]!.services!.flatMap(\.characteristics)
        let vendor = chars.first { $0.uuid == DemoCatalog.bikeVendorCharacteristic }!
        #expect(s.presentationFormat(vendor) == PresentationFormat(DemoCatalog.celsiusFormat))
        #expect(s.userDescription(vendor) == "Motor temperature")
        #expect(s.decoded(vendor, [0x29, 0x09]) == "23.45 °C")
        for uuid: BLEUUID in ["2A5B", "2A1C", DemoCatalog.bikeVendorCharacteristic] {
            w.handle(.setNotify(bike, chars.first { $0.uuid == uuid }!.id, true), at: 5)
        }
        run(to: 12)
        for uuid: BLEUUID in ["2A5B", "2A1C", DemoCatalog.bikeVendorCharacteristic] {
            let c = chars.first { $0.uuid == uuid }!
            let history = s.values[c.id]?.history ?? []
            #expect(history.count >= 2, "\(uuid)")
            for v in history { #expect(!(s.decoded(c, v.bytes) ?? "malformed").contains("malformed"), "\(uuid) \(hex(v.bytes))") }
        }
        let csc = chars.first { $0.uuid == "2A5B" }!
        #expect(s.decoded(csc, s.values[csc.id]!.latest!.bytes)!.hasPrefix("wheel 10"))
    }

    @Test func noAdvertisementsWhileScanIsOff() {
        let w = SimulatedWorld(seed: 1)
        let events = w.advance(to: 3)
        #expect(!events.contains { if case .advertisementReceived = $0.1 { return true }; return false })
    }

    @Test func connectResolveReadWriteNotify() {
        let w = SimulatedWorld(seed: 3)
        var s = AppState(now: Fixture.t0)
        w.handle(.startScan, at: 0)
        _ = Self.run(w, &s, to: 2)
        s.scan.cursor = Fixture.hrm
        for e in Reducer.reduce(&s, .rowActivated) { if case let .backend(c) = e { w.handle(c, at: 2) } }
        _ = Self.run(w, &s, to: 5)
        #expect(s.route == .device(Fixture.hrm))
        let p = s.peripherals[Fixture.hrm]!
        let chars = p.services!.flatMap(\.characteristics)
        let hrm = chars.first { $0.uuid == "2A37" }!
        let control = chars.first { $0.uuid == "2A39" }!
        // Reading a notify-only characteristic fails as BlueZ does.
        w.handle(.read(Fixture.hrm, hrm.id), at: 5)
        var events = Self.run(w, &s, to: 5.2)
        #expect(events.contains(.readCompleted(hrm.id, .failure(.notPermitted("Read not permitted")))))
        // Writes change what the device holds; a bad control point value is refused.
        w.handle(.write(Fixture.hrm, control.id, [0x02], .request), at: 5.2)
        events = Self.run(w, &s, to: 5.4)
        #expect(events.contains { if case .writeCompleted(_, _, _, .some) = $0 { return true }; return false })
        w.handle(.setNotify(Fixture.hrm, hrm.id, true), at: 5.4)
        events = Self.run(w, &s, to: 9)
        #expect(s.subscriptions.contains(hrm.id))
        // The failed read is history too (first), then the values notified.
        let log = s.values[hrm.id]!
        #expect(log.history.first?.error == "NotPermitted: Read not permitted" && log.failures == 1)
        let values = log.history.filter { $0.error == nil }.map(\.bytes)
        #expect(values.count >= 3)
        for v in values { #expect(ValueDecoder.decode("2A37", v)?.contains(" bpm") == true) }
        for e in Reducer.reduce(&s, .disconnectRequested) { if case let .backend(c) = e { w.handle(c, at: 9) } }
        _ = Self.run(w, &s, to: 10)
        #expect(s.route == .scan)   // asked for (d): back to the list
        #expect(s.peripherals[Fixture.hrm]?.connection == .disconnected)
    }

    @Test func flakyRetriesThenDrops() {
        let w = SimulatedWorld(seed: 5)
        var s = AppState(now: Fixture.t0)
        let flaky = PeripheralID("D0:0D:F1:A4:11:07")
        w.handle(.startScan, at: 0)
        _ = Self.run(w, &s, to: 2)
        s.scan.cursor = flaky
        for e in Reducer.reduce(&s, .rowActivated) { if case let .backend(c) = e { w.handle(c, at: 2) } }
        let events = Self.run(w, &s, to: 20)
        #expect(events.contains(.connecting(flaky, attempt: 2)))
        #expect(events.contains(.disconnected(flaky, .timeout)))
        // Lost, not asked for: the device screen stays, marked, and Enter connects again.
        #expect(s.route == .device(flaky))
        #expect(s.linkLoss[flaky]?.reason == "connection timed out")
        #expect(s.alert?.message == "Demo Flaky disconnected: connection timed out")
    }

    @Test func streamSendsTwentyByteChunksThenEOM() {
        let w = SimulatedWorld(seed: 9)
        var s = AppState(now: Fixture.t0)
        let stream = PeripheralID("5C:F3:70:8A:00:42")
        w.handle(.startScan, at: 0)
        _ = Self.run(w, &s, to: 2)
        w.handle(.connect(stream), at: 2)
        _ = Self.run(w, &s, to: 5)
        let c = s.peripherals[stream]!.services![0].characteristics[0]
        w.handle(.setNotify(stream, c.id, true), at: 5)
        let events = Self.run(w, &s, to: 12)
        let chunks = events.compactMap { e -> Bytes? in if case let .valueNotified(_, b) = e { return b }; return nil }
        let eom = chunks.firstIndex(of: Array("EOM".utf8))!
        #expect(chunks[..<eom].allSatisfy { $0.count <= 20 })
        #expect(String(decoding: chunks[..<eom].joined(), as: UTF8.self) == DemoCatalog.streamText)
        #expect(DemoCatalog.streamText.utf8.count > 2000)
    }

    @Test func buttonPressOnDemand() {
        let w = SimulatedWorld(seed: 2)
        var s = AppState(now: Fixture.t0)
        w.handle(.startScan, at: 0)
        _ = Self.run(w, &s, to: 1)
        w.handle(.connect(Fixture.itag), at: 1)
        _ = Self.run(w, &s, to: 3)
        let button = s.peripherals[Fixture.itag]!.services![0].characteristics[0]
        let ud = button.descriptors.first { $0.uuid == "2901" }!
        w.handle(.readDescriptor(Fixture.itag, ud.id), at: 3)
        _ = Self.run(w, &s, to: 3.1)
        #expect(s.userDescription(button) == "Button")
        w.handle(.setNotify(Fixture.itag, button.id, true), at: 3.1)
        _ = Self.run(w, &s, to: 3.2)
        w.pressButton(at: 3.25)
        let events = Self.run(w, &s, to: 3.3).filter { if case .valueNotified = $0 { return true }; return false }
        #expect(events == [.valueNotified(button.id, [0x01])])
    }
}
