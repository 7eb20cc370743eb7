@preconcurrency import CDBus

// libdbus treats a bad path, name or signature as a programming error: its checks
// print "arguments to dbus_... were incorrect" and abort the process. Everything that
// reaches libdbus from Swift goes through these first.
enum DBusValidate {
    /// libdbus strings are C strings: an embedded NUL would silently cut them (or, in a
    /// message, be rejected as invalid UTF-8 by the peer).
    static func string(_ s: String, _ what: String) throws(DBusError) {
        if s.utf8.contains(0) { throw .invalidArgs("\(what) contains a NUL byte") }
    }

    static func path(_ s: String) throws(DBusError) {
        try string(s, "object path")
        guard withValidator(s, dbus_validate_path) else { throw .invalidArgs("invalid object path '\(s)'") }
    }

    static func interface(_ s: String) throws(DBusError) {
        try string(s, "interface")
        guard withValidator(s, dbus_validate_interface) else { throw .invalidArgs("invalid interface '\(s)'") }
    }

    static func member(_ s: String) throws(DBusError) {
        try string(s, "member")
        guard withValidator(s, dbus_validate_member) else { throw .invalidArgs("invalid member '\(s)'") }
    }

    static func errorName(_ s: String) throws(DBusError) {
        try string(s, "error name")
        guard withValidator(s, dbus_validate_error_name) else { throw .invalidArgs("invalid error name '\(s)'") }
    }

    static func busName(_ s: String) throws(DBusError) {
        try string(s, "bus name")
        guard withValidator(s, dbus_validate_bus_name) else { throw .invalidArgs("invalid bus name '\(s)'") }
    }

    /// Zero or more complete types (a message body, a `g` value).
    static func signature(_ s: String) throws(DBusError) {
        try string(s, "signature")
        let ok = s.withCString { dbus_signature_validate($0, nil) != 0 }
        guard ok else { throw .invalidArgs("invalid signature '\(s)'") }
    }

    /// Exactly one complete type (an array element, a variant's content).
    static func singleType(_ s: String) throws(DBusError) {
        try string(s, "signature")
        let ok = s.withCString { dbus_signature_validate_single($0, nil) != 0 }
        guard ok else { throw .invalidArgs("invalid single complete type '\(s)'") }
    }

    /// Checks a value tree against the rules libdbus asserts while appending: declared
    /// element types match the items, dict keys are basic, strings have no NUL, paths
    /// and signatures are valid, the whole signature is within the depth limits.
    static func value(_ v: DBusValue) throws(DBusError) {
        try singleType(v.signature)
        try contents(v)
    }

    private static func contents(_ v: DBusValue) throws(DBusError) {
        switch v {
        case .byte, .bool, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double:
            return
        case let .unixFD(f):
            if f.rawValue < 0 { throw .invalidArgs("a file descriptor already taken (or none)") }
        case let .string(s):
            try string(s, "string")
        case let .objectPath(s):
            try path(s)
        case let .signature(s):
            try signature(s)
        case let .variant(inner):
            try contents(inner)
        case let .bytes(b):
            if b.count > Int(bx_dbus_maximum_array_length()) { throw .invalidArgs("byte array of \(b.count) bytes exceeds the D-Bus limit") }
        case let .array(element, items):
            // "a" + element passed the signature check; "{..}" elements pass it too but
            // are dicts, and DBusValue spells those one way only (reads give .dict).
            if element.hasPrefix("{") { throw .invalidArgs("array of '\(element)': use .dict for a{..}") }
            for item in items {
                guard item.signature == element else {
                    throw .invalidArgs("array of '\(element)' holds a '\(item.signature)'")
                }
                try contents(item)
            }
        case let .dict(key, value, entries):
            guard key.count == 1, "ybnqiuxtdsog".contains(key) else {
                throw .invalidArgs("dict key type '\(key)' is not a basic type")
            }
            for e in entries {
                guard e.key.signature == key, e.value.signature == value else {
                    throw .invalidArgs("dict a{\(key)\(value)} holds an entry {\(e.key.signature)\(e.value.signature)}")
                }
                try contents(e.key)
                try contents(e.value)
            }
        case let .structure(fields):
            for f in fields { try contents(f) }
        }
    }

    private static func withValidator(_ s: String,
                                      _ f: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t) -> Bool {
        s.withCString { f($0, nil) != 0 }
    }
}
