import Explorer
import DBus

/// Turns fuzz bytes into D-Bus values of any shape: each value's type is chosen from
/// the bytes first, then a value of that type (so arrays hold what their signature
/// says, as a real bus delivers them), with names and strings taken half the time from
/// what BlueZ sends, so that the translation meets its own property names at wrong types.
struct FuzzValues {
    let bytes: Bytes
    var at = 0
    init(_ bytes: Bytes) { self.bytes = bytes }

    var exhausted: Bool { at >= bytes.count }

    mutating func byte() -> UInt8 {
        guard at < bytes.count else { return 0 }
        defer { at += 1 }
        return bytes[at]
    }

    mutating func pick<T>(_ options: [T]) -> T { options[Int(byte()) % options.count] }

    mutating func take(_ n: Int) -> Bytes {
        let end = min(bytes.count, at + n)
        defer { at = end }
        return Array(bytes[at..<end])
    }

    static let properties = ["Address", "AddressType", "Name", "Alias", "RSSI", "TxPower", "UUIDs", "ManufacturerData",
                             "ServiceData", "AdvertisingFlags", "Appearance", "Connected", "ServicesResolved", "Paired",
                             "Bonded", "Trusted", "Blocked", "Powered", "Discovering", "UUID", "Primary", "Flags", "Value",
                             "Notifying", "MTU", "Adapter", "Device", "Service", "Characteristic"]
    static let interfaces = ["org.bluez.Device1", "org.bluez.Adapter1", "org.bluez.GattService1",
                             "org.bluez.GattCharacteristic1", "org.bluez.GattDescriptor1", "org.bluez.Battery1",
                             "org.freedesktop.DBus.Properties"]
    static let paths = ["/org/bluez/hci0", "/org/bluez/hci0/dev_E4_1C_22_5D_90_11", "/org/bluez/hci0/dev_C0_FF_EE_00_00_01",
                        "/org/bluez/hci0/dev_E4_1C_22_5D_90_11/service000a",
                        "/org/bluez/hci0/dev_E4_1C_22_5D_90_11/service000a/char000b",
                        "/org/bluez/hci0/dev_E4_1C_22_5D_90_11/service000a/char000b/desc000d",
                        "/org/bluez/hci1", "/", "/org/bluez", "/org/bluez/hci0/dev_X/a/b/c/d"]
    static let strings = ["E4:1C:22:5D:90:11", "C0:FF:EE:00:00:01", "0000180d-0000-1000-8000-00805f9b34fb",
                          "00002a37-0000-1000-8000-00805f9b34fb", "0000feaa-0000-1000-8000-00805f9b34fb", "public", "random",
                          "read", "notify", "write", "HRM \u{1B}[2J", "\u{202E}evil", "org.bluez", ":1.9", ""]

    mutating func string() -> String {
        if byte() & 1 == 0 { return pick(Self.strings + Self.properties) }
        return String(decoding: take(Int(byte() % 24)), as: UTF8.self)
    }

    mutating func path() -> String {
        if byte() & 3 != 0 { return pick(Self.paths) }
        return "/org/bluez/hci0/" + String(decoding: take(Int(byte() % 12)), as: UTF8.self)
    }

    indirect enum Kind {
        case basic(Character)
        case array(Kind)
        case dict(Character, Kind)
        case variant
        case structure([Kind])

        var signature: String {
            switch self {
            case let .basic(c): return String(c)
            case let .array(k): return "a" + k.signature
            case let .dict(k, v): return "{" + String(k) + v.signature + "}"
            case .variant: return "v"
            case let .structure(ks): return "(" + ks.map(\.signature).joined() + ")"
            }
        }
    }

    static let basics: [Character] = ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g"]

    mutating func kind(depth: Int) -> Kind {
        let b = byte()
        if depth >= 4 { return .basic(Self.basics[Int(b) % Self.basics.count]) }
        switch b % 16 {
        case 0..<9: return .basic(Self.basics[Int(b >> 4) % Self.basics.count])
        case 9, 10: return .array(kind(depth: depth + 1))
        case 11, 12: return .array(.dict(pick(["s", "q", "o", "y", "u"]), kind(depth: depth + 1)))
        case 13, 14: return .variant
        default: return .structure((0..<(1 + Int(byte() % 3))).map { _ in kind(depth: depth + 1) })
        }
    }

    mutating func value(_ k: Kind, depth: Int = 0) -> DBusValue {
        switch k {
        case let .basic(c): return basic(c)
        case .array(.basic("y")): return .bytes(take(Int(byte()) % 40))
        case let .array(.dict(key, v)):
            let n = exhausted ? 0 : Int(byte() % 6)
            return .dict(key: String(key), value: v.signature, (0..<n).map { _ in
                DBusDictEntry(key == "s" && byte() & 1 == 0 ? .string(pick(Self.properties)) : basic(key), value(v, depth: depth + 1))
            })
        case let .array(element):
            let n = exhausted ? 0 : Int(byte() % 6)
            return .array(element: element.signature, (0..<n).map { _ in value(element, depth: depth + 1) })
        case .dict: return basic("s")   // not a complete type outside an array
        case .variant: return .variant(depth >= 4 ? basic("s") : value(kind(depth: depth + 1), depth: depth + 1))
        case let .structure(ks): return .structure(ks.map { value($0, depth: depth + 1) })
        }
    }

    mutating func basic(_ c: Character) -> DBusValue {
        func wide() -> UInt64 { take(8).reduce(0) { $0 << 8 | UInt64($1) } }
        switch c {
        case "y": return .byte(byte())
        case "b": return .bool(byte() & 1 == 1)
        case "n": return .int16(Int16(truncatingIfNeeded: wide()))
        case "q": return .uint16(UInt16(truncatingIfNeeded: wide()))
        case "i": return .int32(Int32(truncatingIfNeeded: wide()))
        case "u": return .uint32(UInt32(truncatingIfNeeded: wide()))
        case "x": return .int64(Int64(truncatingIfNeeded: wide()))
        case "t": return .uint64(wide())
        case "d": return .double(Double(bitPattern: wide()))
        case "o": return .objectPath(path())
        case "g": return .signature(pick(["", "s", "a{sv}", "ay", "n", "(ii)"]))
        default: return .string(string())
        }
    }

    /// Any value at all.
    mutating func any() -> DBusValue { value(kind(depth: 1), depth: 1) }

    /// A property bag, `a{sv}`: BlueZ's names, values of any type (a third of the time the
    /// right one would be a coincidence).
    mutating func properties() -> DBusValue {
        let n = Int(byte() % 8)
        return .dict(key: "s", value: "v", (0..<n).map { _ in DBusDictEntry(.string(pick(Self.properties)), .variant(any())) })
    }

    /// `a{sa{sv}}`.
    mutating func interfaceMap() -> DBusValue {
        let n = Int(byte() % 3) + 1
        return .dict(key: "s", value: "a{sv}", (0..<n).map { _ in DBusDictEntry(.string(pick(Self.interfaces)), properties()) })
    }

    /// A GetManagedObjects reply, `a{oa{sa{sv}}}` (or, now and then, anything).
    mutating func managedObjects() -> DBusValue {
        if byte() % 16 == 0 { return any() }
        let n = Int(byte() % 6) + 1
        return .dict(key: "o", value: "a{sa{sv}}", (0..<n).map { _ in DBusDictEntry(.objectPath(path()), interfaceMap()) })
    }
}
