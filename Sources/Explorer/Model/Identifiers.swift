/// Raw bytes as they come from a device. Untrusted everywhere.
public typealias Bytes = [UInt8]

/// A peripheral is known by its Bluetooth address ("AA:BB:CC:DD:EE:FF").
///
/// Every advertisement looks its peripheral up by this key, and every update carries it,
/// so an address in its usual spelling (upper-case hex, as BlueZ writes it) is held as
/// its 48 bits: no heap object behind it (17 characters are too many for a small
/// String), nothing to retain or release when it is copied, one word to hash and compare.
/// Any other spelling (lower case, a test's name) is kept as its String. One spelling
/// always takes the same form, so equal keys are equal Strings, and `rawValue` gives
/// back exactly the String the key was made from.
public struct PeripheralID: Hashable, Comparable, Sendable, CustomStringConvertible {
    private enum Key: Sendable {
        case address(UInt64)
        case other(String)
    }
    private let key: Key

    public init(_ rawValue: String) {
        if let a = Self.pack(rawValue) { key = .address(a) } else { key = .other(rawValue) }
    }

    /// The peripheral whose address, in its usual spelling, has these 48 bits.
    public init(address: UInt64) {
        key = .address(address & 0xFFFF_FFFF_FFFF)
    }

    /// The address as its 48 bits, when it was written in the usual spelling.
    public var address: UInt64? {
        if case let .address(a) = key { return a }
        return nil
    }

    public var rawValue: String {
        switch key {
        case let .address(a): return Self.spell(a)
        case let .other(s): return s
        }
    }

    public var description: String { rawValue }

    public static func == (a: Self, b: Self) -> Bool {
        switch (a.key, b.key) {
        case let (.address(x), .address(y)): return x == y
        case let (.other(x), .other(y)): return x == y
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch key {
        case let .address(a): hasher.combine(a)
        case let .other(s): hasher.combine(s)
        }
    }

    /// What a Dictionary or Set hashes the key with. An address goes through `mix` instead
    /// of SipHash: two lookups a signal (device index, view-model) spent about 1 % of the
    /// ingest's time seeding and finalizing Hashers. Other text hashes as usual.
    public func _rawHashValue(seed: Int) -> Int {
        switch key {
        case let .address(a):
            return Self.mix(a, seed: seed)
        case let .other(s):
            var hasher = Hasher()
            hasher.combine(seed)
            hasher.combine(s)
            return hasher.finalize()
        }
    }

    /// A 64-bit key's hash for a table whose seed is `seed` (a table's seed comes from the
    /// process's random one): the seed, then SplitMix64's finalizer, a bijection in which
    /// every input bit moves every output bit. Without the seed a device, which picks its
    /// own address, cannot choose addresses that fall into one bucket.
    @inlinable
    public static func mix(_ value: UInt64, seed: Int) -> Int {
        var z = (value ^ UInt64(bitPattern: Int64(seed))) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(bitPattern: UInt(z ^ (z >> 31)))
    }

    public static func < (a: Self, b: Self) -> Bool {
        // Same length, digits before letters: the numbers sort as their spellings do.
        if case let .address(x) = a.key, case let .address(y) = b.key { return x < y }
        return a.rawValue < b.rawValue
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// "AA:BB:CC:DD:EE:FF" (upper-case hex, colons) as 48 bits; nil for any other text.
    static func pack(_ s: String) -> UInt64? {
        guard s.utf8.count == 17 else { return nil }
        var s = s
        return s.withUTF8 { parseAddress($0.baseAddress!, separator: UInt8(ascii: ":")) }
    }

    /// The 17 bytes at `p` as an address's 48 bits: six pairs of upper-case hex digits
    /// with `separator` between them (":" as an address is written, "_" as BlueZ writes
    /// it in a device's object path), or nil. Every bad character is noted in one flag:
    /// no branch per character (the advertising fast path reads one per signal).
    @inlinable
    public static func parseAddress(_ p: UnsafePointer<UInt8>, separator: UInt8) -> UInt64? {
        var value: UInt64 = 0
        var bad: UInt8 = 0
        for i in 0..<6 {
            let hi = hexDigit(p[3 * i]), lo = hexDigit(p[3 * i + 1])
            bad |= hi | lo
            if i < 5, p[3 * i + 2] != separator { bad |= notHex }
            value = value << 8 | UInt64(hi << 4 | lo)
        }
        return bad & notHex == 0 ? value : nil
    }

    @inlinable static var notHex: UInt8 { 0x80 }

    /// 0...15 for "0"..."9" and "A"..."F", `notHex` for anything else.
    @inlinable static func hexDigit(_ c: UInt8) -> UInt8 {
        let d = c &- UInt8(ascii: "0")
        if d < 10 { return d }
        let a = c &- UInt8(ascii: "A")
        return a < 6 ? a + 10 : notHex
    }

    static func spell(_ a: UInt64) -> String {
        String(unsafeUninitializedCapacity: 17) { out in
            for byte in 0..<6 {
                let v = Int(truncatingIfNeeded: a >> (40 - 8 * UInt64(byte))) & 0xFF
                out[byte * 3] = hexDigits[v >> 4]
                out[byte * 3 + 1] = hexDigits[v & 0xF]
                if byte < 5 { out[byte * 3 + 2] = UInt8(ascii: ":") }
            }
            return 17
        }
    }
}

/// A GATT attribute (service, characteristic or descriptor) is known by its object path,
/// unique across the whole system (BlueZ: /org/bluez/hci0/dev_../service000c/char000d).
public struct AttributeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let path: String
    public init(_ path: String) { self.path = path }
    public var description: String { path }
    public static func < (a: Self, b: Self) -> Bool { a.path < b.path }
}

public typealias CharacteristicID = AttributeID

/// A Bluetooth UUID, normalised so that `180D`, `0x180d` and
/// `0000180d-0000-1000-8000-00805f9b34fb` are the same key.
public struct BLEUUID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Lowercase 128-bit form with dashes.
    public let canonical: String

    private init(canonical: String) { self.canonical = canonical }

    static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    public init(short value: UInt32) {
        let hex = String(value, radix: 16)
        self.init(canonical: String(repeating: "0", count: max(0, 8 - hex.count)) + hex + Self.baseSuffix)
    }

    public init?(_ text: String) {
        var t = text.lowercased()
        if t.hasPrefix("0x") { t.removeFirst(2) }
        let isHex: (Character) -> Bool = { $0.isHexDigit && $0.isASCII }
        if (t.count == 4 || t.count == 8), t.allSatisfy(isHex), let v = UInt32(t, radix: 16) {
            self.init(short: v)
            return
        }
        let parts = t.split(separator: "-", omittingEmptySubsequences: false)
        let plain: String
        if parts.count == 5, parts.map(\.count) == [8, 4, 4, 4, 12] {
            plain = parts.joined()
        } else if parts.count == 1, t.count == 32 {
            plain = t
        } else {
            return nil
        }
        guard plain.allSatisfy(isHex) else { return nil }
        let c = Array(plain)
        self.init(canonical: String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-"
            + String(c[16..<20]) + "-" + String(c[20..<32]))
    }

    /// 128-bit UUID from 16 bytes in big-endian (network) order.
    public init(bigEndianBytes b: ArraySlice<UInt8>) {
        let hex = b.map { byte in
            let s = String(byte, radix: 16)
            return byte < 16 ? "0" + s : s
        }.joined()
        self.init(hex)!  // 32 hex digits always parse
    }

    /// The 16- or 32-bit value when the UUID is on the Bluetooth base.
    public var shortValue: UInt32? {
        guard canonical.hasSuffix(Self.baseSuffix) else { return nil }
        return UInt32(canonical.prefix(8), radix: 16)
    }

    /// `180D` for SIG UUIDs, the full uppercase form otherwise.
    public var description: String {
        if let v = shortValue {
            let hex = String(v, radix: 16, uppercase: true)
            let width = v > 0xFFFF ? 8 : 4
            return String(repeating: "0", count: max(0, width - hex.count)) + hex
        }
        return canonical.uppercased()
    }

    public static func < (a: Self, b: Self) -> Bool { a.canonical < b.canonical }
}

extension BLEUUID: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        guard let u = BLEUUID(value) else { preconditionFailure("invalid UUID literal \(value)") }
        self = u
    }
}
