/// A method call made to us (exported objects, for peripheral mode).
public struct DBusMethodCall: Equatable, Sendable {
    public var sender: String?
    public var path: String
    public var interface: String?
    public var member: String
    public var args: [DBusValue]
    /// With `sender`, identifies the call for a deferred `reply(to:with:)`.
    public var serial: UInt32
    /// False when the caller asked for no reply (any reply is then dropped).
    public var expectsReply: Bool
    public init(sender: String?, path: String, interface: String?, member: String, args: [DBusValue],
                serial: UInt32 = 0, expectsReply: Bool = true) {
        self.sender = sender; self.path = path; self.interface = interface; self.member = member
        self.args = args; self.serial = serial; self.expectsReply = expectsReply
    }
}

/// What an exported object answers.
public enum DBusReply: Equatable, Sendable {
    /// A method return with these arguments.
    case values([DBusValue])
    /// An error reply (`org.bluez.Error.NotPermitted`, "...").
    case error(DBusError)
    /// Nothing now: the handler answers later with `DBusConnection.reply(to:with:)` (or never).
    case deferred
}
