/// Raw bytes as they come from a device. Untrusted everywhere.
public typealias Bytes = [UInt8]

/// A peripheral is known by its Bluetooth address ("AA:BB:CC:DD:EE:FF"), as its backend
/// spells it (BlueZ: upper-case hex). Another spelling of the same address is another key.
public struct PeripheralID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// A GATT attribute (service, characteristic or descriptor) is known by its object path,
/// unique across the whole system (BlueZ: /org/bluez/hci0/dev_../service000c/char000d).
public struct AttributeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let path: String
    public init(_ path: String) { self.path = path }
    public var description: String { path }
    public static func < (a: Self, b: Self) -> Bool { a.path < b.path }

    /// The attribute handle BlueZ writes in the path's last part
    /// (`.../service0010/char0011/desc0013` is 0x0013), as nRF Connect shows it.
    public var handle: UInt16? {
        guard let last = path.split(separator: "/").last else { return nil }
        for prefix in ["desc", "char", "service"] where last.hasPrefix(prefix) {
            let digits = last.dropFirst(prefix.count)
            guard digits.count == 4, digits.allSatisfy({ $0.isHexDigit && $0.isASCII }) else { return nil }
            return UInt16(digits, radix: 16)
        }
        return nil
    }

    /// `0x0013`, or nil when the path names no handle.
    public var handleText: String? { handle.map { "0x" + hex4($0).uppercased() } }
}

public typealias CharacteristicID = AttributeID

/// A Bluetooth UUID, normalised so that `180D`, `0x180d` and
/// `0000180d-0000-1000-8000-00805f9b34fb` are the same key.
public struct BLEUUID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Lowercase 128-bit form with dashes.
    public let canonical: String
    /// The 16- or 32-bit value when the UUID is on the Bluetooth base: worked out once, as
    /// decoders and names ask for it at every value (it was 110 instructions of a recorded
    /// notification's line, callgrind 2026-12-06).
    public let shortValue: UInt32?

    private init(canonical: String) {
        self.canonical = canonical
        shortValue = canonical.hasSuffix(Self.baseSuffix) ? UInt32(canonical.prefix(8), radix: 16) : nil
    }

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
    /// The canonical form is the UUID (the short value follows from it).
    public static func == (a: Self, b: Self) -> Bool { a.canonical == b.canonical }
    public func hash(into h: inout Hasher) { h.combine(canonical) }
}

extension BLEUUID: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        guard let u = BLEUUID(value) else { preconditionFailure("invalid UUID literal \(value)") }
        self = u
    }
}

extension PeripheralID {
    /// A Bluetooth address as typed on a command line, in upper case; nil unless it is six
    /// pairs of hex digits separated by colons.
    public static func address(_ s: String) -> String? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return s.uppercased()
    }
}

extension StreamAssembly {
    /// `--eom TEXT`: 1 to 64 printable bytes; nil otherwise.
    public static func marker(_ text: String) -> Bytes? {
        guard !text.isEmpty, text.utf8.count <= 64, !text.unicodeScalars.contains(where: { TerminalSafe.isUnsafe($0) }) else { return nil }
        return Array(text.utf8)
    }
}
