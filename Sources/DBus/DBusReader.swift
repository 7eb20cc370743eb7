@preconcurrency import CDBus
@preconcurrency import Glibc

/// A read cursor over a received message's arguments, straight on libdbus's iterator:
/// no value tree, no String unless asked for one. For the few hot signals (BlueZ's
/// advertising PropertiesChanged, thousands a second in a busy room) where building a
/// `DBusValue` tree per message would cost more than libdbus's own parsing.
///
/// Only valid inside the handler it is lent to (it points into the message). Reading
/// trusts libdbus, which validated the message on arrival; every accessor still checks
/// the type it reads and gives nil otherwise, so a peer that sends odd types only sends
/// the message down the generic path.
public struct DBusReader {
    var iter: DBusMessageIter

    init(iter: DBusMessageIter) { self.iter = iter }

    /// The D-Bus type code of the current argument ("y", "s", "a", ...), 0 at the end.
    public var type: UInt8 {
        mutating get { UInt8(truncatingIfNeeded: dbus_message_iter_get_arg_type(&iter)) }
    }
    public var atEnd: Bool { mutating get { dbus_message_iter_get_arg_type(&iter) == bx_dbus_type_invalid() } }

    /// Moves to the next argument (or element, or entry); false at the end.
    @discardableResult
    public mutating func next() -> Bool { dbus_message_iter_next(&iter) != 0 }

    /// The contents of the current container (array, dict entry, variant, struct).
    public mutating func recurse() -> DBusReader? {
        let t = dbus_message_iter_get_arg_type(&iter)
        guard t == bx_dbus_type_array() || t == bx_dbus_type_dict_entry() || t == bx_dbus_type_variant()
                || t == bx_dbus_type_struct() else { return nil }
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        return DBusReader(iter: sub)
    }

    /// Element type of the current array ("y" for `ay`, "e" for a dict), 0 otherwise.
    public var elementType: UInt8 {
        mutating get {
            guard dbus_message_iter_get_arg_type(&iter) == bx_dbus_type_array() else { return 0 }
            return UInt8(truncatingIfNeeded: dbus_message_iter_get_element_type(&iter))
        }
    }

    public mutating func int16() -> Int16? { basic(bx_dbus_type_int16(), Int16(0)) }
    public mutating func uint16() -> UInt16? { basic(bx_dbus_type_uint16(), UInt16(0)) }
    public mutating func bool() -> Bool? { basic(bx_dbus_type_boolean(), dbus_bool_t(0)).map { $0 != 0 } }

    /// Whether the current argument is a string, object path or signature equal to `s`
    /// (compared in place, no String made).
    public mutating func equals(_ s: StaticString) -> Bool {
        guard let p = cString() else { return false }
        return Self.same(p, s)
    }

    /// Whether a NUL-terminated string from a message is `s`.
    public static func same(_ p: UnsafePointer<CChar>, _ s: StaticString) -> Bool {
        s.withUTF8Buffer { want in
            strncmp(p, UnsafeRawPointer(want.baseAddress!).assumingMemoryBound(to: CChar.self), want.count) == 0
                && p[want.count] == 0
        }
    }

    /// The current string-like argument as libdbus holds it (valid while the message is).
    public mutating func cString() -> UnsafePointer<CChar>? {
        let t = dbus_message_iter_get_arg_type(&iter)
        guard t == bx_dbus_type_string() || t == bx_dbus_type_object_path() || t == bx_dbus_type_signature() else {
            return nil
        }
        return bx_dbus_get_string(&iter)
    }

    public mutating func string() -> String? { cString().map { String(cString: $0) } }

    /// The current `ay`, copied out.
    public mutating func bytes() -> [UInt8]? {
        guard elementType == UInt8(bx_dbus_type_byte()) else { return nil }
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        var n: Int32 = 0
        guard let p = bx_dbus_get_bytes(&sub, &n), n > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: Int(n)))
    }

    /// The current argument as a generic value (the slow, general way).
    public mutating func value() -> DBusValue? { try? DBusMarshal.readValue(&iter) }

    private mutating func basic<T>(_ type: Int32, _ initial: T) -> T? {
        guard dbus_message_iter_get_arg_type(&iter) == type else { return nil }
        var v = initial
        withUnsafeMutablePointer(to: &v) { dbus_message_iter_get_basic(&iter, $0) }
        return v
    }
}

/// A received signal before anything is converted: its header fields as libdbus holds
/// them and a reader at its first argument. Lent to `DBusClient.fastSignalHandler`.
public struct DBusRawSignal {
    /// Object path, interface and member, NUL-terminated (valid during the handler).
    public let path: UnsafePointer<CChar>
    public let interface: UnsafePointer<CChar>
    public let member: UnsafePointer<CChar>
    /// The body's signature ("sa{sv}as"), NUL-terminated.
    let signature: UnsafePointer<CChar>
    /// The first argument when it is a string (where `withBody` finds the body).
    let firstString: UnsafePointer<CChar>?
    let message: OpaquePointer

    /// `interface` when the caller already has it. Everything asked of libdbus is asked
    /// here, so that handlers run without going back to it (see DBusLoopBinding.dispatch).
    init?(_ message: OpaquePointer, interface: UnsafePointer<CChar>? = nil) {
        guard let path = dbus_message_get_path(message), let interface = interface ?? dbus_message_get_interface(message),
              let member = dbus_message_get_member(message), let signature = dbus_message_get_signature(message) else { return nil }
        self.path = path; self.interface = interface; self.member = member; self.signature = signature; self.message = message
        // Making an iterator also puts a message that came in the other byte order into
        // this machine's.
        var it = DBusMessageIter()
        var first: UnsafePointer<CChar>?
        if dbus_message_iter_init(message, &it) != 0, dbus_message_iter_get_arg_type(&it) == bx_dbus_type_string() {
            withUnsafeMutablePointer(to: &first) { dbus_message_iter_get_basic(&it, $0) }
        }
        firstString = first
    }

    /// A reader at the first argument (a fresh one each time).
    public func arguments() -> DBusReader {
        var it = DBusMessageIter()
        dbus_message_iter_init(message, &it)   // FALSE: no arguments, and the reader is at its end
        return DBusReader(iter: it)
    }

    public func isInterface(_ s: StaticString) -> Bool { DBusReader.same(interface, s) }
    public func isMember(_ s: StaticString) -> Bool { DBusReader.same(member, s) }
    /// The body's signature is `s` ("sa{sv}as"): one comparison that settles the shape of
    /// every argument, so a reader need only check inside variants.
    public func hasSignature(_ s: StaticString) -> Bool { DBusReader.same(signature, s) }

    /// Builds a real message from values and lends it as a raw signal: how a test (or a
    /// scripted bus) sends a signal down the same fast path a real bus does.
    public static func with<R>(path: String, interface: String, member: String, args: [DBusValue],
                               _ body: (DBusRawSignal) -> R) -> R? {
        guard let msg = try? DBusMessageRef.signal(path: path, interface: interface, member: member, args: args),
              let raw = DBusRawSignal(msg.raw) else { return nil }
        return withExtendedLifetime(msg) { body(raw) }
    }
}
