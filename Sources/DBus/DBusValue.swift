/// A D-Bus value, typed: everything that crosses the bus in either direction. The
/// libdbus wrapper (DBusConnection, DBusMarshal) converts these to and from messages;
/// everything above it (the BlueZ backend) sees only these.
public indirect enum DBusValue: Equatable, Sendable {
    case byte(UInt8)                 // y
    case bool(Bool)                  // b
    case int16(Int16)                // n
    case uint16(UInt16)              // q
    case int32(Int32)                // i
    case uint32(UInt32)              // u
    case int64(Int64)                // x
    case uint64(UInt64)              // t
    case double(Double)              // d
    case string(String)              // s
    case objectPath(String)          // o
    case signature(String)           // g
    case variant(DBusValue)          // v
    /// A file descriptor (`h`), passed only over a Unix socket bus (AcquireNotify).
    case unixFD(DBusFD)
    /// `ay`, kept as bytes (the most common array in BlueZ: values, manufacturer data).
    case bytes([UInt8])
    /// Any other array; `element` is the element signature, so empty arrays keep their type.
    case array(element: String, [DBusValue])
    /// `a{..}`: key and value signatures, then the entries in order.
    case dict(key: String, value: String, [DBusDictEntry])
    /// `(...)`
    case structure([DBusValue])

    /// The D-Bus signature of this value.
    public var signature: String {
        switch self {
        case .byte: return "y"
        case .bool: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .variant: return "v"
        case .unixFD: return "h"
        case .bytes: return "ay"
        case let .array(element, _): return "a" + element
        case let .dict(k, v, _): return "a{" + k + v + "}"
        case let .structure(fields): return "(" + fields.map(\.signature).joined() + ")"
        }
    }
}

public struct DBusDictEntry: Equatable, Sendable {
    public var key: DBusValue
    public var value: DBusValue
    public init(_ key: DBusValue, _ value: DBusValue) { self.key = key; self.value = value }
}

// Convenience accessors: nil when the value is not of that type. BlueZ replies are
// untrusted input too, so the backend reads them only through these.
extension DBusValue {
    /// The value inside a variant (or the value itself).
    public var unwrapped: DBusValue {
        if case let .variant(v) = self { return v.unwrapped }
        return self
    }
    public var string: String? {
        switch unwrapped {
        case let .string(s), let .objectPath(s), let .signature(s): return s
        default: return nil
        }
    }
    public var bool: Bool? { if case let .bool(b) = unwrapped { return b }; return nil }
    public var int: Int? {
        switch unwrapped {
        case let .byte(v): return Int(v)
        case let .int16(v): return Int(v)
        case let .uint16(v): return Int(v)
        case let .int32(v): return Int(v)
        case let .uint32(v): return Int(v)
        case let .int64(v): return Int(v)
        case let .uint64(v): return v <= UInt64(Int.max) ? Int(v) : nil
        default: return nil
        }
    }
    public var bytes: [UInt8]? {
        switch unwrapped {
        case let .bytes(b): return b
        case let .array("y", items):
            var out: [UInt8] = []
            for i in items { guard case let .byte(b) = i else { return nil }; out.append(b) }
            return out
        default: return nil
        }
    }
    public var strings: [String]? {
        guard case let .array(_, items) = unwrapped else { return nil }
        var out: [String] = []
        for i in items { guard let s = i.string else { return nil }; out.append(s) }
        return out
    }
    public var fd: DBusFD? { if case let .unixFD(f) = unwrapped { return f }; return nil }
    public var entries: [DBusDictEntry]? {
        if case let .dict(_, _, e) = unwrapped { return e }
        return nil
    }
    /// `a{sv}` as a Swift dictionary (later duplicates win).
    public var stringKeyed: [String: DBusValue]? {
        guard let e = entries else { return nil }
        var out: [String: DBusValue] = [:]
        for entry in e { if let k = entry.key.string { out[k] = entry.value } }
        return out
    }

    /// `a{sv}` from a dictionary, keys sorted (stable messages, stable tests).
    public static func vardict(_ d: [String: DBusValue]) -> DBusValue {
        .dict(key: "s", value: "v", d.keys.sorted().map { DBusDictEntry(.string($0), .variant(d[$0]!)) })
    }
}
