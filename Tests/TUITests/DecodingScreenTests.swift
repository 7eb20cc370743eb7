import Testing
@testable import Explorer
@testable import TUI

/// What the decoding work adds to the screens: new beacons in the scan list and on the
/// details panel, and a vendor value read through its Presentation Format.
@Suite("Screens: beacons and presentation formats")
struct DecodingScreenTests {
    static let t0 = ScreenTests.t0
    static let alt = PeripheralID("0E:77:A1:5B:C2:09")
    static let eid = PeripheralID("F1:0C:3E:88:6D:45")

    static func beacons() -> AppState {
        var s = AppState(now: t0)
        s.adapter = AdapterStatus(name: "sim0", power: .on, discovering: true)
        let altData: Bytes = [0xBE, 0xAC] + DemoCatalog.uuidBytes(DemoCatalog.altBeaconID) + [0, 7, 0, 12, 0xC4, 0]
        let eidFrame: Bytes = [0x30, 0xF0, 0x8B, 0x3D, 0x51, 0xE2, 0x07, 0xA4, 0xC9, 0x16]
        for (id, rssi, adv) in [(alt, -60, Advertisement(manufacturerData: [0x0118: altData])),
                                (eid, -70, Advertisement(serviceUUIDs: ["FEAA"], serviceData: ["FEAA": eidFrame]))] {
            _ = Reducer.reduce(&s, .backend(.advertisementReceived(AdvertisementReport(
                id: id, address: id.rawValue, name: nil, rssi: rssi, connectable: false, advertisement: adv)), at: t0))
        }
        s.now = t0 + 1
        return s
    }

    @Test func scanListSummaries() {
        let lines = ScreenTests.render(Self.beacons(), 130, 24)
        #expect(lines[2].contains("AltBeacon 2f234454… 7/12 @1m -60 · non-connectable"))
        #expect(lines[3].contains("Eddystone-EID 8b3d51e207a4c916 · non-connectable"))
    }

    @Test func altBeaconAndEIDInFull() {
        var s = Self.beacons()
        s.scan.cursor = Self.alt
        _ = Reducer.reduce(&s, .rowActivated)
        var lines = ScreenTests.render(s)
        ScreenTests.expectLines(Array(lines[5...7]), [
            " AltBeacon      ID1 2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6",
            "                ID2 7, ID3 12, reference RSSI -60 dBm, about 1.0 m",
            "                by Radius Networks, manufacturer byte 0x00",
        ])
        _ = Reducer.reduce(&s, .backRequested)
        s.scan.cursor = Self.eid
        _ = Reducer.reduce(&s, .rowActivated)
        lines = ScreenTests.render(s)
        #expect(lines.contains(" Eddystone-EID  ephemeral ID 8b3d51e207a4c916, tx -16 dBm at 0 m"))
    }

    @Test func presentationFormatDrivesTheValue() {
        var s = ScreenTests.connected()
        let cid = CharacteristicID("/s/v/c")
        let label = GATTDescriptor(id: AttributeID("/s/v/c/d1"), uuid: "2901")
        let format = GATTDescriptor(id: AttributeID("/s/v/c/d2"), uuid: "2904")
        let vendor = GATTService(id: AttributeID("/s/v"), uuid: DemoCatalog.bikeVendorService, characteristics: [
            GATTCharacteristic(id: cid, uuid: DemoCatalog.bikeVendorCharacteristic, properties: [.read],
                               descriptors: [label, format]),
        ])
        let id = ScreenTests.hrm
        s.peripherals[id]?.services?.append(vendor)
        _ = Reducer.reduce(&s, .backend(.descriptorRead(label.id, .success(Array("Motor temperature".utf8))), at: Self.t0 + 4))
        _ = Reducer.reduce(&s, .backend(.descriptorRead(format.id, .success(DemoCatalog.celsiusFormat)), at: Self.t0 + 4))
        _ = Reducer.reduce(&s, .backend(.readCompleted(cid, .success([0x29, 0x09])), at: Self.t0 + 5))
        s.route = .characteristic(id, cid)
        let lines = ScreenTests.render(s, 120, 24)
        #expect(lines[1].hasPrefix(" “Motor temperature”  B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE"))
        #expect(lines[3] == " Descriptors Characteristic User Description “Motor temperature”")
        #expect(lines[4] == "             Characteristic Presentation Format: sint16, exponent -2, °C")
        #expect(lines[7] == " Decoded  23.45 °C")
        // Picking a format (f) still shows the raw reading.
        _ = Reducer.reduce(&s, .formatCycled(forward: true))
        #expect(ScreenTests.render(s, 120, 24)[7].hasPrefix(" As       hex  29 09"))
    }

    /// 128-bit UUIDs in the device tree: whole where there is room, else the first group,
    /// the group that tells them apart and the end (they were cut to "B1E5E1A0-000").
    @Test func longUUIDsKeepWhatTellsThemApart() {
        var s = ScreenTests.connected()
        let base = "B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FF"
        s.peripherals[ScreenTests.hrm]?.services?.append(GATTService(id: AttributeID("/s/v"), uuid: DemoCatalog.bikeVendorService, characteristics: [
            GATTCharacteristic(id: AttributeID("/s/v/1"), uuid: DemoCatalog.bikeVendorCharacteristic, properties: [.read]),
            GATTCharacteristic(id: AttributeID("/s/v/2"), uuid: "B1E5E1A0-0003-4C7A-9E3B-2D8F00C0FFEE", properties: [.write]),
            GATTCharacteristic(id: AttributeID("/s/v/3"), uuid: BLEUUID(base + "00")!, properties: [.notify]),
            GATTCharacteristic(id: AttributeID("/s/v/4"), uuid: "B1E5E1A0-0003-4C7A-9E3C-2D8F00C0FFEE", properties: [.read]),
        ]))
        var lines = ScreenTests.render(s)
        ScreenTests.expectLines(Array(lines[8...12]), [
            " ▾ Unknown Service                        B1E5E1A0-0001-4C7A-9E3B-2D8F00C0FFEE",
            "     Unknown Characteristic               B1E5E1A0-0002…C0FFEE  read",
            "     Unknown Characteristic               B1E5E1A0-0003…9E3B…C0FFEE  write",
            "     Unknown Characteristic               B1E5E1A0-0002…C0FF00  notify",
            "     Unknown Characteristic               B1E5E1A0…9E3C…C0FFEE  read",
        ])
        lines = ScreenTests.render(s, 132, 30)
        #expect(lines[9].hasSuffix("B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE  read"))
        #expect(lines[11].hasSuffix("B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FF00  notify"))
    }
}
