import Testing
@testable import Explorer

@Suite("Apple Continuity")
struct ContinuityTests {
    static func texts(_ data: Bytes) -> [String] { VendorFrames.manufacturer(0x004C, data).map(\.text) }

    /// The write-ups' examples (furiousMAC/continuity message notes): AirPlay Target with
    /// flags 03, seed 07, 192.168.1.2; Magic Switch with its 3 bytes; a Handoff message.
    @Test func writeUpExamples() {
        #expect(Self.texts(h("09 06 03 07 c0 a8 01 02")) == ["Apple AirPlay Target (len 6)"])
        #expect(Self.texts(h("0b 03 c4 b5 3f")) == ["Apple Magic Switch (len 3)"])
        let handoff = VendorFrames.manufacturer(0x004C, h("0c 0e 00 495a 48 f28a1927bd62fd895b5a"))
        #expect(handoff.map(\.text) == ["Apple Handoff (len 14)"])
        #expect(handoff.first?.fieldsJSON ==
            #"{"kind":"apple-continuity","type":12,"name":"Handoff","length":14,"payload":"00495a48f28a1927bd62fd895b5a"}"#)
    }

    /// Every TLV in the entry, in order; an unknown type by its number.
    @Test func everyMessageInTheEntry() {
        #expect(Self.texts(h("10 05 0a 1c 77 f9 5b 13 01 00 12 02 00 01")) ==
            ["Apple Nearby Info (len 5)", "Apple Continuity type 0x13 (len 1)", "Apple Find My (offline finding) (len 2)"])
        let unknown = VendorFrames.manufacturer(0x004C, h("13 01 00"))[0]
        #expect(unknown["name"] == .null)
        #expect(unknown["type"] == .number(0x13))
        // A zero-length message is a message.
        #expect(Self.texts(h("0a 00")) == ["Apple AirPlay Source (len 0)"])
    }

    /// iBeacon is not Continuity's to show: a 02 15 entry gives nothing, a mixed entry
    /// gives only the other messages, and a cut-short iBeacon is left to the beacon decoder.
    @Test func iBeaconIsLeftAlone() {
        let ibeacon = h("02 15") + Array(repeating: 0xAB, count: 16) + h("00 01 00 02 c5")
        #expect(VendorFrames.manufacturer(0x004C, ibeacon).isEmpty)
        #expect(Self.texts(ibeacon + h("10 02 44 0c")) == ["Apple Nearby Info (len 2)"])
        #expect(Self.texts(h("10 02 44 0c") + ibeacon) == ["Apple Nearby Info (len 2)"])
        #expect(VendorFrames.manufacturer(0x004C, Array(ibeacon.prefix(10))).isEmpty)
        // Bytes a vendor appends to its iBeacon (Jaalee: battery) are the beacon's, not Continuity's.
        #expect(VendorFrames.manufacturer(0x004C, ibeacon + [0x64]).isEmpty)
    }

    /// HomeKit's length byte is subtype (3 bits) and length (5 bits), per Apple's HAP
    /// specification: 0x31 is subtype 1, 17 bytes.
    @Test func homeKitLengthByte() {
        let v = VendorFrames.manufacturer(0x004C, h("06 31 00 e4c49beefb3e 0500 0d00 01 02 63112065"))
        #expect(v.map(\.text) == ["Apple HomeKit (len 17)"])
        #expect(v.first?["subtype"] == .number(1))
    }

    /// A length that runs past the entry ends the list with a malformed value; what came
    /// before stands.
    @Test func overrunningMessage() {
        let v = VendorFrames.manufacturer(0x004C, h("10 02 44 0c 0f 06 a0 33"))
        #expect(v.map(\.text) == ["Apple Nearby Info (len 2)", "malformed Apple Continuity (type 0x0F declares 6 bytes, 2 follow)"])
        #expect(v.map(\.malformed) == [false, true])
        #expect(v.last?.fields.isEmpty == true)
        #expect(Self.texts([0x10]) == ["malformed Apple Continuity (type 0x10 without a length byte)"])
        #expect(Self.texts([]).isEmpty)
    }

    /// The shared vectors: every Apple entry that is not an iBeacon names its messages;
    /// every iBeacon entry gives nothing here.
    @Test func realVectors() throws {
        let expected: [String: [String]] = [
            "bdt-apple-nearby-info": ["Apple Nearby Info (len 5)"],
            "bdt-apple-homekit-short-name": ["Apple HomeKit (len 17)"],
            "blemon-apple-nearby-action-info": ["Apple Nearby Action (len 6)", "Apple Nearby Info (len 2)"],
            "blemon-apple-nearby-info": ["Apple Nearby Info (len 5)"],
            // Synthetic: type 0x01 declares 2 bytes and none follow.
            "bdt-two-companies": ["malformed Apple Continuity (type 0x01 declares 2 bytes, 0 follow)"],
        ]
        var apple = 0
        for v in RealVectors.all {
            guard let data = v.advertisement.manufacturerData[0x004C] else { continue }
            apple += 1
            let texts = Self.texts(data)
            if let want = expected[v.id] {
                #expect(texts == want, "\(v.id)")
            } else {
                #expect(Array(data.prefix(2)) == [0x02, 0x15], "\(v.id) is not an iBeacon")  // blemon-jaalee has a byte after it
                #expect(texts.isEmpty, "\(v.id): \(texts)")
            }
        }
        #expect(apple == 20)
        for id in expected.keys { #expect(RealVectors[id] != nil, "\(id) missing from adverts.json") }
    }
}
