import Foundation
import Testing
@testable import Explorer

/// The BTHome decoder against the examples on bthome.io (format, v1, encryption), the
/// BTHome vectors in Tests/Fixtures/realdata/adverts.json (what bthome-ble's and
/// ble_monitor's tests assert), and every truncation of them.
@Suite("BTHome")
struct BTHomeTests {
    static let v2: BLEUUID = "FCD2", v1: BLEUUID = "181C", v1Encrypted: BLEUUID = "181E"
    static let specKey = AESCCMTests.bytes("231d39c1d7cc1ab1aee224cd096db932")
    static let specAddress = "54:48:E6:8F:80:A5"

    static func decode(_ uuid: BLEUUID, _ hexText: String, address: String? = nil, key: Bytes? = nil) -> DecodedValue {
        BTHome.decode(uuid, AESCCMTests.bytes(hexText), address: address, key: key)!
    }

    static func field(_ d: DecodedValue, _ key: String) -> JSONValue? { d.fields.first { $0.key == key }?.value }

    @Test func uuids() {
        #expect(BTHome.isBTHome("FCD2") && BTHome.isBTHome("0000181c-0000-1000-8000-00805f9b34fb") && BTHome.isBTHome("181E"))
        #expect(!BTHome.isBTHome("180D") && !BTHome.isBTHome("FE95"))
        #expect(BTHome.decode("FE95", [0x40, 0x01, 0x64]) == nil)
    }

    /// The format page's worked example, `0xD2FC 40 02C409 03BF13`, and the line the app shows.
    @Test func specWorkedExample() {
        let d = Self.decode(Self.v2, "4002C40903BF13")
        #expect(d.text == "BTHome v2 · 25.00 °C · 50.55 %")
        #expect(d.fieldsJSON == #"{"kind":"bthome","version":2,"encrypted":false,"trigger_based":false,"temperature":25,"humidity":50.55}"#)
        #expect(!d.malformed)
        let withPacket = Self.decode(Self.v2, "400009015d025d0903b718")
        #expect(withPacket.text == "BTHome v2 · packet 9 · battery 93 % · 23.97 °C · 63.27 %")
    }

    /// Every "Example" column entry of the sensor, binary sensor, device and misc tables
    /// on bthome.io/format, each after device information 0x40, with its "Result".
    @Test(arguments: [
        ("518756", "acceleration", 22.151), ("0161", "battery", 97), ("12E204", "co2", 1250), ("56E803", "conductivity", 1000),
        ("0960", "count", 96), ("3D0960", "count", 24585), ("3E2A2C0960", "count", 1_611_213_866), ("59EA", "count", -22),
        ("5AEAEA", "count", -5398), ("5BEA0234EA", "count", -365_690_134), ("434E34", "current", 13.39), ("5D02EA", "current", -5.63),
        ("08CA06", "dewpoint", 17.38), ("400C00", "distance_mm", 12), ("414E00", "distance_m", 7.8), ("424E3400", "duration", 13.39),
        ("4d12138a14", "energy", 344_593.17), ("0A138A14", "energy", 1346.067), ("4B138A14", "gas", 1346.067),
        ("4C41018A01", "gas", 25821.505), ("528756", "gyroscope", 22.151), ("03BF13", "humidity", 50.55), ("2E23", "humidity", 35),
        ("05138A14", "illuminance", 13460.67), ("065E1F", "mass_kg", 80.3), ("073E1D", "mass_lb", 74.86), ("14020C", "moisture", 30.74),
        ("2F23", "moisture", 35), ("0D120C", "pm25", 3090), ("0E021C", "pm10", 7170), ("0B021B00", "power", 69.14),
        ("5C02FBFFFF", "power", -12.78), ("04138A01", "pressure", 1008.83), ("3F020C", "rotation", 307.4), ("444E34", "speed", 133.9),
        ("57EA", "temperature", -22), ("58EA", "temperature", -7.7), ("451101", "temperature", 27.3), ("02CA09", "temperature", 25.06),
        ("133301", "tvoc", 307), ("0C020C", "voltage", 3.074), ("4A020C", "voltage", 307.4), ("4E87562A01", "volume_l", 19551.879),
        ("478756", "volume_l", 2215.1), ("48DC87", "volume_ml", 34780), ("5587562A01", "volume_storage", 19551.879),
        ("49DC87", "volume_flow_rate", 34.78), ("4632", "uv_index", 5), ("4F87562A01", "water", 19551.879), ("5E9F8C", "direction", 359.99),
        // Precipitation at factor 0.1 (see BTHome.objectTypes); the newest rows, our own bytes.
        ("5FA00F", "precipitation", 400), ("6009", "channel", 9), ("61B80B", "rotational_speed", 3000),
        ("6340420F00", "acceleration", 1), ("6432", "light_level", 50), ("F00100", "device_type_id", 1), ("0009", "packet_id", 9),
    ] as [(String, String, Double)])
    func sensorTable(example: String, key: String, result: Double) throws {
        let d = Self.decode(Self.v2, "40" + example)
        #expect(!d.malformed)
        let value = try #require(Self.field(d, key)?.number, "\(example): \(d.text)")
        #expect(abs(value - result) < 1e-9, "\(example) gave \(value)")
        #expect(d.fields.count == 5, "\(example): one reading after the four header fields")
    }

    @Test(arguments: [
        ("1501", "battery_low", true), ("1601", "battery_charging", true), ("1700", "carbon_monoxide", false), ("1801", "cold", true),
        ("1900", "connectivity", false), ("1A00", "door", false), ("1B01", "garage_door", true), ("1C01", "gas_detected", true),
        ("0F01", "generic_boolean", true), ("1D00", "heat", false), ("1E01", "light", true), ("1F01", "lock", true),
        ("2001", "moisture_wet", true), ("2100", "motion", false), ("2201", "moving", true), ("2301", "occupancy", true),
        ("1100", "opening", false), ("2400", "plug", false), ("1001", "power_on", true), ("2500", "presence", false),
        ("2601", "problem", true), ("2701", "running", true), ("2800", "safety", false), ("2901", "smoke", true),
        ("2A00", "sound", false), ("2B00", "tamper", false), ("2C01", "vibration", true), ("2D01", "window", true),
    ])
    func binaryTable(example: String, key: String, result: Bool) {
        #expect(Self.field(Self.decode(Self.v2, "40" + example), key) == .bool(result), "\(example)")
    }

    @Test func binaryText() {
        #expect(Self.decode(Self.v2, "401A011E00").text == "BTHome v2 · door: open · light: no light")
        #expect(Self.decode(Self.v2, "401E01").text == "BTHome v2 · light: detected")
    }

    @Test func textRawTimestampFirmware() {
        let text = Self.decode(Self.v2, "40530C48656C6C6F20576F726C6421")
        #expect(Self.field(text, "text") == .string("Hello World!"))
        #expect(text.text == #"BTHome v2 · "Hello World!""#)
        #expect(Self.field(Self.decode(Self.v2, "40540C48656C6C6F20576F726C6421"), "raw") == .string("48656c6c6f20576f726c6421"))
        let time = Self.decode(Self.v2, "40505d396164")
        #expect(Self.field(time, "timestamp") == .string("2023-05-14T19:41:17Z"))
        #expect(time.text == "BTHome v2 · time 2023-05-14 19:41:17 UTC")
        #expect(Self.field(Self.decode(Self.v2, "40F100010204"), "firmware_version") == .string("4.2.1.0"))
        #expect(Self.field(Self.decode(Self.v2, "40F2000106"), "firmware_version") == .string("6.1.0"))
        // An empty text is a text; a length byte past the end is not.
        #expect(Self.field(Self.decode(Self.v2, "405300"), "text") == .string(""))
        #expect(Self.decode(Self.v2, "4053").malformed)
    }

    /// Device text never reaches the line raw; the field keeps it (JSON escapes it).
    @Test func deviceTextIsMadeSafe() {
        let d = Self.decode(Self.v2, "4053061B5B324A0D0A")
        #expect(!d.text.unicodeScalars.contains(where: TerminalSafe.isUnsafe))
        #expect(Self.field(d, "text") == .string("\u{1B}[2J\r\n"))
        #expect(d.fieldsJSON.contains(#""text":"\u001b[2J\r\n""#))
    }

    @Test func buttonAndDimmerEvents() {
        for (id, event) in [(0x01, "press"), (0x02, "double_press"), (0x03, "triple_press"), (0x04, "long_press"),
                            (0x05, "long_double_press"), (0x06, "long_triple_press"), (0x80, "hold_press")] {
            #expect(Self.field(BTHome.decode(Self.v2, [0x40, 0x3A, UInt8(id)])!, "button") == .string(event))
        }
        #expect(Self.field(Self.decode(Self.v2, "403A00"), "button") == .null)
        #expect(Self.decode(Self.v2, "443A02").text == "BTHome v2 · trigger-based · button double press")
        #expect(Self.field(Self.decode(Self.v2, "443A02"), "trigger_based") == .bool(true))
        // 3A00 3A01: no event for the first button, "press" for the second.
        let two = Self.decode(Self.v2, "403A003A01")
        #expect(Self.field(two, "button") == .array([.null, .string("press")]))
        #expect(two.text == "BTHome v2 · button 1 none · button 2 press")
        #expect(Self.field(Self.decode(Self.v2, "403C0000"), "dimmer") == .null)
        let left = Self.decode(Self.v2, "403C0103")
        #expect(Self.field(left, "dimmer") == .object(["event": .string("rotate_left"), "steps": .number(3)]))
        #expect(left.text == "BTHome v2 · dimmer rotate left 3 steps")
        #expect(Self.field(Self.decode(Self.v2, "403C020A"), "dimmer") == .object(["event": .string("rotate_right"), "steps": .number(10)]))
    }

    /// Three temperatures, two humidities: arrays, in the order sent.
    @Test func multipleInstances() {
        let d = Self.decode(Self.v2, "4002ca0902cf0902cf0803b71803b717015d")
        #expect(Self.field(d, "temperature") == .array([.number(25.06), .number(25.11), .number(22.55)]))
        #expect(Self.field(d, "humidity") == .array([.number(63.27), .number(60.71)]))
        #expect(Self.field(d, "battery") == .number(93))
        #expect(d.text == "BTHome v2 · 25.06 °C · 25.11 °C · 22.55 °C · 63.27 % · 60.71 % · battery 93 %")
    }

    /// An id the table does not know ends the parse, said so; what came before stands.
    @Test func unknownObjectStopsTheParse() {
        let d = Self.decode(Self.v2, "4002ca09feca0903bf13")
        #expect(!d.malformed)
        #expect(Self.field(d, "temperature") == .number(25.06))
        #expect(Self.field(d, "humidity") == nil)
        #expect(Self.field(d, "unknown") == .object(["id": .number(254), "data": .string("ca0903bf13")]))
        #expect(d.text == "BTHome v2 · 25.06 °C · object 0xfe unknown, 5 bytes after it not read")
    }

    @Test func malformedFrames() {
        let cut = Self.decode(Self.v2, "4002ca0903bf")
        #expect(cut.malformed && cut.fields.isEmpty)
        #expect(cut.text == "malformed BTHome v2 (6 bytes) · 25.06 °C · humidity (0x03) needs 2 bytes, 1 left")
        #expect(Self.decode(Self.v2, "").text == "malformed BTHome v2 (0 bytes) · no device-information byte")
        #expect(Self.decode(Self.v2, "42b2188d38").malformed)
        let v3 = Self.decode(Self.v2, "6002ca09")
        #expect(!v3.malformed && Self.field(v3, "version") == .number(3) && Self.field(v3, "temperature") == nil)
    }

    /// bthome.io/encryption's example frame, with and without what it takes to open it.
    @Test func encryptedSpecExample() {
        let frame = "41e445f3c9962b332211006c7c4519"
        let open = Self.decode(Self.v2, frame, address: Self.specAddress, key: Self.specKey)
        #expect(open.text == "BTHome v2 · encrypted, counter 1122867 · 25.06 °C · 50.55 %")
        #expect(open.fieldsJSON == #"{"kind":"bthome","version":2,"encrypted":true,"trigger_based":false,"counter":1122867,"mic":"6c7c4519","decrypted":true,"temperature":25.06,"humidity":50.55}"#)
        let shut = Self.decode(Self.v2, frame)
        #expect(shut.text == "BTHome v2 · encrypted, counter 1122867, MIC 6c7c4519 · no key to decrypt")
        #expect(!shut.malformed && Self.field(shut, "decrypted") == .bool(false) && Self.field(shut, "temperature") == nil)
        #expect(Self.decode(Self.v2, frame, key: Self.specKey).text.hasSuffix("not decrypted: the advertiser's address is needed"))
        var wrong = Self.specKey
        wrong[0] ^= 1
        #expect(Self.decode(Self.v2, frame, address: Self.specAddress, key: wrong).text.hasSuffix("the MIC does not match (wrong key or address)"))
        #expect(Self.decode(Self.v2, frame, address: "54:48:E6:8F:80:A6", key: Self.specKey).text.hasSuffix("(wrong key or address)"))
        #expect(Self.decode(Self.v2, frame, address: Self.specAddress, key: [1, 2]).text.hasSuffix("the key is 2 bytes, not 16"))
        #expect(Self.decode(Self.v2, "41332211006c7c45").malformed)
    }

    /// bthome.io/v1: the format byte's examples, binary sensors and events.
    @Test func version1SpecExamples() {
        let d = Self.decode(Self.v1, "2302C4090303BF13")
        #expect(d.text == "BTHome v1 · 25.00 °C · 50.55 %")
        #expect(d.fieldsJSON == #"{"kind":"bthome","version":1,"encrypted":false,"temperature":25,"humidity":50.55}"#)
        for (example, key, result) in [("020161", "battery", 97.0), ("022E23", "humidity", 35), ("0404138A01", "pressure", 1008.83),
                                       ("0405138A14", "illuminance", 13460.67), ("03065E1F", "mass_kg", 80.3), ("03073E1D", "mass_lb", 74.86),
                                       ("2308CA06", "dewpoint", 17.38), ("020960", "count", 96), ("040A138A14", "energy", 1346.067),
                                       ("040B021B00", "power", 69.14), ("030C020C", "voltage", 3.074), ("030D120C", "pm25", 3090),
                                       ("030E021C", "pm10", 7170), ("0312E204", "co2", 1250), ("03133301", "tvoc", 307),
                                       ("0314020C", "moisture", 30.74), ("022F23", "moisture", 35), ("020009", "packet_id", 9)] {
            #expect(Self.field(Self.decode(Self.v1, example), key) == .number(result), "\(example)")
        }
        #expect(Self.field(Self.decode(Self.v1, "020F01"), "generic_boolean") == .bool(true))
        #expect(Self.field(Self.decode(Self.v1, "022D01"), "window") == .bool(true))
        #expect(Self.field(Self.decode(Self.v1, "023A01"), "button") == .string("press"))
        #expect(Self.field(Self.decode(Self.v1, "033C0103"), "dimmer") == .object(["event": .string("rotate_left"), "steps": .number(3)]))
        // Float (format 2), times the factor like any value (bthome-ble does the same):
        // 2506.0 as binary32 is 25.06 °C, 1.0 as binary16 a battery of 1 %. String (3), MAC (4, reversed).
        #expect(Self.field(Self.decode(Self.v1, "450200A01C45"), "temperature") == .number(25.06))
        #expect(Self.field(Self.decode(Self.v1, "4301003C"), "battery") == .number(1))
        #expect(Self.field(Self.decode(Self.v1, "6453486921"), "text") == .string("Hi!"))
        #expect(Self.field(Self.decode(Self.v1, "8700B2188D38C1A4"), "mac") == .string("A4:C1:38:8D:18:B2"))
        // v1 lengths are explicit, so an unknown id is shown and the parse goes on.
        let skipped = Self.decode(Self.v1, "02FE000302CA09")
        #expect(Self.field(skipped, "temperature") == .number(25.06) && Self.field(skipped, "unknown") != nil)
        #expect(Self.decode(Self.v1, "0302CA").malformed && Self.decode(Self.v1, "00").malformed)
    }

    // MARK: - The shared real-data vectors

    struct Vector {
        let id: String
        let uuid: BLEUUID
        let data: Bytes
        let address: String?
        let key: Bytes?
        let expect: JSONValue
    }

    /// The real-data vectors kept in the repository (Tests/Fixtures/realdata, README there).
    static func vectors() throws -> [Vector] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent("Tests/Fixtures/realdata/adverts.json").path
        let all = try JSONValue.parse(String(contentsOfFile: path, encoding: .utf8)).array ?? []
        var out: [Vector] = []
        for v in all {
            let id = v["id"]?.string ?? "?"
            let entries = (v["service_data"]?.object ?? [:]).compactMap { k, hexText -> (BLEUUID, String)? in
                guard let uuid = BLEUUID(k), BTHome.isBTHome(uuid), let h = hexText.string else { return nil }
                return (uuid, h)
            }
            guard let (uuid, h) = entries.first else {
                if id.hasPrefix("bthome-") { Issue.record("\(id) has no BTHome service data") }
                continue
            }
            out.append(Vector(id: id, uuid: uuid, data: AESCCMTests.bytes(h), address: v["address"]?.string,
                              key: v["bindkey"]?.string.map(AESCCMTests.bytes), expect: v["expect"] ?? .null))
        }
        return out
    }

    /// What is wrong with the decoding of one vector against what its upstream test asserts.
    static func mismatches(_ v: Vector) -> [String] {
        guard let d = BTHome.decode(v.uuid, v.data, address: v.address, key: v.key) else { return ["not decoded"] }
        var out: [String] = d.malformed ? ["malformed: \(d.text)"] : []
        func value(_ key: String, _ index: Int?) -> JSONValue? {
            guard let f = field(d, key) else { return nil }
            guard let index else { return f.array == nil ? f : nil }
            return f.array.flatMap { index < $0.count ? $0[index] : nil }
        }
        func same(_ a: JSONValue?, _ b: JSONValue) -> Bool {
            if let x = a?.number, let y = b.number { return abs(x - y) < 1e-6 }
            return a == b
        }
        let headerKeys: Set = ["kind", "version", "encrypted", "trigger_based", "mac", "counter", "mic", "decrypted", "unknown", "button", "dimmer"]
        if let e = v.expect["bthome"] {
            if !same(field(d, "version"), e["version"] ?? .null) { out.append("version") }
            if field(d, "encrypted") != e["encrypted"] { out.append("encrypted") }
            if e["encrypted"] == .bool(true), field(d, "decrypted") != .bool(true) { out.append("not decrypted") }
            var expectedKeys: Set<String> = []
            for (name, expected) in e["values"]?.object ?? [:] {
                // "Temperature 2" is the second temperature; "Packet Id" is packet_id.
                var words = name.lowercased().split(separator: " ").map(String.init)
                let index = words.count > 1 ? Int(words.last!).map { $0 - 1 } : nil
                if index != nil { words.removeLast() }
                let key = words.joined(separator: "_")
                expectedKeys.insert(key)
                if !same(value(key, index), expected) { out.append("\(name): \(value(key, index)?.serialized ?? "nil") != \(expected.serialized)") }
            }
            let decodedKeys = Set(d.fields.map(\.key)).subtracting(headerKeys)
            if decodedKeys != expectedKeys { out.append("readings \(decodedKeys.sorted()) != \(expectedKeys.sorted())") }
            var expectedEvents: [String: JSONValue] = [:]
            for event in e["events"]?.array ?? [] {
                guard let deviceKey = event["device_key"]?.string, let type = event["event_type"] else { continue }
                let steps = event["event_properties"]?["steps"]
                expectedEvents[deviceKey] = steps.map { .object(["event": type, "steps": $0]) } ?? type
            }
            for key in ["button", "dimmer"] {
                let decoded = field(d, key).map { $0.array ?? [$0] } ?? []
                for (i, got) in decoded.enumerated() {
                    let name = decoded.count > 1 ? "\(key)_\(i + 1)" : key
                    if got != (expectedEvents.removeValue(forKey: name) ?? .null) { out.append("\(name): \(got.serialized)") }
                }
            }
            if !expectedEvents.isEmpty { out.append("events not decoded: \(expectedEvents.keys.sorted())") }
        }
        if let m = v.expect["ble_monitor"] {
            let encrypted = m["firmware"]?.string?.hasSuffix("(encrypted)") == true
            if field(d, "encrypted") != .bool(encrypted) { out.append("encrypted") }
            if encrypted, field(d, "decrypted") != .bool(true) { out.append("not decrypted") }
            for key in ["temperature", "humidity", "text"] {
                if let expected = m[key], !same(field(d, key), expected) { out.append(key) }
            }
            if let button = m["button"]?.string, field(d, "button") != .string(button.split(separator: " ").joined(separator: "_")) {
                out.append("button")
            }
            // ble_monitor's "packet" is the packet id, or the counter of an encrypted frame.
            switch m["packet"] {
            case let .number(n)?: if !same(field(d, encrypted ? "counter" : "packet_id"), .number(n)) { out.append("packet") }
            case .string?: if field(d, "packet_id") != nil { out.append("packet id where there is none") }
            default: break
            }
        }
        return out
    }

    @Test func realDataVectors() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count == 22)
        var decoded = 0
        for v in vectors {
            let wrong = Self.mismatches(v)
            if wrong.isEmpty { decoded += 1 } else { Issue.record("\(v.id): \(wrong.joined(separator: "; "))") }
        }
        print("BTHome real-data vectors: \(decoded) of \(vectors.count) decode as asserted upstream")
        #expect(decoded == vectors.count)
        // The MAC sent in the payload (device information bit 1) is the advertiser's.
        let withMAC = try #require(vectors.first { $0.id == "bthome-v2-with-mac" })
        #expect(Self.field(BTHome.decode(withMAC.uuid, withMAC.data)!, "mac") == .string(withMAC.address!))
        // Without their key the encrypted ones still say what they are.
        for v in vectors where v.key != nil {
            let d = BTHome.decode(v.uuid, v.data, address: v.address)!
            #expect(!d.malformed && Self.field(d, "encrypted") == .bool(true) && Self.field(d, "decrypted") == .bool(false), "\(v.id)")
        }
    }

    // MARK: - Untrusted bytes

    static func expectSafe(_ d: DecodedValue?, _ input: Bytes, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let d else { Issue.record("nil for \(hex(input))", sourceLocation: sourceLocation); return }
        if d.text.unicodeScalars.contains(where: TerminalSafe.isUnsafe) {
            Issue.record("unsafe text \(d.text.debugDescription) from \(hex(input))", sourceLocation: sourceLocation)
        }
        if d.malformed, !d.fields.isEmpty { Issue.record("malformed with fields from \(hex(input))", sourceLocation: sourceLocation) }
    }

    /// Every prefix of every valid example (the spec's and the real ones), and each with
    /// bytes added, with and without the key: a result every time, never a read past the end.
    @Test func everyTruncationAndExtension() throws {
        var examples: [(BLEUUID, Bytes, String?, Bytes?)] = try Self.vectors().map { ($0.uuid, $0.data, $0.address, $0.key) }
        for h in ["4002C40903BF13", "40530C48656C6C6F20576F726C6421", "40505d396164", "40F100010204", "403C0103", "42b2188d38c1a404138a01"] {
            examples.append((Self.v2, AESCCMTests.bytes(h), nil, nil))
        }
        examples.append((Self.v2, AESCCMTests.bytes("41e445f3c9962b332211006c7c4519"), Self.specAddress, Self.specKey))
        examples.append((Self.v1, AESCCMTests.bytes("450200A01C458700B2188D38C1A4"), nil, nil))
        for (uuid, bytes, address, key) in examples {
            for n in 0...bytes.count {
                let cut = Array(bytes.prefix(n))
                for input in [cut, cut + [0xFF, 0x1B, 0x00], cut + [0x53, 0x03, 0x1B, 0x5B, 0x41]] {
                    Self.expectSafe(BTHome.decode(uuid, input), input)
                    Self.expectSafe(BTHome.decode(uuid, input, address: address, key: key), input)
                }
            }
        }
    }

    @Test func randomBytes() {
        var rng = SeededRandom(seed: 0xB7E0)
        for round in 0..<3000 {
            let n = Int(rng.next() % 40)
            var b = Bytes((0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            if round % 2 == 0, !b.isEmpty { b[0] = [0x40, 0x41, 0x44, 0x42][round / 2 % 4] }
            let uuid = [Self.v2, Self.v1, Self.v1Encrypted][round % 3]
            Self.expectSafe(BTHome.decode(uuid, b), b)
            Self.expectSafe(BTHome.decode(uuid, b, address: Self.specAddress, key: Self.specKey), b)
        }
    }
}
