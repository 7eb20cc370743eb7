@preconcurrency import CDBus
@preconcurrency import Glibc

/// A received signal before anything is converted: its header fields as libdbus holds
/// them, and its body as wire bytes (`withBody`). Lent to `DBusClient.fastSignalHandler`.
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

    public func isInterface(_ s: StaticString) -> Bool { Self.same(interface, s) }
    public func isMember(_ s: StaticString) -> Bool { Self.same(member, s) }
    /// The body's signature is `s` ("sa{sv}as"): one comparison that settles the shape of
    /// every argument, so a reader need only check inside variants.
    public func hasSignature(_ s: StaticString) -> Bool { Self.same(signature, s) }

    /// Whether a NUL-terminated string from a message is `s`.
    public static func same(_ p: UnsafePointer<CChar>, _ s: StaticString) -> Bool {
        s.withUTF8Buffer { want in
            strncmp(p, UnsafeRawPointer(want.baseAddress!).assumingMemoryBound(to: CChar.self), want.count) == 0
                && p[want.count] == 0
        }
    }

    /// Builds a real message from values and lends it as a raw signal: how a test (or a
    /// scripted bus) sends a signal down the same fast path a real bus does.
    public static func with<R>(path: String, interface: String, member: String, args: [DBusValue],
                               _ body: (DBusRawSignal) -> R) -> R? {
        guard let msg = try? DBusMessageRef.signal(path: path, interface: interface, member: member, args: args),
              let raw = DBusRawSignal(msg.raw) else { return nil }
        return withExtendedLifetime(msg) { body(raw) }
    }
}
