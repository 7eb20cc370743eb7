import Testing
@testable import Explorer

@Suite("Vendor frames: Microsoft, Fast Pair, Exposure Notification")
struct VendorFramesTests {
    // MARK: Microsoft 0x0006

    /// Swift Pair's three layouts from Microsoft's guide: LE (03 00 80 name), BR/EDR
    /// (address, Class of Device, name), LE and BR/EDR (Class of Device, name).
    @Test func swiftPair() {
        let le = VendorFrames.manufacturer(0x0006, h("03 00 80") + Array("Surface Mouse".utf8))
        #expect(le.map(\.text) == [#"Swift Pair · LE · "Surface Mouse""#])
        #expect(le.first?.fieldsJSON == #"{"kind":"swift-pair","subScenario":0,"name":"Surface Mouse"}"#)
        let classic = VendorFrames.manufacturer(0x0006, h("03 01 80 665544332211 040424") + Array("Headset".utf8))[0]
        #expect(classic.text == #"Swift Pair · BR/EDR · "Headset""#)
        #expect(classic["address"] == .string("11:22:33:44:55:66"))
        #expect(classic["classOfDevice"] == .number(0x240404))
        let both = VendorFrames.manufacturer(0x0006, h("03 02 80 c02500") + Array("Keyboard".utf8))[0]
        #expect(both.text == #"Swift Pair · LE and BR/EDR · "Keyboard""#)
        // The name is optional.
        #expect(VendorFrames.manufacturer(0x0006, h("03 00 80")).map(\.text) == ["Swift Pair · LE"])
        #expect(VendorFrames.manufacturer(0x0006, h("03 00")).first?.malformed == true)
        #expect(VendorFrames.manufacturer(0x0006, h("03 01 80 6655")).first?.malformed == true)
    }

    /// A display name is device text: no control character reaches the terminal line;
    /// the field keeps it as sent (JSON escapes it); a NUL ends it.
    @Test func swiftPairNameIsMadeSafe() {
        let v = VendorFrames.manufacturer(0x0006, h("03 00 80") + Array("Mouse\u{1B}[2J\u{202E}x".utf8) + [0x00, 0x41])[0]
        #expect(!v.text.unicodeScalars.contains(where: TerminalSafe.isUnsafe))
        #expect(v.text == #"Swift Pair · LE · "Mouse·[2J·x""#)
        #expect(v["name"] == .string("Mouse\u{1B}[2J\u{202E}x"))
        #expect(v.fieldsJSON.contains(#""name":"Mouse\u001b[2J"#))
    }

    /// [MS-CDP]'s beacon: scenario 1, version 1 and device type 9 (Windows 10 Desktop),
    /// Nearby Share open to everyone, the address usable as device id, salt, hash.
    @Test func cdp() {
        let v = VendorFrames.manufacturer(0x0006, h("01 29 21 20 a1b2c3d4") + Array(repeating: 0x5A, count: 19))[0]
        #expect(v.text == "Microsoft CDP · Windows 10 Desktop · v1 · Nearby Share: everyone")
        #expect(v["deviceType"] == .number(9))
        #expect(v["bluetoothAddressAsDeviceID"] == .bool(true))
        #expect(v["salt"] == .string("a1b2c3d4"))
        #expect(VendorFrames.manufacturer(0x0006, h("01 29 21 20 a1b2c3"))[0].malformed)
        // Other scenarios are not decoded.
        #expect(VendorFrames.manufacturer(0x0006, h("07 00 01")).isEmpty)
        #expect(VendorFrames.manufacturer(0x0006, []).isEmpty)
    }

    // MARK: Google Fast Pair 0xFE2C

    @Test func fastPair() {
        let model = VendorFrames.service("FE2C", h("2c a1 f5"))[0]
        #expect(model.text == "Fast Pair model 0x2CA1F5")
        #expect(model.fieldsJSON == #"{"kind":"fast-pair","form":"model-id","modelID":2925045}"#)
        let empty = VendorFrames.service("FE2C", h("00 00"))[0]
        #expect(empty.text == "Fast Pair account data (not discoverable) · no account keys")
        #expect(empty["form"] == .string("account-key"))
        let keys = VendorFrames.service("FE2C", h("00 40 11223344 11 7f"))[0]
        #expect(keys.text == "Fast Pair account data (not discoverable) · account key filter (show UI), salt")
        #expect(keys["fields"] == .array([.object(["type": .number(0), "value": .string("11223344")]),
                                          .object(["type": .number(1), "value": .string("7f")])]))
        #expect(VendorFrames.service("FE2C", h("00 42 11223344"))[0].text.contains("account key filter (hide UI)"))
        #expect(VendorFrames.service("FE2C", h("00 50 1122"))[0].malformed)
        #expect(VendorFrames.service("FE2C", h("10 00"))[0].text == "Fast Pair account data, version 1 (not decoded)")
        #expect(VendorFrames.service("FE2C", h("00"))[0].malformed)
    }

    // MARK: Exposure Notification 0xFD6F

    @Test func exposureNotification() throws {
        let v = try #require(RealVectors["bt-exposure-notification"])
        let d = try #require(v.decoded.first)
        #expect(d["rpi"]?.string == v.expected("beacontools", "identifier")?.string)
        #expect(d["metadata"]?.string == v.expected("beacontools", "encrypted_metadata")?.string)
        #expect(d["encrypted"] == .bool(true))
        #expect(d.text == "Exposure Notification · RPI 0d3b4f65584c582160571dd19010d41c · metadata 2660ee34 (encrypted)")
        #expect(VendorFrames.service("FD6F", Array(h("0d3b4f65584c582160571dd19010d41c2660ee").prefix(19)))[0].malformed)
    }
}
