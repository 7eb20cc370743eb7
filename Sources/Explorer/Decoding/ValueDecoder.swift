/// Meaning for the bytes of well-known characteristics. Input is untrusted: short or
/// long values give a "malformed" text, never a crash.
public enum ValueDecoder {
    /// The text of `value(uuid, b)`.
    public static func decode(_ uuid: BLEUUID, _ b: Bytes) -> String? { value(uuid, b)?.text }

    /// The meaning of a known characteristic's value, as text and fields; nil for the
    /// characteristics it does not know.
    public static func value(_ uuid: BLEUUID, _ b: Bytes) -> DecodedValue? {
        // A format the configuration gives a vendor UUID (never .decoded: no loop), by the
        // screens' rule without a device's 0x2904 format.
        ValueDecoding(uuid: uuid, configured: UserNames.current.format(uuid), presentation: nil).value(b)
    }

    /// `value` by the SIG's definitions alone (no format from the configuration).
    static func standard(_ uuid: BLEUUID, _ b: Bytes) -> DecodedValue? {
        guard let short = uuid.shortValue else { return nil }
        switch short {
        case 0x2A19:
            guard b.count == 1 else { return malformed("Battery Level", b) }
            return DecodedValue("\(b[0]) %", [.init("percent", .number(Double(b[0])))])
        case 0x2A37:
            return heartRate(b)
        case 0x2A38:
            guard b.count == 1 else { return malformed("Body Sensor Location", b) }
            let names = ["Other", "Chest", "Wrist", "Finger", "Hand", "Ear Lobe", "Foot"]
            return named("location", b[0], Int(b[0]) < names.count ? names[Int(b[0])] : "Reserved (\(b[0]))")
        case 0x2A06:
            guard b.count == 1 else { return malformed("Alert Level", b) }
            let names = ["No Alert", "Mild Alert", "High Alert"]
            return named("level", b[0], Int(b[0]) < names.count ? names[Int(b[0])] : "Reserved (\(b[0]))")
        case 0x2A6E:
            guard b.count == 2 else { return malformed("Temperature", b) }
            let raw = Int16(bitPattern: le16(b, 0))
            if raw == Int16.min { return DecodedValue("unknown", [.init("celsius", .null)]) }
            return DecodedValue("\(formatFixed(Double(raw) / 100, 2)) °C", [.init("celsius", .rounded(Double(raw) / 100, 2))])
        case 0x2A6F:
            guard b.count == 2 else { return malformed("Humidity", b) }
            let raw = le16(b, 0)
            if raw == 0xFFFF { return DecodedValue("unknown", [.init("percent", .null)]) }
            return DecodedValue("\(formatFixed(Double(raw) / 100, 2)) %", [.init("percent", .rounded(Double(raw) / 100, 2))])
        case 0x2A07:
            guard b.count == 1 else { return malformed("Tx Power Level", b) }
            let dbm = Int8(bitPattern: b[0])
            return DecodedValue("\(dbm) dBm", [.init("dBm", .number(Double(dbm)))])
        case 0x2A00, 0x2A24...0x2A29:
            let text = printableText(b)
            return DecodedValue("\"" + text + "\"", [.init("text", .string(String(decoding: b, as: UTF8.self)))])
        case 0x2A01: return appearance(b)
        case 0x2A1C: return temperatureMeasurement(b)
        case 0x2A1D:
            guard b.count == 1 else { return malformed("Temperature Type", b) }
            return named("type", b[0], temperatureType(b[0]))
        case 0x2A2B: return currentTime(b)
        case 0x2A53: return rscMeasurement(b)
        case 0x2A5B: return cscMeasurement(b)
        case 0x2A6D: return pressure(b)
        case 0xFFE1:
            return DecodedValue(b.isEmpty ? "press" : "press (\(hex(b)))", [.init("press", .bool(true))])
        default:
            return nil
        }
    }

    /// An enumerated value: its name as text, name and number as fields.
    static func named(_ key: String, _ raw: UInt8, _ name: String) -> DecodedValue {
        DecodedValue(name, [.init(key, .string(name)), .init("raw", .number(Double(raw)))])
    }

    /// The number a known characteristic carries (for sparklines), if any.
    public static func number(_ uuid: BLEUUID, _ b: Bytes) -> Double? {
        switch uuid.shortValue {
        case 0x2A19?: return b.count == 1 ? Double(b[0]) : nil
        case 0x2A37?:
            guard let flags = b.first else { return nil }
            if flags & 0x01 != 0 { return b.count >= 3 ? Double(le16(b, 1)) : nil }
            return b.count >= 2 ? Double(b[1]) : nil
        case 0x2A6E?:
            guard b.count == 2 else { return nil }
            let raw = Int16(bitPattern: le16(b, 0))
            return raw == Int16.min ? nil : Double(raw) / 100
        case 0x2A6F?:
            guard b.count == 2, le16(b, 0) != 0xFFFF else { return nil }
            return Double(le16(b, 0)) / 100
        case 0x2A07?: return b.count == 1 ? Double(Int8(bitPattern: b[0])) : nil
        case 0x2A6D?: return b.count == 4 ? Double(le32(b, 0)) / 10 : nil
        case 0x2A1C?:
            // The FLOAT's mantissa and exponent, unless it is one of the special values.
            guard b.count >= 5 else { return nil }
            let raw = le32(b, 1)
            var mantissa = Int(raw & 0x00FF_FFFF)
            guard !(0x007F_FFFE...0x0080_0002).contains(mantissa) else { return nil }
            if mantissa >= 0x0080_0000 { mantissa -= 0x0100_0000 }
            let exponent = Int(Int8(bitPattern: UInt8(raw >> 24)))
            guard abs(exponent) <= 30 else { return nil }
            var scale = 1.0
            for _ in 0..<abs(exponent) { scale *= 10 }
            return exponent < 0 ? Double(mantissa) / scale : Double(mantissa) * scale
        case 0x2A53?: return b.count >= 4 ? Double(le16(b, 1)) / 256 : nil
        default: return nil
        }
    }

    static func malformed(_ what: String, _ b: Bytes) -> DecodedValue { DecodedValue.malformed(what, b) }

    /// Heart Rate Measurement 0x2A37: flags, bpm (u8 or u16), contact, energy, RR intervals.
    static func heartRate(_ b: Bytes) -> DecodedValue {
        guard let flags = b.first else { return malformed("Heart Rate Measurement", b) }
        var i = 1
        let wide = flags & 0x01 != 0
        guard b.count >= i + (wide ? 2 : 1) else { return malformed("Heart Rate Measurement", b) }
        let bpm = wide ? Int(le16(b, i)) : Int(b[i])
        i += wide ? 2 : 1
        var parts = ["\(bpm) bpm"]
        var fields: [DecodedValue.Field] = [.init("bpm", .number(Double(bpm)))]
        switch (flags >> 1) & 0x03 {
        case 2: parts.append("no contact"); fields.append(.init("contact", .bool(false)))
        case 3: parts.append("contact"); fields.append(.init("contact", .bool(true)))
        default: break
        }
        if flags & 0x08 != 0 {
            guard b.count >= i + 2 else { return malformed("Heart Rate Measurement", b) }
            parts.append("energy \(le16(b, i)) kJ")
            fields.append(.init("energyKJ", .number(Double(le16(b, i)))))
            i += 2
        }
        if flags & 0x10 != 0 {
            var rr: [Double] = []
            while i + 1 < b.count {
                rr.append(Double(le16(b, i)) / 1024)
                i += 2
            }
            if !rr.isEmpty {
                parts.append("RR " + rr.map { formatFixed($0, 3) }.joined(separator: " ") + " s")
                fields.append(.init("rr", .array(rr.map { .rounded($0, 3) })))
            }
        }
        return DecodedValue(parts.joined(separator: ", "), fields)
    }

    /// Printable UTF-8, with `·` for what is not (invalid bytes, and what TerminalSafe
    /// would replace: control characters, bidi overrides).
    public static func printableText(_ b: Bytes) -> String {
        var out = ""
        for scalar in String(decoding: b, as: UTF8.self).unicodeScalars {
            if TerminalSafe.isUnsafe(scalar) || scalar == "\u{FFFD}" {
                out += "·"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
