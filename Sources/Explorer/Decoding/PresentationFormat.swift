/// Characteristic Presentation Format descriptor (0x2904): how the device says its value
/// is to be read. 7 bytes: format, exponent (sint8, base 10), unit (0x27xx), namespace,
/// description. A characteristic that has one is shown with it unless the user picks a
/// format (`f`): sint16 with exponent -2 and unit 0x272F makes `29 09` read "23.45 °C".
public struct PresentationFormat: Equatable, Sendable {
    public var format: UInt8
    public var exponent: Int8
    public var unit: UInt16
    public var namespace: UInt8
    public var description: UInt16

    /// nil unless exactly 7 bytes (anything else is not a presentation format).
    public init?(_ b: Bytes) {
        guard b.count == 7 else { return nil }
        format = b[0]
        exponent = Int8(bitPattern: b[1])
        unit = le16(b, 2)
        namespace = b[4]
        description = le16(b, 5)
    }

    public init(format: UInt8, exponent: Int8 = 0, unit: UInt16 = 0x2700, namespace: UInt8 = 1, description: UInt16 = 0) {
        self.format = format; self.exponent = exponent; self.unit = unit
        self.namespace = namespace; self.description = description
    }

    /// GATT format types (Assigned Numbers 2.4.1): name and size in bytes (0: variable).
    static let formats: [UInt8: (name: String, size: Int)] = [
        0x01: ("boolean", 1), 0x02: ("2bit", 1), 0x03: ("nibble", 1), 0x04: ("uint8", 1), 0x05: ("uint12", 2),
        0x06: ("uint16", 2), 0x07: ("uint24", 3), 0x08: ("uint32", 4), 0x09: ("uint48", 6), 0x0A: ("uint64", 8),
        0x0B: ("uint128", 16), 0x0C: ("sint8", 1), 0x0D: ("sint12", 2), 0x0E: ("sint16", 2), 0x0F: ("sint24", 3),
        0x10: ("sint32", 4), 0x11: ("sint48", 6), 0x12: ("sint64", 8), 0x13: ("sint128", 16), 0x14: ("float32", 4),
        0x15: ("float64", 8), 0x16: ("SFLOAT", 2), 0x17: ("FLOAT", 4), 0x18: ("duint16", 4), 0x19: ("utf8s", 0),
        0x1A: ("utf16s", 0), 0x1B: ("struct", 0),
    ]

    public var formatName: String { Self.formats[format]?.name ?? "format 0x" + hex([format]) }

    /// "sint16, exponent -2, °C" for the descriptor line.
    public var summary: String {
        var parts = [formatName]
        if exponent != 0 { parts.append("exponent \(exponent)") }
        if let name = AssignedNumbers.unitName(unit), unit != 0x2700 {
            let symbol = AssignedNumbers.unitSymbol(unit) ?? ""
            parts.append(symbol.isEmpty ? name : symbol)
        } else if unit != 0x2700 {
            parts.append("unit 0x" + hex4(unit).uppercased())
        }
        return parts.joined(separator: ", ")
    }

    var unitSuffix: String {
        guard let symbol = AssignedNumbers.unitSymbol(unit), !symbol.isEmpty else { return "" }
        return " " + symbol
    }

    /// The value as this format describes it; nil for formats it does not cover (struct,
    /// 128-bit, unknown), so the caller falls back. A length that does not fit the format
    /// is "malformed".
    public func render(_ b: Bytes) -> String? {
        guard let (name, size) = Self.formats[format] else { return nil }
        switch format {
        case 0x19: return "\"" + ValueDecoder.printableText(b) + "\""
        case 0x1A, 0x1B, 0x0B, 0x13: return nil
        default: break
        }
        guard b.count == size else { return "malformed \(name) (\(b.count) byte\(b.count == 1 ? "" : "s"))" }
        switch format {
        case 0x01: return b[0] & 1 == 1 ? "true" : "false"
        case 0x14: return "\(Float(bitPattern: le32(b, 0)))" + unitSuffix
        case 0x15: return "\(Double(bitPattern: UInt64(le32(b, 0)) | UInt64(le32(b, 4)) << 32))" + unitSuffix
        case 0x16: return ValueFormat.sfloat(le16(b, 0)) + unitSuffix
        case 0x17: return ValueFormat.float11073(le32(b, 0)) + unitSuffix
        case 0x18: return "\(le16(b, 0)) \(le16(b, 2))"
        default:
            guard let v = integer(b) else { return nil }
            return ValueFormat.scaled(v, Int(exponent)) + unitSuffix
        }
    }

    /// `render` with the number and unit as fields for programs.
    public func decodedValue(_ b: Bytes) -> DecodedValue? {
        guard let text = render(b) else { return nil }
        if text.hasPrefix("malformed ") { return DecodedValue(text, malformed: true) }
        if format == 0x19 { return DecodedValue(text, [.init("text", .string(String(decoding: b, as: UTF8.self)))]) }
        if format == 0x01 { return DecodedValue(text, [.init("value", .bool(b[0] & 1 == 1))]) }
        var fields: [DecodedValue.Field] = [.init("value", number(b).map { .number($0) } ?? .string(text))]
        if unit != 0x2700, let name = AssignedNumbers.unitName(unit) {
            fields.append(.init("unit", .string(name)))
            if let symbol = AssignedNumbers.unitSymbol(unit), !symbol.isEmpty { fields.append(.init("symbol", .string(symbol))) }
        }
        return DecodedValue(text, fields)
    }

    /// The number, for sparklines.
    public func number(_ b: Bytes) -> Double? {
        guard let size = Self.formats[format]?.size, size > 0, b.count == size else { return nil }
        switch format {
        case 0x14: return Double(Float(bitPattern: le32(b, 0)))
        case 0x16, 0x17:
            return Double(render(b)?.split(separator: " ").first ?? "").flatMap { $0.isFinite ? $0 : nil }
        default:
            guard let v = integer(b) else { return nil }
            var scale = 1.0
            for _ in 0..<min(30, abs(Int(exponent))) { scale *= 10 }
            return exponent < 0 ? Double(v) / scale : Double(v) * scale
        }
    }

    /// Integer formats up to 64 bits, little-endian, sign-extended for sintN; masked to
    /// the format's width (uint12 uses 12 of its 16 bits). nil past Int's range.
    func integer(_ b: Bytes) -> Int? {
        let bits: Int
        let signed: Bool
        switch format {
        case 0x02: (bits, signed) = (2, false)
        case 0x03: (bits, signed) = (4, false)
        case 0x04, 0x06, 0x07, 0x08, 0x09, 0x0A: (bits, signed) = (b.count * 8, false)
        case 0x05: (bits, signed) = (12, false)
        case 0x0D: (bits, signed) = (12, true)
        case 0x0C, 0x0E, 0x0F, 0x10, 0x11, 0x12: (bits, signed) = (b.count * 8, true)
        default: return nil
        }
        var raw: UInt64 = 0
        for byte in b.reversed() { raw = raw << 8 | UInt64(byte) }
        if bits < 64 { raw &= (1 << UInt64(bits)) - 1 }
        if signed {
            let shift = UInt64(64 - bits)
            return Int(Int64(bitPattern: raw << shift) >> Int64(shift))
        }
        return raw <= UInt64(Int.max) ? Int(raw) : nil
    }
}
