import Testing
@testable import Explorer

@Suite("Beacons: AltBeacon and Eddystone-EID")
struct BeaconTests {
    /// The AltBeacon specification's example layout: BEAC, 20-byte ID, -60 dBm, 0x00.
    @Test func altBeacon() {
        let id: BLEUUID = "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6"
        let data: Bytes = [0xBE, 0xAC] + DemoCatalog.uuidBytes(id) + [0x00, 0x07, 0x00, 0x0C, 0xC4, 0x00]
        let adv = Advertisement(manufacturerData: [0x0118: data])
        #expect(adv.beacon == .altBeacon(company: 0x0118, id1: id, id2: 7, id3: 12, referenceRSSI: -60, reserved: 0))
        #expect(adv.beacon?.summary == "AltBeacon 2f234454… 7/12 @1m -60")
        #expect(adv.beacon?.carrier == 0x0118)
        // The short form, without the manufacturer's byte, is still an AltBeacon.
        #expect(Advertisement(manufacturerData: [0x0118: Array(data.prefix(23))]).beacon
            == .altBeacon(company: 0x0118, id1: id, id2: 7, id3: 12, referenceRSSI: -60, reserved: nil))
        #expect(Advertisement(manufacturerData: [0x0118: Array(data.prefix(22))]).beacon == .malformed(kind: "AltBeacon"))
        // Any company may carry it; other manufacturer data is not a beacon.
        #expect(Advertisement(manufacturerData: [0x0059: data]).beacon?.carrier == 0x0059)
        #expect(Advertisement(manufacturerData: [0x0059: [0xBE]]).beacon == nil)
    }

    /// Eddystone-EID: frame 0x30, tx power at 0 m, 8-byte ephemeral ID.
    @Test func eddystoneEID() {
        let frame: Bytes = [0x30, 0xF0, 0x8B, 0x3D, 0x51, 0xE2, 0x07, 0xA4, 0xC9, 0x16]
        let adv = Advertisement(serviceData: ["FEAA": frame])
        #expect(adv.beacon == .eddystoneEID(eid: Array(frame[2...]), txPower: -16))
        #expect(adv.beacon?.summary == "Eddystone-EID 8b3d51e207a4c916")
        #expect(adv.beacon?.carrier == nil)
        #expect(Advertisement(serviceData: ["FEAA": Array(frame.prefix(9))]).beacon == .malformed(kind: "Eddystone-EID"))
    }
}
