#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// How a characteristic's bytes are shown; `f` cycles through them per characteristic.
/// Every format takes any bytes: too few for the type gives "(n bytes: too short)".
public enum ValueFormat: String, CaseIterable, Equatable, Sendable {
    case decoded, hex, utf8 = "UTF-8", ascii = "ASCII"
    case u8, s8, u16le = "u16 LE", u16be = "u16 BE", s16le = "s16 LE", s16be = "s16 BE"
    case u32le = "u32 LE", u32be = "u32 BE", s32le = "s32 LE", s32be = "s32 BE"
    case u64le = "u64 LE", u64be = "u64 BE", s64le = "s64 LE", s64be = "s64 BE"
    case float32 = "float32 LE", float64 = "float64 LE", sfloat = "SFLOAT (11073)", float11073 = "FLOAT (11073)"

    public var next: ValueFormat {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }
    public var previous: ValueFormat {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + all.count - 1) % all.count]
    }

    /// The bytes in this format. `uuid` picks the decoder for `.decoded` (hex when none).
    public func render(_ b: Bytes, uuid: BLEUUID) -> String {
        switch self {
        case .decoded: return ValueDecoder.decode(uuid, b) ?? Explorer.hex(b)
        case .hex: return Explorer.hex(b)
        case .utf8: return "\"" + ValueDecoder.printableText(b) + "\""
        case .ascii:
            return "\"" + String(b.map { $0 >= 0x20 && $0 < 0x7F ? Character(Unicode.Scalar($0)) : "·" }) + "\""
        case .u8: return ints(b, 1) { String($0.first!) }
        case .s8: return ints(b, 1) { String(Int8(bitPattern: $0.first!)) }
        case .u16le: return ints(b, 2) { String(Self.unsigned($0, littleEndian: true)) }
        case .u16be: return ints(b, 2) { String(Self.unsigned($0, littleEndian: false)) }
        case .s16le: return ints(b, 2) { String(Int16(truncatingIfNeeded: Self.unsigned($0, littleEndian: true))) }
        case .s16be: return ints(b, 2) { String(Int16(truncatingIfNeeded: Self.unsigned($0, littleEndian: false))) }
        case .u32le: return ints(b, 4) { String(Self.unsigned($0, littleEndian: true)) }
        case .u32be: return ints(b, 4) { String(Self.unsigned($0, littleEndian: false)) }
        case .s32le: return ints(b, 4) { String(Int32(truncatingIfNeeded: Self.unsigned($0, littleEndian: true))) }
        case .s32be: return ints(b, 4) { String(Int32(truncatingIfNeeded: Self.unsigned($0, littleEndian: false))) }
        case .u64le: return ints(b, 8) { String(Self.unsigned($0, littleEndian: true)) }
        case .u64be: return ints(b, 8) { String(Self.unsigned($0, littleEndian: false)) }
        case .s64le: return ints(b, 8) { String(Int64(bitPattern: Self.unsigned($0, littleEndian: true))) }
        case .s64be: return ints(b, 8) { String(Int64(bitPattern: Self.unsigned($0, littleEndian: false))) }
        case .float32:
            return ints(b, 4) { "\(Float(bitPattern: UInt32(Self.unsigned($0, littleEndian: true))))" }
        case .float64:
            return ints(b, 8) { "\(Double(bitPattern: Self.unsigned($0, littleEndian: true)))" }
        case .sfloat: return ints(b, 2) { Self.sfloat(UInt16(Self.unsigned($0, littleEndian: true))) }
        case .float11073: return ints(b, 4) { Self.float11073(UInt32(Self.unsigned($0, littleEndian: true))) }
        }
    }

    /// Consecutive values of `size` bytes; a remainder is shown as hex.
    private func ints(_ b: Bytes, _ size: Int, _ one: (ArraySlice<UInt8>) -> String) -> String {
        guard b.count >= size else { return "(\(b.count) byte\(b.count == 1 ? "" : "s"): too short for \(rawValue))" }
        var parts: [String] = []
        var i = 0
        while i + size <= b.count, parts.count < 64 {
            parts.append(one(b[i..<i + size]))
            i += size
        }
        if i < b.count { parts.append("+ " + Explorer.hex(b[i...])) }
        return parts.joined(separator: " ")
    }

    static func unsigned(_ s: ArraySlice<UInt8>, littleEndian: Bool) -> UInt64 {
        var v: UInt64 = 0
        for byte in (littleEndian ? Array(s.reversed()) : Array(s)) { v = v << 8 | UInt64(byte) }
        return v
    }

    /// IEEE 11073-20601 16-bit SFLOAT: 4-bit exponent, 12-bit mantissa, both signed.
    public static func sfloat(_ raw: UInt16) -> String {
        switch raw {
        case 0x07FF: return "NaN"
        case 0x0800: return "NRes"
        case 0x07FE: return "+INF"
        case 0x0802: return "-INF"
        case 0x0801: return "Reserved"
        default: break
        }
        var mantissa = Int(raw & 0x0FFF)
        if mantissa >= 0x0800 { mantissa -= 0x1000 }
        var exponent = Int(raw >> 12)
        if exponent >= 0x8 { exponent -= 0x10 }
        return scaled(mantissa, exponent)
    }

    /// IEEE 11073-20601 32-bit FLOAT: 8-bit exponent, 24-bit mantissa, both signed.
    public static func float11073(_ raw: UInt32) -> String {
        switch raw {
        case 0x007F_FFFF: return "NaN"
        case 0x0080_0000: return "NRes"
        case 0x007F_FFFE: return "+INF"
        case 0x0080_0002: return "-INF"
        case 0x0080_0001: return "Reserved"
        default: break
        }
        var mantissa = Int(raw & 0x00FF_FFFF)
        if mantissa >= 0x0080_0000 { mantissa -= 0x0100_0000 }
        let exponent = Int(Int8(bitPattern: UInt8(raw >> 24)))
        return scaled(mantissa, exponent)
    }

    /// mantissa x 10^exponent, exactly as a decimal string.
    static func scaled(_ mantissa: Int, _ exponent: Int) -> String {
        if exponent >= 0 {
            return exponent > 30 ? "\(mantissa)e\(exponent)" : String(mantissa) + String(repeating: "0", count: mantissa == 0 ? 0 : exponent)
        }
        let decimals = -exponent
        if decimals > 30 { return "\(mantissa)e\(exponent)" }
        var digits = String(abs(mantissa))
        while digits.count <= decimals { digits = "0" + digits }
        let cut = digits.index(digits.endIndex, offsetBy: -decimals)
        return (mantissa < 0 ? "-" : "") + digits[..<cut] + "." + digits[cut...]
    }
}
