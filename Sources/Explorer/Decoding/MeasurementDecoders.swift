/// Decoders for the flag-driven GATT structures (GATT Specification Supplement): a flags
/// byte says which fields follow. Each checks the length the flags call for before it
/// reads, so short values are "malformed" and trailing bytes are ignored.
extension ValueDecoder {
    /// Temperature Measurement 0x2A1C (Health Thermometer): flags, FLOAT (IEEE 11073),
    /// optional time stamp, optional temperature type.
    static func temperatureMeasurement(_ b: Bytes) -> DecodedValue {
        let what = "Temperature Measurement"
        guard let flags = b.first else { return malformed(what, b) }
        let hasTime = flags & 0x02 != 0, hasType = flags & 0x04 != 0
        guard b.count >= 5 + (hasTime ? 7 : 0) + (hasType ? 1 : 0) else { return malformed(what, b) }
        let fahrenheit = flags & 0x01 != 0
        let temperature = ValueFormat.float11073(le32(b, 1))
        var parts = [temperature + (fahrenheit ? " °F" : " °C")]
        var fields: [DecodedValue.Field] = [.init(fahrenheit ? "fahrenheit" : "celsius", Double(temperature).map { .number($0) } ?? .null)]
        var i = 5
        if hasTime {
            parts.append(dateTime(b, i))
            fields.append(.init("time", .string(dateTime(b, i))))
            i += 7
        }
        if hasType {
            parts.append(temperatureType(b[i]))
            fields.append(.init("type", .string(temperatureType(b[i]))))
        }
        return DecodedValue(parts.joined(separator: ", "), fields)
    }

    /// Temperature Type 0x2A1D: where on the body.
    static func temperatureType(_ v: UInt8) -> String {
        let names = ["Armpit", "Body (general)", "Ear (usually earlobe)", "Finger", "Gastro-intestinal Tract",
                     "Mouth", "Rectum", "Toe", "Tympanum (ear drum)"]
        return v >= 1 && Int(v) <= names.count ? names[Int(v) - 1] : "Reserved type (\(v))"
    }

    /// Date Time 0x2A08 at `i` (7 bytes): year (u16, 0 = unknown), month, day, h, m, s.
    static func dateTime(_ b: Bytes, _ i: Int) -> String {
        let year = le16(b, i)
        let date = (year == 0 ? "????" : pad(Int(year), 4)) + "-" + pad(Int(b[i + 2]), 2) + "-" + pad(Int(b[i + 3]), 2)
        return date + " " + pad(Int(b[i + 4]), 2) + ":" + pad(Int(b[i + 5]), 2) + ":" + pad(Int(b[i + 6]), 2)
    }

    /// Current Time 0x2A2B: Exact Time 256 (Day Date Time and 1/256 s) and the adjust reason.
    static func currentTime(_ b: Bytes) -> DecodedValue {
        guard b.count == 10 else { return malformed("Current Time", b) }
        let days = ["", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        let time = dateTime(b, 0) + "." + pad(Int(b[8]) * 1000 / 256, 3)
        var out = time
        var fields: [DecodedValue.Field] = [.init("time", .string(time))]
        if b[7] != 0 {
            let day = Int(b[7]) < days.count ? days[Int(b[7])] : "day \(b[7])?"
            out += " " + day
            fields.append(.init("weekday", .string(day)))
        }
        let reasons = ["manual update", "external reference", "time zone change", "DST change"]
        let set = reasons.enumerated().filter { b[9] & (1 << $0.offset) != 0 }.map(\.element)
        if !set.isEmpty { out += ", adjusted: " + set.joined(separator: ", ") }
        fields.append(.init("adjusted", .array(set.map { .string($0) })))
        return DecodedValue(out, fields)
    }

    /// CSC Measurement 0x2A5B: cumulative wheel revolutions (u32) and crank revolutions
    /// (u16), each with the time of the last event in 1/1024 s. Speed and cadence are the
    /// differences between two notifications.
    static func cscMeasurement(_ b: Bytes) -> DecodedValue {
        let what = "CSC Measurement"
        guard let flags = b.first else { return malformed(what, b) }
        let wheel = flags & 0x01 != 0, crank = flags & 0x02 != 0
        guard b.count >= 1 + (wheel ? 6 : 0) + (crank ? 4 : 0) else { return malformed(what, b) }
        var parts: [String] = []
        var fields: [DecodedValue.Field] = []
        var i = 1
        if wheel {
            let time = Double(le16(b, i + 4)) / 1024
            parts.append("wheel \(le32(b, i)) revs @ \(formatFixed(time, 3)) s")
            fields += [.init("wheelRevolutions", .number(Double(le32(b, i)))), .init("wheelEventTime", .rounded(time, 3))]
            i += 6
        }
        if crank {
            let time = Double(le16(b, i + 2)) / 1024
            parts.append("crank \(le16(b, i)) revs @ \(formatFixed(time, 3)) s")
            fields += [.init("crankRevolutions", .number(Double(le16(b, i)))), .init("crankEventTime", .rounded(time, 3))]
        }
        return DecodedValue(parts.isEmpty ? "no data" : parts.joined(separator: ", "), fields)
    }

    /// RSC Measurement 0x2A53: speed (1/256 m/s), cadence (/min), optional stride length
    /// (cm) and total distance (dm), walking or running.
    static func rscMeasurement(_ b: Bytes) -> DecodedValue {
        let what = "RSC Measurement"
        guard let flags = b.first else { return malformed(what, b) }
        let stride = flags & 0x01 != 0, distance = flags & 0x02 != 0
        guard b.count >= 4 + (stride ? 2 : 0) + (distance ? 4 : 0) else { return malformed(what, b) }
        let speed = Double(le16(b, 1)) / 256
        let running = flags & 0x04 != 0
        var parts = [running ? "running" : "walking",
                     "\(formatFixed(speed, 2)) m/s (\(formatFixed(speed * 3.6, 1)) km/h)", "\(b[3]) steps/min"]
        var fields: [DecodedValue.Field] = [.init("running", .bool(running)), .init("speedMps", .rounded(speed, 2)),
                                            .init("cadence", .number(Double(b[3])))]
        var i = 4
        if stride {
            parts.append("stride \(formatFixed(Double(le16(b, i)) / 100, 2)) m")
            fields.append(.init("strideM", .rounded(Double(le16(b, i)) / 100, 2)))
            i += 2
        }
        if distance {
            parts.append("total \(formatFixed(Double(le32(b, i)) / 10, 1)) m")
            fields.append(.init("distanceM", .rounded(Double(le32(b, i)) / 10, 1)))
        }
        return DecodedValue(parts.joined(separator: ", "), fields)
    }

    /// Pressure 0x2A6D: u32 in 0.1 Pa.
    static func pressure(_ b: Bytes) -> DecodedValue {
        guard b.count == 4 else { return malformed("Pressure", b) }
        let pa = Double(le32(b, 0)) / 10
        return DecodedValue("\(formatFixed(pa, 1)) Pa (\(formatFixed(pa / 100, 2)) hPa)", [.init("pascal", .rounded(pa, 1))])
    }

    /// Appearance 0x2A01: u16, named from the assigned-numbers table.
    static func appearance(_ b: Bytes) -> DecodedValue {
        guard b.count == 2 else { return malformed("Appearance", b) }
        let v = le16(b, 0)
        let name = AssignedNumbers.appearanceName(v) ?? "Unknown appearance"
        return DecodedValue(name + " (0x\(hex4(v).uppercased()))", [.init("appearance", .string(name)), .init("raw", .number(Double(v)))])
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}

func le32(_ b: Bytes, _ i: Int) -> UInt32 {
    UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
}
