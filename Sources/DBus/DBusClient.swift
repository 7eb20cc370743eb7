import Explorer

/// An error reply from the bus or a peer: `org.bluez.Error.NotPermitted`, "Read not permitted".
public struct DBusError: Error, Equatable, Sendable, CustomStringConvertible {
    public var name: String
    public var message: String
    public init(name: String, message: String) { self.name = name; self.message = message }
    public var description: String { message.isEmpty ? name : "\(name): \(message)" }

    /// No reply within the timeout (libdbus: org.freedesktop.DBus.Error.NoReply).
    public static func noReply(_ m: String) -> Self { .init(name: "org.freedesktop.DBus.Error.NoReply", message: m) }
    /// The connection to the bus is gone.
    public static func disconnected(_ m: String) -> Self { .init(name: "org.freedesktop.DBus.Error.Disconnected", message: m) }
    /// Refused before sending: a path, name or signature libdbus would abort on.
    public static func invalidArgs(_ m: String) -> Self { .init(name: "org.freedesktop.DBus.Error.InvalidArgs", message: m) }
}

/// A method call to make.
public struct DBusCall: Equatable, Sendable {
    public var destination: String
    public var path: String
    public var interface: String
    public var member: String
    public var args: [DBusValue]
    public init(destination: String, path: String, interface: String, member: String, args: [DBusValue] = []) {
        self.destination = destination; self.path = path; self.interface = interface; self.member = member
        self.args = args
    }
}

/// A signal received.
public struct DBusSignal: Equatable, Sendable {
    public var sender: String?
    public var path: String
    public var interface: String
    public var member: String
    public var args: [DBusValue]
    public init(sender: String?, path: String, interface: String, member: String, args: [DBusValue]) {
        self.sender = sender; self.path = path; self.interface = interface; self.member = member; self.args = args
    }
}

/// What the BlueZ backend needs from a bus connection. `DBusConnection` (libdbus) is
/// the real one; tests give the backend a scripted fake.
@MainActor
public protocol DBusClient: AnyObject {
    /// Sends a method call; `reply` runs later on the event loop with the reply's
    /// arguments or the error (a timeout is `DBusError.noReply`). Never blocks.
    func call(_ call: DBusCall, timeout: Double, reply: @escaping @MainActor (Result<[DBusValue], DBusError>) -> Void)
    /// Adds a match rule (asynchronously; a failure is reported through `reply`).
    func addMatch(_ rule: String, reply: (@MainActor (DBusError?) -> Void)?)
    /// Every signal that matches a rule arrives here.
    var signalHandler: (@MainActor (DBusSignal) -> Void)? { get set }
    /// Sees every signal first, before it is converted: returns true when it handled
    /// it, and `signalHandler` then never sees it. For hot signals (see DBusRawSignal.withBody).
    var fastSignalHandler: (@MainActor (DBusRawSignal) -> Bool)? { get set }
    /// Called after a run of signals (everything one read of the socket brought, up to
    /// the dispatch budget) has been handed out, before anything else runs on the loop:
    /// where a handler that gathers signals into one event hands the gathering on.
    var signalsDispatched: (@MainActor () -> Void)? { get set }
    /// Called once when the connection to the bus is lost.
    var disconnectHandler: (@MainActor () -> Void)? { get set }
    /// Method calls made to our own objects (the pairing agent): the handler answers at
    /// once, or `.deferred` and later through `reply(to:with:)`; nil leaves a call unknown.
    func exportHandler(_ handler: (@MainActor (DBusMethodCall) -> DBusReply?)?)
    /// Answers a call the export handler deferred.
    func reply(to call: DBusMethodCall, with reply: DBusReply) throws(DBusError)
    /// Whether file descriptors cross this connection (`h`): a Unix socket bus, not TCP.
    /// BlueZ's AcquireNotify over a bus that cannot pass one never answers.
    var canPassFileDescriptors: Bool { get }
}

extension DBusClient {
    public var canPassFileDescriptors: Bool { false }
}
