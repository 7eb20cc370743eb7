import Testing
@testable import Explorer

@Suite struct RegionTests {
    static let home: BLEUUID = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"
    let t0 = Fixture.t0

    func state(_ regions: [Region] = [Region(name: "Home", uuid: home)], exitAfter: Double = 10) -> RegionWatch {
        RegionWatch(regions: regions, config: RegionConfig(enterRSSI: -75, exitRSSI: -85, exitAfter: exitAfter))
    }

    @Test func regionSpecsParse() throws {
        let r = try Region.parse("Home=b9407f30-f5f8-466e-aff9-25556b57fe6d:7:1").get()
        #expect(r.name == "Home" && r.uuid == Self.home && r.major == 7 && r.minor == 1)
        #expect(try Region.parse("Office=B9407F30-F5F8-466E-AFF9-25556B57FE6D").get().major == nil)
        for bad in ["Home", "=B9407F30-F5F8-466E-AFF9-25556B57FE6D", "Home=180D", "Home=B9407F30-F5F8-466E-AFF9-25556B57FE6D:x",
                    "Home=B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:2:3", "Ho\u{1B}me=B9407F30-F5F8-466E-AFF9-25556B57FE6D",
                    "Home=B9407F30-F5F8-466E-AFF9-25556B57FE6D:70000"] {
            #expect(throws: HookSpecError.self) { try Region.parse(bad).get() }
        }
    }

    /// The edge of a region: RSSI swinging across the enter threshold, with gaps. A
    /// detector with one threshold and no delay would enter and leave many times.
    @Test func aBeaconHoveringAtTheEdgeEntersOnceAndLeavesOnce() {
        var p = state()
        var transitions: [RegionTransition] = []
        var naiveFlips = 0, naiveInside = false
        var t = 0.0
        // Walk in, hover for 60 s between -83 and -70 with 3 s gaps, walk out, silence.
        let hover = [-72, -80, -70, -83, -76, -74, -82, -71, -79, -84]
        for rssi in [-95, -90, -85, -80, -76] + Array(repeating: hover, count: 6).flatMap({ $0 }) + [-88, -92, -99] {
            t += rssi == -80 || rssi == -84 ? 3 : 1
            transitions += p.observe(address: "AA:00:00:00:00:01", uuid: Self.home, major: 1, minor: 1, rssi: rssi, at: t0 + t)
            transitions += p.tick(t0 + t)
            if (rssi >= -75) != naiveInside { naiveInside.toggle(); naiveFlips += 1 }
        }
        for _ in 0..<15 { t += 1; transitions += p.tick(t0 + t) }
        #expect(transitions.map(\.kind) == [.enter, .exit])
        #expect(naiveFlips > 10)
        #expect(p.log == transitions)
        #expect(transitions[1].at - transitions[0].at > 60)
    }

    @Test func anyBeaconOfTheRegionHoldsIt() {
        var p = state(exitAfter: 5)
        _ = p.observe(address: "AA:00:00:00:00:01", uuid: Self.home, major: 1, minor: 1, rssi: -60, at: t0)
        #expect(p.regions[0].inside)
        // The first beacon goes silent; a second one, in another room, is heard weakly but above exit.
        for i in 1...20 {
            _ = p.observe(address: "AA:00:00:00:00:02", uuid: Self.home, major: 1, minor: 2, rssi: -84, at: t0 + Double(i))
            #expect(p.tick(t0 + Double(i)).isEmpty)
        }
        #expect(p.regions[0].inside)
        #expect(p.regions[0].beacons.count == 2)
        #expect(p.tick(t0 + 26).map(\.kind) == [.exit])
    }

    @Test func majorAndMinorNarrowTheRegion() {
        var p = state([Region(name: "Kitchen", uuid: Self.home, major: 2), Region(name: "Desk", uuid: Self.home, major: 2, minor: 9)])
        let e = p.observe(address: "AA:00:00:00:00:01", uuid: Self.home, major: 2, minor: 3, rssi: -50, at: t0)
        #expect(e.map(\.region) == ["Kitchen"])
        #expect(p.observe(address: "AA:00:00:00:00:01", uuid: Self.home, major: 3, minor: 9, rssi: -50, at: t0).isEmpty)
        #expect(p.observe(address: "AA:00:00:00:00:02", uuid: Self.home, major: 2, minor: 9, rssi: -50, at: t0).map(\.region) == ["Desk"])
    }

    @Test func theReducerTurnsBeaconAdvertsAndTicksIntoRegionEffects() {
        var s = AppState(now: t0)
        s.regionWatch = state([Region(name: "Porch", uuid: Self.home, major: 7)], exitAfter: 3)
        let beacon: Bytes = [0x02, 0x15] + DemoCatalog.uuidBytes(Self.home) + [0x00, 0x07, 0x00, 0x01, 0xC5]
        let adv = Advertisement(manufacturerData: [0x004C: beacon])
        let id = PeripheralID("7C:9E:BD:4F:10:77")
        let effects = Fixture.apply(&s, Fixture.report(id, name: nil, rssi: -60, connectable: false, adv: adv), after: 1)
        guard case let .regionChanged(t)? = effects.first else { Issue.record("no region effect: \(effects)"); return }
        #expect(t.kind == .enter && t.region == "Porch" && t.beacon?.rssi == -60)
        #expect(Reducer.reduce(&s, .tick(t0 + 2)).isEmpty)
        let out = Reducer.reduce(&s, .tick(t0 + 5))
        #expect(out.count == 1)
        if case let .regionChanged(x)? = out.first { #expect(x.kind == .exit) }
        #expect(RecordingFormat.regionLine(t).contains("\"type\":\"region\",\"event\":\"enter\",\"region\":\"Porch\""))
    }

    /// monitor's JSON line and the recording's region line say the same, with and without
    /// the beacon's RSSI.
    @Test func regionLinesInFull() {
        let heard = BeaconSighting(address: "7C:9E:BD:4F:10:77", major: 7, minor: 1, rssi: -60, at: t0)
        var quiet = heard
        quiet.rssi = nil
        let enter = RegionTransition(region: "Porch", kind: .enter, at: t0, beacon: heard)
        let exit = RegionTransition(region: "Porch", kind: .exit, at: t0, beacon: quiet)
        let t = t0.iso8601
        #expect(enter.json == #"{"t":"\#(t)","event":"enter","region":"Porch","address":"7C:9E:BD:4F:10:77","major":7,"minor":1,"rssi":-60}"#)
        #expect(exit.json == #"{"t":"\#(t)","event":"exit","region":"Porch","address":"7C:9E:BD:4F:10:77","major":7,"minor":1}"#)
        #expect(RecordingFormat.regionLine(enter)
                == #"{"t":"\#(t)","type":"region","event":"enter","region":"Porch","address":"7C:9E:BD:4F:10:77","major":7,"minor":1,"rssi":-60}"#)
        #expect(RecordingFormat.regionLine(RegionTransition(region: "Porch", kind: .exit, at: t0, beacon: nil))
                == #"{"t":"\#(t)","type":"region","event":"exit","region":"Porch"}"#)
    }

    /// A controller that gives no RSSI: the beacon is listed, never brings the region in,
    /// and is named once for monitor's warning.
    @Test func aBeaconWithoutRSSIIsListedButNeverEnters() {
        var p = state()
        for i in 0..<3 {
            #expect(p.observe(address: "AA:00:00:00:00:09", uuid: Self.home, major: 1, minor: 1, rssi: nil, at: t0 + Double(i)).isEmpty)
        }
        #expect(!p.regions[0].inside && p.regions[0].beacons.count == 1 && p.regions[0].beacons[0].rssi == nil)
        #expect(p.unmeasured == ["AA:00:00:00:00:09"])
    }

    /// BlueZ leaves an unchanged RSSI out of a report: the last RSSI keeps holding the region.
    @Test func aReportWithoutRSSIKeepsTheLastOne() {
        var s = AppState(now: t0)
        s.regionWatch = state([Region(name: "Porch", uuid: Self.home)], exitAfter: 3)
        let beacon: Bytes = [0x02, 0x15] + DemoCatalog.uuidBytes(Self.home) + [0x00, 0x07, 0x00, 0x01, 0xC5]
        let adv = Advertisement(manufacturerData: [0x004C: beacon])
        let id = PeripheralID("7C:9E:BD:4F:10:77")
        #expect(Fixture.apply(&s, Fixture.report(id, name: nil, rssi: -60, connectable: false, adv: adv), after: 1).count == 1)
        for k in 1...5 {
            _ = Reducer.reduce(&s, .backend(.advertisementReceived(AdvertisementReport(
                id: id, address: id.rawValue, name: nil, rssi: nil, connectable: false, advertisement: adv)), at: t0 + 1 + Double(k)))
            #expect(Reducer.reduce(&s, .tick(t0 + 1.5 + Double(k))).isEmpty, "left at \(k) s")
        }
        #expect(s.regionWatch.regions[0].inside && s.regionWatch.unmeasured.isEmpty)
    }

    /// The demo's porch beacon, run through the world: exactly one enter and one exit per visit.
    @Test func theDemoPorchVisitEntersOnceAndLeavesOnce() {
        let w = SimulatedWorld(seed: 1)
        var s = AppState(now: Timestamp(0))
        s.regionWatch = RegionWatch(regions: DemoCatalog.demoRegions, config: RegionConfig(exitAfter: 3))
        w.handle(.startScan, at: 0)
        var kinds: [RegionTransition.Kind] = []
        var t = 0.0
        while t < 80 {
            t += 0.5
            for (at, e) in w.advance(to: t) {
                for case let .regionChanged(x) in Reducer.reduce(&s, .backend(e, at: Timestamp(at))) { kinds.append(x.kind) }
            }
            for case let .regionChanged(x) in Reducer.reduce(&s, .tick(Timestamp(t))) { kinds.append(x.kind) }
        }
        #expect(kinds == [.enter, .exit, .enter, .exit])
    }
}
