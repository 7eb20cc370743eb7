@preconcurrency import CDBus

/// Owns one DBusMessage reference (every new/steal_reply/demarshal needs an unref).
final class DBusMessageRef {
    let raw: OpaquePointer
    init(owning raw: OpaquePointer) { self.raw = raw }
    /// Takes a new reference to a message libdbus lends us (in a filter).
    init(borrowing raw: OpaquePointer) { self.raw = dbus_message_ref(raw) }
    deinit { dbus_message_unref(raw) }

    var type: Int32 { dbus_message_get_type(raw) }
    var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    var destination: String? { dbus_message_get_destination(raw).map { String(cString: $0) } }
    var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
    var serial: UInt32 { dbus_message_get_serial(raw) }
    var noReply: Bool { dbus_message_get_no_reply(raw) != 0 }

    /// A method call, every field validated before libdbus sees it.
    static func methodCall(_ call: DBusCall) throws(DBusError) -> DBusMessageRef {
        try DBusValidate.busName(call.destination)
        try DBusValidate.path(call.path)
        try DBusValidate.interface(call.interface)
        try DBusValidate.member(call.member)
        guard let m = dbus_message_new_method_call(call.destination, call.path, call.interface, call.member) else {
            throw .invalidArgs("could not create a method call")
        }
        let msg = DBusMessageRef(owning: m)
        try DBusMarshal.append(call.args, to: m)
        return msg
    }

    static func signal(path: String, interface: String, member: String, args: [DBusValue]) throws(DBusError) -> DBusMessageRef {
        try DBusValidate.path(path)
        try DBusValidate.interface(interface)
        try DBusValidate.member(member)
        guard let m = dbus_message_new_signal(path, interface, member) else {
            throw .invalidArgs("could not create a signal")
        }
        let msg = DBusMessageRef(owning: m)
        try DBusMarshal.append(args, to: m)
        return msg
    }

    /// A reply built from the caller's name and serial alone, so that a reply can be
    /// sent long after the call's message is gone (deferred replies in exported objects).
    static func reply(toSerial serial: UInt32, destination: String?, _ reply: DBusReply) throws(DBusError) -> DBusMessageRef {
        if let destination { try DBusValidate.busName(destination) }
        let m: OpaquePointer?
        switch reply {
        case .values:
            m = dbus_message_new(DBUS_MESSAGE_TYPE_METHOD_RETURN)
        case let .error(e):
            try DBusValidate.errorName(e.name)
            try DBusValidate.string(e.message, "error message")
            m = dbus_message_new(DBUS_MESSAGE_TYPE_ERROR)
            if let m, dbus_message_set_error_name(m, e.name) == 0 { dbus_message_unref(m); return try fail() }
        case .deferred:
            throw .invalidArgs("a deferred reply has no message")
        }
        guard let m else { return try fail() }
        let msg = DBusMessageRef(owning: m)
        dbus_message_set_no_reply(m, 1)
        guard dbus_message_set_reply_serial(m, serial) != 0 else { return try fail() }
        if let destination, dbus_message_set_destination(m, destination) == 0 { return try fail() }
        switch reply {
        case let .values(v): try DBusMarshal.append(v, to: m)
        case let .error(e): if !e.message.isEmpty { try DBusMarshal.append([.string(e.message)], to: m) }
        case .deferred: break
        }
        return msg
    }

    private static func fail() throws(DBusError) -> DBusMessageRef {
        throw DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "could not build a reply")
    }

    /// An error reply as a DBusError: its name and its first string argument.
    var asError: DBusError {
        let args = (try? DBusMarshal.read(raw)) ?? []
        return DBusError(name: errorName ?? "org.freedesktop.DBus.Error.Failed", message: args.first?.string ?? "")
    }
}

extension DBusMarshal {
    /// Appends `values` to a message, serializes it to wire bytes and parses them back:
    /// the path a message takes through a socket, without a socket (for tests).
    static func roundTrip(_ values: [DBusValue]) throws(DBusError) -> [DBusValue] {
        let msg = try DBusMessageRef.methodCall(DBusCall(destination: "org.example.Peer", path: "/org/example",
                                                         interface: "org.example.Test", member: "Echo", args: values))
        // dbus_message_marshal refuses a message without a serial.
        dbus_message_set_serial(msg.raw, 1)
        var bytes: UnsafeMutablePointer<CChar>? = nil
        var length: Int32 = 0
        guard dbus_message_marshal(msg.raw, &bytes, &length) != 0, let bytes else {
            throw DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "marshal failed")
        }
        defer { dbus_free(bytes) }
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let back = dbus_message_demarshal(bytes, length, &err) else {
            throw DBusError(name: err.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.InvalidArgs",
                            message: err.message.map { String(cString: $0) } ?? "demarshal failed")
        }
        let parsed = DBusMessageRef(owning: back)
        return try withExtendedLifetime(parsed) { () throws(DBusError) in try DBusMarshal.read(parsed.raw) }
    }
}
