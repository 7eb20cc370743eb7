import DBus

/// Strict readers for BlueZ's properties: each property has one D-Bus type in BlueZ's
/// documentation (doc/org.bluez.Device.rst: RSSI `n`, TxPower `n`, Appearance `q`,
/// ManufacturerData `a{qv}`, UUIDs `as`, ...), and a value of any other type is not that
/// property. `DBusValue.int` takes any integer, so an RSSI sent as an int64
/// (9223372036854775807) read as a number no screen can draw.
extension DBusValue {
    /// `n`, inside any variants.
    var strictInt16: Int? { if case let .int16(v) = unwrapped { return Int(v) }; return nil }
    /// `q`, inside any variants.
    var strictUInt16: Int? { if case let .uint16(v) = unwrapped { return Int(v) }; return nil }
    /// `s` only (not an object path or signature).
    var strictString: String? { if case let .string(s) = unwrapped { return s }; return nil }
    /// `as` only.
    var strictStrings: [String]? {
        guard case let .array("s", items) = unwrapped else { return nil }
        var out: [String] = []
        out.reserveCapacity(items.count)
        for i in items { guard case let .string(s) = i else { return nil }; out.append(s) }
        return out
    }
    /// `a{K V}` with exactly these key and value signatures.
    func strictEntries(key: String, value: String) -> [DBusDictEntry]? {
        guard case let .dict(k, v, e) = unwrapped, k == key, v == value else { return nil }
        return e
    }
}
