@preconcurrency import CDBus

/// DBusValue <-> DBusMessageIter. Appending validates the whole value first (libdbus
/// aborts on what it considers misuse); reading trusts libdbus, which validated the
/// incoming message, and owns every file descriptor it reads (`h`: DBusFD).
enum DBusMarshal {
    /// Appends `values` as the message body. Nothing is appended when any is invalid.
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws(DBusError) {
        for v in values { try DBusValidate.value(v) }
        // The body signature is limited to 255 bytes; libdbus would refuse it mid-append.
        try DBusValidate.signature(values.map(\.signature).joined())
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for v in values {
            guard appendValue(v, &iter) else { throw outOfMemory }
        }
    }

    /// Reads the whole body.
    static func read(_ message: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var iter = DBusMessageIter()
        // FALSE means an empty body, not an error.
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        return try readAll(&iter)
    }

    private static let outOfMemory = DBusError(name: "org.freedesktop.DBus.Error.NoMemory",
                                               message: "libdbus ran out of memory while appending")

    // MARK: appending (values already validated)

    private static func appendValue(_ v: DBusValue, _ it: inout DBusMessageIter) -> Bool {
        switch v {
        case let .byte(x): return basic(bx_dbus_type_byte(), x, &it)
        case let .bool(x): return basic(bx_dbus_type_boolean(), dbus_bool_t(x ? 1 : 0), &it)
        case let .int16(x): return basic(bx_dbus_type_int16(), x, &it)
        case let .uint16(x): return basic(bx_dbus_type_uint16(), x, &it)
        case let .int32(x): return basic(bx_dbus_type_int32(), x, &it)
        case let .uint32(x): return basic(bx_dbus_type_uint32(), x, &it)
        case let .int64(x): return basic(bx_dbus_type_int64(), x, &it)
        case let .uint64(x): return basic(bx_dbus_type_uint64(), x, &it)
        case let .double(x): return basic(bx_dbus_type_double(), x, &it)
        case let .unixFD(f): return basic(bx_dbus_type_unix_fd(), f.rawValue, &it)   // libdbus dups it
        case let .string(s): return s.withCString { bx_dbus_append_string(&it, bx_dbus_type_string(), $0) != 0 }
        case let .objectPath(s): return s.withCString { bx_dbus_append_string(&it, bx_dbus_type_object_path(), $0) != 0 }
        case let .signature(s): return s.withCString { bx_dbus_append_string(&it, bx_dbus_type_signature(), $0) != 0 }
        case let .variant(inner):
            return container(bx_dbus_type_variant(), inner.signature, &it) { sub in appendValue(inner, &sub) }
        case let .bytes(b):
            return container(bx_dbus_type_array(), "y", &it) { sub in
                // An empty array is just the open/close pair: nothing to append.
                b.isEmpty || b.withUnsafeBufferPointer { bx_dbus_append_bytes(&sub, $0.baseAddress, Int32($0.count)) != 0 }
            }
        case let .array(element, items):
            return container(bx_dbus_type_array(), element, &it) { sub in
                items.allSatisfy { appendValue($0, &sub) }
            }
        case let .dict(key, value, entries):
            return container(bx_dbus_type_array(), "{" + key + value + "}", &it) { sub in
                entries.allSatisfy { e in
                    container(bx_dbus_type_dict_entry(), nil, &sub) { entry in
                        appendValue(e.key, &entry) && appendValue(e.value, &entry)
                    }
                }
            }
        case let .structure(fields):
            return container(bx_dbus_type_struct(), nil, &it) { sub in fields.allSatisfy { appendValue($0, &sub) } }
        }
    }

    private static func basic<T>(_ type: Int32, _ value: T, _ it: inout DBusMessageIter) -> Bool {
        var v = value
        return withUnsafePointer(to: &v) { dbus_message_iter_append_basic(&it, type, $0) != 0 }
    }

    /// Structs and dict entries take no contained signature; arrays and variants must.
    private static func container(_ type: Int32, _ signature: String?, _ it: inout DBusMessageIter,
                                  _ body: (inout DBusMessageIter) -> Bool) -> Bool {
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&it, type, $0, &sub) != 0 }
        } else {
            opened = dbus_message_iter_open_container(&it, type, nil, &sub) != 0
        }
        guard opened else { return false }
        guard body(&sub) else {
            dbus_message_iter_abandon_container(&it, &sub)
            return false
        }
        return dbus_message_iter_close_container(&it, &sub) != 0
    }

    // MARK: reading

    private static func readAll(_ it: inout DBusMessageIter, count: Int = 0) throws(DBusError) -> [DBusValue] {
        var out: [DBusValue] = []
        out.reserveCapacity(count)
        while dbus_message_iter_get_arg_type(&it) != bx_dbus_type_invalid() {
            out.append(try readValue(&it))
            dbus_message_iter_next(&it)
        }
        return out
    }

    private static func readValue(_ it: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&it)
        switch type {
        case bx_dbus_type_byte(): return .byte(getBasic(&it, UInt8(0)))
        case bx_dbus_type_boolean(): return .bool(getBasic(&it, dbus_bool_t(0)) != 0)
        case bx_dbus_type_int16(): return .int16(getBasic(&it, Int16(0)))
        case bx_dbus_type_uint16(): return .uint16(getBasic(&it, UInt16(0)))
        case bx_dbus_type_int32(): return .int32(getBasic(&it, Int32(0)))
        case bx_dbus_type_uint32(): return .uint32(getBasic(&it, UInt32(0)))
        case bx_dbus_type_int64(): return .int64(getBasic(&it, Int64(0)))
        case bx_dbus_type_uint64(): return .uint64(getBasic(&it, UInt64(0)))
        case bx_dbus_type_double(): return .double(getBasic(&it, Double(0)))
        // libdbus hands out a duplicate, ours to close (DBusFD does, unless taken).
        case bx_dbus_type_unix_fd(): return .unixFD(DBusFD(owning: getBasic(&it, Int32(-1))))
        case bx_dbus_type_string(): return .string(getString(&it))
        case bx_dbus_type_object_path(): return .objectPath(getString(&it))
        case bx_dbus_type_signature(): return .signature(getString(&it))
        case bx_dbus_type_variant():
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&it, &sub)
            return .variant(try readValue(&sub))
        case bx_dbus_type_struct():
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&it, &sub)
            return .structure(try readAll(&sub))
        case bx_dbus_type_array():
            return try readArray(&it)
        default:
            let c = UnicodeScalar(UInt8(truncatingIfNeeded: type))
            throw .invalidArgs("unsupported D-Bus type '\(Character(c))'")
        }
    }

    private static func readArray(_ it: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        // The iterator's signature is the array's own complete type ("a{sv}"), which
        // keeps the element type even when the array is empty.
        let full = iterSignature(&it)
        let element = String(full.dropFirst())
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&it, &sub)
        let elementType = dbus_message_iter_get_element_type(&it)
        if elementType == bx_dbus_type_byte() {
            var n: Int32 = 0
            guard let p = bx_dbus_get_bytes(&sub, &n), n > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeBufferPointer(start: p, count: Int(n))))
        }
        // Each array is made once at its final size. Grown by appending, it left every
        // buffer it outgrew as a hole between the values kept: after a snapshot of a
        // thousand devices, glibc handed libdbus's 184-byte message header for each
        // message received from one of 494 such holes in turn, a cold page each time,
        // where it now cycles through 20 (docs/bench.md). Counting walks the array's
        // elements once, skipping each by its length.
        let count = max(0, Int(dbus_message_iter_get_element_count(&it)))
        if elementType == bx_dbus_type_dict_entry() {
            // "{kv}": one basic key character, then the value's complete type.
            let inner = element.dropFirst().dropLast()
            let key = String(inner.prefix(1)), value = String(inner.dropFirst())
            var entries: [DBusDictEntry] = []
            entries.reserveCapacity(count)
            while dbus_message_iter_get_arg_type(&sub) == bx_dbus_type_dict_entry() {
                var entry = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &entry)
                let k = try readValue(&entry)
                dbus_message_iter_next(&entry)
                let v = try readValue(&entry)
                entries.append(DBusDictEntry(k, v))
                dbus_message_iter_next(&sub)
            }
            return .dict(key: key, value: value, entries)
        }
        return .array(element: element, try readAll(&sub, count: count))
    }

    private static func getBasic<T>(_ it: inout DBusMessageIter, _ initial: T) -> T {
        var v = initial
        withUnsafeMutablePointer(to: &v) { dbus_message_iter_get_basic(&it, $0) }
        return v
    }

    private static func getString(_ it: inout DBusMessageIter) -> String {
        guard let p = bx_dbus_get_string(&it) else { return "" }
        return String(cString: p)
    }

    static func iterSignature(_ it: inout DBusMessageIter) -> String {
        // Returned memory belongs to us and goes back through dbus_free, not free().
        guard let p = dbus_message_iter_get_signature(&it) else { return "" }
        defer { dbus_free(p) }
        return String(cString: p)
    }
}
