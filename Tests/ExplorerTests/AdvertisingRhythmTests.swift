import Testing
@testable import Explorer

/// How often a device's reports come, and the same beacon under rotating addresses.
@Suite("Advertising rhythm")
struct AdvertisingRhythmTests {
    static func report(_ address: String, rssi: Int = -60, _ adv: Advertisement = Advertisement()) -> AdvertisementReport {
        AdvertisementReport(id: PeripheralID(address), address: address, name: nil, rssi: rssi, connectable: false, advertisement: adv)
    }

    static func heard(_ s: inout AppState, _ r: AdvertisementReport, at t: Double) {
        _ = Reducer.reduce(&s, .backend(.advertisementReceived(r), at: Timestamp(t)))
    }

    /// Reports 100 ms apart with one lost to a busy radio: the median stays at 100 ms and the
    /// spread small; the first report alone gives no interval.
    @Test func theMedianIntervalIgnoresALostReport() throws {
        var s = AppState(now: Timestamp(0))
        Self.heard(&s, Self.report("AA:00:00:00:00:01"), at: 10)
        #expect(s.peripherals[PeripheralID("AA:00:00:00:00:01")]?.rhythm.interval == nil)
        for t in [10.1, 10.2, 10.3, 10.5, 10.6, 10.7] { Self.heard(&s, Self.report("AA:00:00:00:00:01"), at: t) }
        let r = try #require(s.peripherals[PeripheralID("AA:00:00:00:00:01")]?.rhythm)
        #expect(r.reports == 7)
        #expect(abs(r.interval! - 0.1) < 1e-6)
        #expect(r.jitter! < 1e-6)
        #expect(abs(r.perSecond! - 10) < 1e-3)
    }

    /// The ring keeps the last 16 intervals: an old rhythm is forgotten.
    @Test func onlyTheRecentIntervalsCount() {
        var r = AdvertisingRhythm()
        r.heard(after: nil)
        for _ in 0..<20 { r.heard(after: 1.0) }
        for _ in 0..<16 { r.heard(after: 0.25) }
        #expect(r.reports == 37)
        #expect(r.intervals.count == AdvertisingRhythm.window)
        #expect(r.interval == 0.25)
    }

    /// Sorting by interval puts the most frequent first and those heard once last.
    @Test func theListSortsByInterval() {
        var s = AppState(now: Timestamp(0))
        for (address, gap) in [("AA:00:00:00:00:01", 1.0), ("AA:00:00:00:00:02", 0.1), ("AA:00:00:00:00:03", 0.5)] {
            Self.heard(&s, Self.report(address), at: 0)
            Self.heard(&s, Self.report(address), at: gap)
        }
        Self.heard(&s, Self.report("AA:00:00:00:00:04"), at: 0)
        s.scan.sort = .interval
        #expect(ScanQuery.ids(s).map(\.rawValue) == ["AA:00:00:00:00:02", "AA:00:00:00:00:03", "AA:00:00:00:00:01", "AA:00:00:00:00:04"])
    }

    /// A beacon that rotates its random address is one emitter: the same iBeacon under two
    /// addresses is found from either; a different minor is another beacon.
    @Test func theSameBeaconUnderAnotherAddressIsOneEmitter() {
        func ibeacon(minor: UInt8) -> Advertisement {
            Advertisement(manufacturerData: [0x004C: [0x02, 0x15] + Array(repeating: 0xAB, count: 16) + [0x00, 0x01, 0x00, minor, 0xC5]])
        }
        var s = AppState(now: Timestamp(0))
        Self.heard(&s, Self.report("7A:00:00:00:00:01", ibeacon(minor: 42)), at: 0)
        Self.heard(&s, Self.report("7A:00:00:00:00:02", ibeacon(minor: 42)), at: 900)
        Self.heard(&s, Self.report("7A:00:00:00:00:03", ibeacon(minor: 43)), at: 901)
        Self.heard(&s, Self.report("7A:00:00:00:00:04"), at: 902)
        #expect(s.sameEmitter(as: PeripheralID("7A:00:00:00:00:01")).map(\.address) == ["7A:00:00:00:00:02"])
        #expect(s.sameEmitter(as: PeripheralID("7A:00:00:00:00:02")).map(\.address) == ["7A:00:00:00:00:01"])
        #expect(s.sameEmitter(as: PeripheralID("7A:00:00:00:00:03")).isEmpty)
        #expect(s.sameEmitter(as: PeripheralID("7A:00:00:00:00:04")).isEmpty)
        let printed = CommandPrinter(json: true).lines(.devices(s.peripherals.values.sorted { $0.address < $1.address }), now: s.now)
        #expect(printed[0].text.contains(#""sameEmitter":["7A:00:00:00:00:02"]"#))
        #expect(!printed[2].text.contains("sameEmitter"))
    }
}

/// The advertisement as AD structures again (the details panel's raw view): parsing them
/// back gives the same advertisement, for every width of UUID.
@Suite("Raw AD structures from properties")
struct RawStructuresTests {
    @Test func structuresRoundTripThroughTheParser() {
        let adv = Advertisement(localName: "Demo Climate", serviceUUIDs: ["180F", "FE95A1B2", "6E400001-B5A3-F393-E0A9-E50E24DCCA9E"],
                                manufacturerData: [0x004C: [0x02, 0x15, 0x01], 0x0499: [0x05]],
                                serviceData: ["FCD2": [0x40, 0x00, 0x09], "00001234-0000-1000-8000-00805F9B34FB": [0x01]],
                                txPower: -4, flags: 0x06, appearance: 0x0341)
        let structures = AdvertisingData.structures(of: adv)
        #expect(structures.map(\.type) == [0x01, 0x09, 0x03, 0x05, 0x07, 0x0A, 0x19, 0x16, 0x16, 0xFF, 0xFF])
        #expect(structures.first { $0.type == 0x03 }?.data == [0x0F, 0x18])
        #expect(structures.first { $0.type == 0xFF }?.data == [0x4C, 0x00, 0x02, 0x15, 0x01])
        let bytes = structures.flatMap { [UInt8($0.data.count + 1), $0.type] + $0.data }
        let parsed = AdvertisingData.parse(bytes)
        #expect(parsed.malformed == nil)
        #expect(parsed.advertisement == adv)
    }
}
