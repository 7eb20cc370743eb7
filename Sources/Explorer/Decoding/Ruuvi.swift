/// Ruuvi sensors, manufacturer data 0x0499, per Ruuvi's public format documents
/// (docs.ruuvi.com, "Data format 5 (RAWv2)" and "Data format E1 (Extended v1)"). The first
/// byte is the data format; other formats (3, 6, C5, the encrypted 8) are named but not
/// decoded. All fields are big-endian. "Not available" is the largest unsigned value or
/// the smallest signed one (all bits set for the MAC): such a reading is null in the
/// fields and left out of the text, never shown as a number.
enum Ruuvi {
    static let company: UInt16 = 0x0499

    /// nil for an empty entry (nothing says it is a Ruuvi frame).
    static func decode(_ b: Bytes) -> DecodedValue? {
        switch b.first {
        case nil: return nil
        case 0x05?: return rawV2(b)
        case 0xE1?: return extendedV1(b)
        case let format?:
            return DecodedValue("Ruuvi data format \(formatName(format)) (not decoded, \(b.count) bytes)",
                                [.kind("ruuvi"), .string("format", formatName(format)), .bytes("data", b.dropFirst())])
        }
    }

    /// Data format 5 (RAWv2), 24 bytes: temperature (0.005 °C, signed), humidity (0.0025 %),
    /// pressure (Pa above 50 000), acceleration x, y, z (mG, signed), power info (11 bits
    /// battery above 1600 mV, 5 bits TX power above -40 dBm in 2 dB steps), movement
    /// counter, measurement sequence, MAC.
    static func rawV2(_ b: Bytes) -> DecodedValue {
        guard b.count == 24 else { return .malformed("Ruuvi RAWv2", b) }
        var r = Readings()
        r.temperature(Int16(bitPattern: be16(b, 1)))
        r.humidity(be16(b, 3))
        r.pressure(be16(b, 5))
        for (axis, at) in [("X", 7), ("Y", 9), ("Z", 11)] {
            let raw = Int16(bitPattern: be16(b, at))
            r.add("acceleration\(axis)", raw == .min ? nil : .number(Double(raw)))
        }
        let power = be16(b, 13)
        let battery = power >> 5, tx = power & 0x1F
        r.add("batteryMillivolts", battery == 0x7FF ? nil : .number(Double(Int(battery) + 1600)),
              text: battery == 0x7FF ? nil : formatFixed(Double(Int(battery) + 1600) / 1000, 3) + " V")
        r.add("txPower", tx == 0x1F ? nil : .number(Double(Int(tx) * 2 - 40)))
        r.add("movementCounter", b[15] == 0xFF ? nil : .number(Double(b[15])))
        r.add("sequence", be16(b, 16) == 0xFFFF ? nil : .number(Double(be16(b, 16))))
        r.mac(b[18..<24])
        return r.value(format: 0x05, "RAWv2")
    }

    /// Data format E1 (Extended v1), 40 bytes, sent over extended advertising: temperature,
    /// humidity and pressure as in RAWv2, PM 1.0 / 2.5 / 4.0 / 10.0 (0.1 µg/m³), CO2 (ppm),
    /// VOC and NOx indexes (9 bits each, the lowest in the flags byte: bit 6 VOC, bit 7
    /// NOx), luminosity (24 bits, 0.01 lux), three reserved bytes, measurement sequence
    /// (24 bits), flags (bit 0: calibration in progress), five reserved bytes, MAC.
    static func extendedV1(_ b: Bytes) -> DecodedValue {
        guard b.count == 40 else { return .malformed("Ruuvi E1", b) }
        var r = Readings()
        r.temperature(Int16(bitPattern: be16(b, 1)))
        r.humidity(be16(b, 3))
        r.pressure(be16(b, 5))
        for (name, key, at) in [("PM1.0", "pm1", 7), ("PM2.5", "pm25", 9), ("PM4.0", "pm4", 11), ("PM10", "pm10", 13)] {
            let raw = be16(b, at)
            let v = Double(raw) / 10
            r.add(key, raw == 0xFFFF ? nil : .rounded(v, 1),
                  text: raw == 0xFFFF || key != "pm25" ? nil : "\(name) \(formatFixed(v, 1)) µg/m³")
        }
        let co2 = be16(b, 15)
        r.add("co2", co2 == 0xFFFF ? nil : .number(Double(co2)), text: co2 == 0xFFFF ? nil : "CO2 \(co2) ppm")
        let flags = b[28]
        let voc = UInt16(b[17]) << 1 | UInt16(flags >> 6 & 1), nox = UInt16(b[18]) << 1 | UInt16(flags >> 7)
        r.add("voc", voc == 0x1FF ? nil : .number(Double(voc)))
        r.add("nox", nox == 0x1FF ? nil : .number(Double(nox)))
        let lux = be24(b, 19)
        r.add("lux", lux == 0xFF_FFFF ? nil : .rounded(Double(lux) / 100, 2))
        let sequence = be24(b, 25)
        r.add("sequence", sequence == 0xFF_FFFF ? nil : .number(Double(sequence)))
        r.fields.append(.bool("calibrating", flags & 0x01 != 0))
        r.mac(b[34..<40])
        return r.value(format: 0xE1, "E1")
    }

    /// A format as Ruuvi's documents name it: "5", "C5", "E1".
    static func formatName(_ format: UInt8) -> String { String(format, radix: 16, uppercase: true) }

    /// The fields and the text line built side by side, "not available" handled once.
    struct Readings {
        var fields: [DecodedValue.Field] = []
        var parts: [String] = []

        mutating func add(_ key: String, _ value: JSONValue?, text: String? = nil) {
            fields.append(.init(key, value ?? .null))
            if let text { parts.append(text) }
        }

        mutating func temperature(_ raw: Int16) {
            let c = Double(raw) * 0.005
            add("celsius", raw == .min ? nil : .rounded(c, 3), text: raw == .min ? nil : formatFixed(c, 2) + " °C")
        }

        mutating func humidity(_ raw: UInt16) {
            let h = Double(raw) * 0.0025
            add("humidity", raw == 0xFFFF ? nil : .rounded(h, 4), text: raw == 0xFFFF ? nil : formatFixed(h, 2) + " %")
        }

        mutating func pressure(_ raw: UInt16) {
            let pa = Int(raw) + 50_000
            add("pascal", raw == 0xFFFF ? nil : .number(Double(pa)),
                text: raw == 0xFFFF ? nil : formatFixed(Double(pa) / 100, 2) + " hPa")
        }

        mutating func mac(_ b: ArraySlice<UInt8>) {
            add("mac", b.allSatisfy { $0 == 0xFF } ? nil : .string(macText(b)))
        }

        func value(format: UInt8, _ name: String) -> DecodedValue {
            let line = (["Ruuvi \(name)"] + (parts.isEmpty ? ["no readings available"] : parts)).joined(separator: " · ")
            return DecodedValue(line, [.kind("ruuvi"), .string("format", formatName(format))] + fields)
        }
    }
}
