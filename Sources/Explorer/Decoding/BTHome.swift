/// BTHome (bthome.io): sensors broadcasting readings as service data, no connection.
/// v2 sits under 0xFCD2: a device-information byte, then objects (an id, then a value
/// whose length the id decides). Legacy v1 sits under 0x181C, or 0x181E when encrypted,
/// and puts a format-and-length byte before every object.
///
/// Input is untrusted: every length is checked before it is read, a frame cut short is
/// "malformed", and device text reaches the line only through `ValueDecoder.printableText`.
public enum BTHome {
    /// The service-data UUIDs BTHome uses (0xFCD2 v2; 0x181C v1 plain, 0x181E v1 encrypted).
    public static func isBTHome(_ uuid: BLEUUID) -> Bool {
        switch uuid.shortValue {
        case 0xFCD2?, 0x181C?, 0x181E?: return true
        default: return false
        }
    }

    /// One BTHome service-data payload. `address` is the advertiser's MAC ("A4:C1:38:8D:18:B2"), needed only to decrypt; `key` the 16-byte bind key.
    ///
    /// Fields: `kind` "bthome", `version`, `encrypted`, then for v2 `trigger_based` (the
    /// device sends when something happens, not on a schedule), for encrypted frames
    /// `counter`, `mic`, `decrypted`, then the readings under the keys of
    /// `BTHome.objectTypes`, in the order sent. A key sent more than once (three
    /// temperatures, four buttons) holds an array in that order; a button or dimmer with
    /// the "None" event is null there, so the index stays the button's number.
    public static func decode(_ uuid: BLEUUID, _ data: Bytes, address: String? = nil, key: Bytes? = nil) -> DecodedValue? {
        switch uuid.shortValue {
        case 0xFCD2?: return version2(data, address: address, key: key)
        case 0x181C?: return version1(data, encrypted: false, address: address, key: key)
        case 0x181E?: return version1(data, encrypted: true, address: address, key: key)
        default: return nil
        }
    }

    static func version2(_ b: Bytes, address: String?, key: Bytes?) -> DecodedValue {
        var frame = Frame(version: 2, size: b.count)
        guard let info = b.first else { return frame.fail("no device-information byte") }
        // Device information: bit 0 encryption, bit 2 trigger based, bits 5-7 the version.
        let version = Int(info >> 5)
        guard version == 2 else {
            return DecodedValue("BTHome: device information 0x\(hex([info])) says version \(version), not 2 (not read)",
                                [.init("kind", .string("bthome")), .init("version", .number(Double(version)))])
        }
        let encrypted = info & 0x01 != 0, triggerBased = info & 0x04 != 0
        frame.fields += [.init("encrypted", .bool(encrypted)), .init("trigger_based", .bool(triggerBased))]
        if triggerBased { frame.header.append("trigger-based") }
        var rest = Array(b.dropFirst())
        var mac: Bytes?
        if info & 0x02 != 0 {
            // bthome.io marks bit 1 "reserved"; early v2 firmware set it to send its own
            // MAC first (reversed, as on air), and receivers still read it that way.
            guard rest.count >= 6 else { return frame.fail("bit 1 announces a 6-byte MAC address, \(rest.count) bytes follow") }
            let sent = Array(rest.prefix(6).reversed())
            rest.removeFirst(6)
            mac = sent
            frame.fields.append(.init("mac", .string(macText(sent))))
            frame.header.append("MAC " + macText(sent))
        }
        if encrypted {
            // The nonce: MAC, the UUID as sent (D2 FC), the device-information byte, the counter.
            guard let plain = decrypt(rest, into: &frame, address: mac ?? address.flatMap(macBytes),
                                      nonceMiddle: [0xD2, 0xFC, info], aad: [], key: key) else { return frame.result() }
            rest = plain
        }
        readObjects(rest, into: &frame)
        return frame.result()
    }

    static func version1(_ b: Bytes, encrypted: Bool, address: String?, key: Bytes?) -> DecodedValue {
        var frame = Frame(version: 1, size: b.count)
        frame.fields.append(.init("encrypted", .bool(encrypted)))
        var body = b
        if encrypted {
            // v1's nonce has no device-information byte (there is none), and v1 adds the
            // one byte of associated data 0x11 that Xiaomi's format used.
            guard let plain = decrypt(b, into: &frame, address: address.flatMap(macBytes),
                                      nonceMiddle: [0x1E, 0x18], aad: [0x11], key: key) else { return frame.result() }
            body = plain
        }
        readObjectsV1(body, into: &frame)
        return frame.result()
    }

    /// An encrypted payload is the ciphertext, a 4-byte counter (little-endian) and the
    /// 4-byte MIC. Records counter and MIC, and opens the ciphertext when a key and an
    /// address are there. nil when there is nothing more to read; `frame` says why.
    static func decrypt(_ body: Bytes, into frame: inout Frame, address: Bytes?, nonceMiddle: Bytes, aad: Bytes, key: Bytes?) -> Bytes? {
        guard body.count >= 8 else {
            frame.problem = "an encrypted payload ends in a 4-byte counter and a 4-byte MIC; \(body.count) bytes here"
            return nil
        }
        let ciphertext = Array(body.dropLast(8)), counter = Array(body.suffix(8).prefix(4)), mic = Array(body.suffix(4))
        let count = counter.reversed().reduce(0) { $0 << 8 | UInt32($1) }
        frame.fields += [.init("counter", .number(Double(count))), .init("mic", .string(hex(mic, separator: "")))]
        let reason: String
        if let key, key.count != 16 {
            reason = "not decrypted: the key is \(key.count) bytes, not 16"
        } else if let key, let address {
            if let plain = AESCCM.open(ciphertext, tag: mic, key: key, nonce: address + nonceMiddle + counter, aad: aad) {
                frame.fields.append(.init("decrypted", .bool(true)))
                frame.header.append("encrypted, counter \(count)")
                return plain
            }
            reason = "not decrypted: the MIC does not match (wrong key or address)"
        } else if key != nil {
            reason = "not decrypted: the advertiser's address is needed"
        } else {
            reason = "no key to decrypt"
        }
        frame.fields.append(.init("decrypted", .bool(false)))
        frame.header += ["encrypted, counter \(count), MIC \(hex(mic, separator: ""))", reason]
        return nil
    }

    /// v2 objects, to the end of the payload. An id the table does not know ends the
    /// parse: its value's length is unknown, so nothing after it can be found (the spec
    /// has receivers stop there, and senders order ids low to high so that what an older
    /// receiver knows comes first).
    static func readObjects(_ b: Bytes, into frame: inout Frame) {
        var i = 0
        while i < b.count {
            let id = b[i]
            guard let object = objectType[id] else {
                let rest = b.count - i - 1
                frame.readings.append(Reading(key: "unknown", label: nil,
                                              value: .object(["id": .number(Double(id)), "data": .string(hex(b[(i + 1)...], separator: ""))]),
                                              text: "object 0x\(hex([id])) unknown, \(rest) byte\(rest == 1 ? "" : "s") after it not read"))
                return
            }
            var start = i + 1
            let length: Int
            if let size = object.layout.size {
                length = size
            } else {
                guard start < b.count else { frame.problem = "\(object.key) (0x\(hex([id]))) has no length byte"; return }
                length = Int(b[start])
                start += 1
            }
            guard b.count - start >= length else {
                frame.problem = "\(object.key) (0x\(hex([id]))) needs \(length) byte\(length == 1 ? "" : "s"), \(b.count - start) left"
                return
            }
            frame.readings.append(object.reading(Array(b[start..<(start + length)])))
            i = start + length
        }
    }

    /// v1 objects: a control byte (bits 0-4 the length of id and value, bits 5-7 the
    /// format: 0 uint, 1 int, 2 float, 3 string, 4 MAC), the id, the value. The length is
    /// explicit, so an unknown id or format is shown and skipped, not the end.
    static func readObjectsV1(_ b: Bytes, into frame: inout Frame) {
        var i = 0
        while i < b.count {
            let length = Int(b[i] & 0x1F), format = b[i] >> 5
            guard length >= 1 else { frame.problem = "object at byte \(i) has length 0"; return }
            guard b.count - i - 1 >= length else {
                frame.problem = "object at byte \(i) needs \(length) bytes, \(b.count - i - 1) left"
                return
            }
            let id = b[i + 1]
            let value = Array(b[(i + 2)..<(i + 1 + length)])
            i += 1 + length
            switch readingV1(id, format, value) {
            case let .success(reading): frame.readings.append(reading)
            case let .failure(problem): frame.problem = problem.text; return
            }
        }
    }

    struct Problem: Error { let text: String }

    static func readingV1(_ id: UInt8, _ format: UInt8, _ value: Bytes) -> Result<Reading, Problem> {
        let unknown = Reading(key: "unknown", label: nil,
                              value: .object(["id": .number(Double(id)), "format": .number(Double(format)), "data": .string(hex(value, separator: ""))]),
                              text: "object 0x\(hex([id])) (format \(format)) unknown: \(hex(value, separator: ""))")
        switch format {
        case 3:
            return .success(Reading(key: "text", label: nil, value: .string(String(decoding: value, as: UTF8.self)),
                                    text: "\"" + ValueDecoder.printableText(value) + "\""))
        case 4:
            guard value.count == 6 else { return .failure(Problem(text: "MAC object (0x\(hex([id]))) has \(value.count) bytes, not 6")) }
            let mac = macText(value.reversed())
            return .success(Reading(key: "mac", label: "MAC", value: .string(mac), text: mac))
        case 0, 1, 2:
            guard let object = objectType[id] else { return .success(unknown) }
            guard case .number = object.layout else {
                if let size = object.layout.size, value.count != size {
                    return .failure(Problem(text: "\(object.key) (0x\(hex([id]))) needs \(size) byte\(size == 1 ? "" : "s"), has \(value.count)"))
                }
                return .success(object.reading(value))
            }
            if format == 2 {
                // The factor applies to a float too: the v1 page multiplies "the object
                // value" by it whatever its format, and bthome-ble does the same.
                guard let f = floatLE(value) else { return .failure(Problem(text: "\(object.key): a float of \(value.count) bytes")) }
                return .success(object.number(f, decimals: max(object.decimals, 2)))
            }
            guard (1...8).contains(value.count) else {
                return .failure(Problem(text: "\(object.key) (0x\(hex([id]))): an integer of \(value.count) bytes"))
            }
            return .success(object.number(format == 1 ? Double(signedLE(value)) : Double(unsignedLE(value))))
        default:
            return .success(unknown)
        }
    }

    /// "A4:C1:38:8D:18:B2" (or with dashes) as 6 bytes, most significant first as the
    /// nonce wants them; nil for anything else.
    static func macBytes(_ text: String) -> Bytes? {
        let parts = text.split(omittingEmptySubsequences: false) { $0 == ":" || $0 == "-" }
        guard parts.count == 6 else { return nil }
        var out: Bytes = []
        for p in parts {
            guard p.count == 2, let v = UInt8(p, radix: 16) else { return nil }
            out.append(v)
        }
        return out
    }


    static func unsignedLE(_ b: some BidirectionalCollection<UInt8>) -> UInt64 { b.reversed().reduce(0) { $0 << 8 | UInt64($1) } }

    static func signedLE(_ b: some BidirectionalCollection<UInt8>) -> Int64 {
        let u = unsignedLE(b), bits = 8 * b.count
        guard bits > 0, bits < 64 else { return Int64(bitPattern: u) }
        return u & (1 << (bits - 1)) != 0 ? Int64(u) - (1 << bits) : Int64(u)
    }

    /// IEEE 754 half, single or double, little-endian (v1's float format); nil for other lengths.
    static func floatLE(_ b: Bytes) -> Double? {
        switch b.count {
        case 2:
            // Decoded by hand: Float16 is not available on every platform Swift builds for.
            let h = UInt16(unsignedLE(b))
            let sign = h & 0x8000 != 0 ? -1.0 : 1.0, exponent = Int(h >> 10 & 0x1F), fraction = Double(h & 0x3FF)
            if exponent == 0x1F { return fraction == 0 ? sign * .infinity : .nan }
            if exponent == 0 { return sign * fraction * 0x1p-24 }
            return sign * (1 + fraction / 1024) * Double(sign: .plus, exponent: exponent - 15, significand: 1)
        case 4: return Double(Float(bitPattern: UInt32(unsignedLE(b))))
        case 8: return Double(bitPattern: unsignedLE(b))
        default: return nil
        }
    }
}

extension BTHome {
    /// One object's meaning: its value for programs and its words for people.
    struct Reading {
        var key: String
        /// Words before the value on the line; nil shows the value alone.
        var label: String?
        var value: JSONValue
        var text: String
        /// ": " for on/off states ("door: open"), a space otherwise ("battery 93 %").
        var separator = " "
        /// Events number their instances on the line ("button 2 press"): there the
        /// position is the button.
        var numbered = false
    }

    /// What one frame says, gathered while it is read, turned into text and fields once.
    struct Frame {
        let version: Int
        let size: Int
        /// Header fields after kind and version.
        var fields: [DecodedValue.Field] = []
        /// Header words after "BTHome vN".
        var header: [String] = []
        var readings: [Reading] = []
        /// Why the bytes do not fit the format; the frame is malformed when set.
        var problem: String?

        init(version: Int, size: Int) { self.version = version; self.size = size }

        mutating func fail(_ why: String) -> DecodedValue {
            problem = why
            return result()
        }

        func result() -> DecodedValue {
            var counts: [String: Int] = [:]
            for r in readings where r.numbered { counts[r.key, default: 0] += 1 }
            var seen: [String: Int] = [:]
            var parts = header
            for r in readings {
                var label = r.label
                if r.numbered, counts[r.key, default: 0] > 1, let l = label {
                    seen[r.key, default: 0] += 1
                    label = "\(l) \(seen[r.key]!)"
                }
                parts.append(label.map { $0 + r.separator + r.text } ?? r.text)
            }
            if let problem {
                let head = "malformed BTHome v\(version) (\(size) byte\(size == 1 ? "" : "s"))"
                return DecodedValue(([head] + parts + [problem]).joined(separator: " · "), malformed: true)
            }
            var out: [DecodedValue.Field] = [.init("kind", .string("bthome")), .init("version", .number(Double(version)))] + fields
            var order: [String] = []
            var values: [String: [JSONValue]] = [:]
            for r in readings {
                if values[r.key] == nil { order.append(r.key) }
                values[r.key, default: []].append(r.value)
            }
            for key in order {
                let v = values[key]!
                out.append(.init(key, v.count == 1 ? v[0] : .array(v)))
            }
            return DecodedValue((["BTHome v\(version)"] + parts).joined(separator: " · "), out)
        }
    }
}

extension BTHome.ObjectType {
    /// The reading of a value of the right length (the caller checked it).
    func reading(_ value: Bytes) -> BTHome.Reading {
        switch layout {
        case let .number(_, signed):
            return number(signed ? Double(BTHome.signedLE(value)) : Double(BTHome.unsignedLE(value)))
        case let .binary(off, on):
            let state = value[0] != 0
            return BTHome.Reading(key: key, label: label, value: .bool(state), text: state ? on : off, separator: ": ")
        case .button:
            let event = BTHome.buttonEvent(value[0])
            return BTHome.Reading(key: key, label: label, value: event.map { .string($0) } ?? .null,
                                  text: event.map(Self.words) ?? "none", numbered: true)
        case .dimmer:
            let steps = Int(value[1])
            guard let event = BTHome.dimmerEvent(value[0]) else {
                return BTHome.Reading(key: key, label: label, value: .null, text: "none", numbered: true)
            }
            return BTHome.Reading(key: key, label: label, value: .object(["event": .string(event), "steps": .number(Double(steps))]),
                                  text: "\(Self.words(event)) \(steps) step\(steps == 1 ? "" : "s")", numbered: true)
        case .text:
            return BTHome.Reading(key: key, label: label, value: .string(String(decoding: value, as: UTF8.self)),
                                  text: "\"" + ValueDecoder.printableText(value) + "\"")
        case .raw:
            return BTHome.Reading(key: key, label: label, value: .string(hex(value, separator: "")), text: hex(value, separator: ""))
        case .timestamp:
            // Whole seconds: "2023-05-14T19:41:17Z" (the recording clock's form, less the fraction).
            let iso = String(Timestamp(Double(BTHome.unsignedLE(value))).iso8601.prefix(19))
            return BTHome.Reading(key: key, label: label, value: .string(iso + "Z"),
                                  text: String(iso.map { $0 == "T" ? " " : $0 }) + " UTC")
        case .firmware:
            let version = value.reversed().map(String.init).joined(separator: ".")
            return BTHome.Reading(key: key, label: label, value: .string(version), text: version)
        }
    }

    /// A measurement: the raw number times the factor, rounded to the factor's places.
    func number(_ raw: Double, decimals: Int? = nil) -> BTHome.Reading {
        let places = decimals ?? self.decimals
        let v = raw * factor
        return BTHome.Reading(key: key, label: label, value: .rounded(v, places),
                              text: formatFixed(v, places) + (unit.isEmpty ? "" : " " + unit))
    }

    /// "double_press" -> "double press".
    static func words(_ token: String) -> String { token.split(separator: "_").joined(separator: " ") }
}
