import Testing
@testable import Explorer

@Suite("Xiaomi MiBeacon")
struct MiBeaconTests {
    static func decode(_ b: Bytes) -> DecodedValue {
        let v = VendorFrames.service("FE95", b)
        #expect(v.count == 1)
        return v[0]
    }

    /// Xiaomi's object examples: temperature 1A 01 is 28.2 °C, formaldehyde 10 00 is
    /// 0.16 mg/m³, humidity 346 is 34.6 %; here each rides in a v5 frame with no MAC.
    @Test func documentedObjectExamples() {
        let header = h("4050 5b05 07")
        #expect(Self.decode(header + h("0410 02 1a01")).text == "MiBeacon v5 0x055B #7 · 28.2 °C")
        #expect(Self.decode(header + h("1010 02 1000")).text == "MiBeacon v5 0x055B #7 · formaldehyde 0.16 mg/m³")
        #expect(Self.decode(header + h("0610 02 5a01"))["humidity"] == .number(34.6))
        // Negative temperatures are signed.
        #expect(Self.decode(header + h("0410 02 9cff"))["celsius"] == .number(-10))
    }

    /// WatchFlower's published frames (its XX bytes filled with 00): a Flower Care with
    /// MAC and capability, moisture 31 %; conductivity; illuminance.
    @Test func plantSensorFrames() {
        let moisture = Self.decode(h("71 20 98 00 71 00 00 66 8d 7c c4 0d 08 10 01 1f"))
        #expect(moisture.text == "MiBeacon v2 0x0098 #113 · moisture 31 %")
        #expect(moisture["mac"] == .string("C4:7C:8D:66:00:00"))
        #expect(moisture["capability"] == .number(0x0D))
        #expect(Self.decode(h("71 20 98 00 71 00 00 66 8d 7c c4 0d 09 10 02 5e 01"))["conductivity"] == .number(350))
        #expect(Self.decode(h("71 20 98 00 71 00 00 66 8d 7c c4 0d 07 10 03 10 27 00"))["lux"] == .number(10000))
        #expect(Self.decode(h("71 20 98 00 71 00 00 66 8d 7c c4 0d 0a 10 01 64"))["battery"] == .number(100))
    }

    /// The frame-control flags, each in the fields.
    @Test func frameControl() {
        let v = Self.decode(h("5858 6f06 07 892012342d58 5f176dd54f 020000 2fa453fa"))
        #expect(v["version"] == .number(5))
        #expect(v["encrypted"] == .bool(true))
        #expect(v["macIncluded"] == .bool(true))
        #expect(v["capabilityIncluded"] == .bool(false))
        #expect(v["objectIncluded"] == .bool(true))
        #expect(v["mesh"] == .bool(false))
        #expect(v["productID"] == .number(0x066F))
        #expect(v["frameCounter"] == .number(7))
    }

    /// Encrypted frames show the header and the sizes of what is hidden, never a value:
    /// v4 and later split the random number and MIC off the end; older ones stay whole.
    @Test func encryptedIsNeverDecoded() {
        let v5 = Self.decode(h("5858 6f06 07 892012342d58 5f176dd54f 020000 2fa453fa"))
        #expect(v5.text == "MiBeacon v5 0x066F #7 · encrypted (5-byte object)")
        #expect(v5["ciphertext"] == .string("5f176dd54f"))
        #expect(v5["random"] == .string("020000"))
        #expect(v5["mic"] == .string("2fa453fa"))
        #expect(v5["celsius"] == nil)
        let legacy = Self.decode(h("5830 b603 36 8b98c54124f8 8bb8f2661351000000d6"))
        #expect(legacy.text == "MiBeacon v3 0x03B6 #54 · encrypted (10 bytes, legacy)")
        // An encrypted v5 frame too short for its random number and MIC is malformed.
        #expect(Self.decode(h("5858 6f06 07 892012342d58 2fa453")).malformed)
    }

    /// Objects the decoder does not know, or known ids at a length the documents do not
    /// give, are listed raw rather than read.
    @Test func unknownObjectsAreRaw() {
        let event = Self.decode(h("4030 dd03 24 0300 01 01"))
        #expect(event.text == "MiBeacon v3 0x03DD #36 · object 0x0003 01")
        #expect(event["objects"] == .array([.object(["id": .number(3), "data": .string("01")])]))
        let odd = Self.decode(h("4050 5b05 07 0410 03 1a0100"))
        #expect(odd["celsius"] == nil)
        #expect(odd.text == "MiBeacon v5 0x055B #7 · object 0x1004 1a0100")
    }

    @Test func meshAndMalformedFrames() {
        let mesh = Self.decode(h("c050 5b05 07 0410 02 1a01"))
        #expect(mesh.text == "MiBeacon v5 0x055B #7 · mesh")
        #expect(mesh["celsius"] == nil)
        #expect(Self.decode(h("5020 aa01 da 2193")).text == "malformed MiBeacon (MAC flagged, 2 bytes follow)")
        #expect(Self.decode(h("4050 5b05 07 0410 02 1a")).text ==
            "malformed MiBeacon (object 0x1004 declares 2 bytes, 1 follow)")
        #expect(Self.decode(h("4050 5b05 07 04")).malformed)
        #expect(Self.decode(h("4050 5b05")).text == "malformed MiBeacon (4 bytes)")
    }

    /// The shared vectors: every MiBeacon frame decodes its header; the plain ones their
    /// asserted values; the encrypted ones are flagged and give no value.
    @Test func realVectors() throws {
        let vectors = RealVectors.all.filter { $0.advertisement.serviceData[MiBeacon.service] != nil }
        #expect(vectors.count == 13)
        for v in vectors {
            let d = try #require(v.decoded.first, "\(v.id)")
            #expect(!d.malformed, "\(v.id): \(d.text)")
            #expect(d["encrypted"] == .bool(v.json["encrypted"]?.bool == true), "\(v.id)")
            if v.json["encrypted"]?.bool == true {
                for key in ["celsius", "humidity", "battery"] { #expect(d[key] == nil, "\(v.id) \(key)") }
            }
        }
        // ble_monitor: packet is the frame counter; its mac the frame's MAC.
        for (id, counter, mac, celsius, humidity) in [
            ("blemon-xiaomi-lywsdcgq", 218.0, "58:2D:34:35:93:21", 25.4, 58.4),
            ("blemon-xiaomi-lywsd03mmc", 3, "A4:C1:38:B4:94:4C", 27.2, 49.0),
        ] {
            let v = try #require(RealVectors[id])
            let d = try #require(v.decoded.first)
            #expect(d["frameCounter"]?.number == v.expected("ble_monitor", "packet")?.number)
            #expect(d["frameCounter"]?.number == counter)
            #expect(d["mac"]?.string?.filter { $0 != ":" } == v.expected("ble_monitor", "mac")?.string)
            #expect(d["mac"]?.string == mac)
            #expect(d["celsius"]?.number == celsius)
            #expect(d["humidity"]?.number == humidity)
        }
        let cgdk2 = try #require(RealVectors["blemon-xiaomi-cgdk2-encrypted"]?.decoded.first)
        #expect(cgdk2["frameCounter"] == .number(7))
        #expect(cgdk2["mac"] == .string("58:2D:34:12:20:89"))

        // xiaomi-ble's SensorUpdate values, where they come from the frame itself.
        let plain: [(String, [(String, String)])] = [
            ("xiaomi-lywsdcgq-v2", [("Temperature", "celsius"), ("Humidity", "humidity"), ("Battery", "battery")]),
            ("xiaomi-lywsd03mmc-v3", [("Temperature", "celsius"), ("Humidity", "humidity")]),
            ("xiaomi-hhccjcy01-v2", [("Temperature", "celsius")]),
            ("xiaomi-jqjcy01ym-v4", [("Formaldehyde", "formaldehyde")]),
            ("xiaomi-esm787-v5-plain", [("Temperature", "celsius"), ("Humidity", "humidity")]),
        ]
        for (id, keys) in plain {
            let v = try #require(RealVectors[id])
            let d = try #require(v.decoded.first)
            for (theirs, ours) in keys {
                #expect(d[ours]?.number == v.expected("mibeacon", "values", theirs)?.number, "\(id) \(ours)")
            }
        }
        // Product ids, by the published device tables.
        #expect(RealVectors["xiaomi-lywsdcgq-v2"]?.decoded.first?["productID"] == .number(0x01AA))
        #expect(RealVectors["xiaomi-hhccjcy01-v2"]?.decoded.first?["productID"] == .number(0x0098))
        #expect(RealVectors["xiaomi-jqjcy01ym-v4"]?.decoded.first?["productID"] == .number(0x02DF))
        #expect(RealVectors["xiaomi-lywsd03mmc-v3"]?.decoded.first?["productID"] == .number(0x055B))
    }
}
