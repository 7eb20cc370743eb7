@preconcurrency import CDBus
import Explorer

/// A libdbus connection to a bus, driven by the app's EventLoop. Everything happens on
/// the loop's thread: replies and signals are delivered from the loop's dispatch, never
/// from inside a call. Only `open` blocks (connect, authenticate, Hello).
@MainActor
public final class DBusConnection: DBusClient {
    public var signalHandler: (@MainActor (DBusSignal) -> Void)?
    public var fastSignalHandler: (@MainActor (DBusRawSignal) -> Bool)?
    public var signalsDispatched: (@MainActor () -> Void)?
    public var disconnectHandler: (@MainActor () -> Void)?
    /// Our unique name on the bus (":1.42").
    public let uniqueName: String
    public private(set) var isConnected = true

    let loop: EventLoop
    private var raw: OpaquePointer?
    private let binding: DBusLoopBinding
    private var pending: [Int: (call: OpaquePointer, reply: @MainActor (Result<[DBusValue], DBusError>) -> Void)] = [:]
    private var nextPendingID = 0
    private var exported: (@MainActor (DBusMethodCall) -> DBusReply?)?
    private var disconnectReported = false

    /// Connects and registers with the bus. `address` nil is the system bus (libdbus
    /// honours DBUS_SYSTEM_BUS_ADDRESS); otherwise any D-Bus address, e.g.
    /// `unix:path=/run/dbus/system_bus_socket` or `tcp:host=127.0.0.1,port=N`.
    public static func open(address: String?, loop: EventLoop) throws(DBusError) -> DBusConnection {
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        let c: OpaquePointer
        if let address {
            try DBusValidate.string(address, "bus address")
            // Private: a shared connection could be closed or reconfigured behind our back.
            guard let opened = dbus_connection_open_private(address, &err) else {
                throw convert(err, "cannot connect to \(address)")
            }
            dbus_connection_set_exit_on_disconnect(opened, 0)
            guard dbus_bus_register(opened, &err) != 0 else {
                dbus_connection_close(opened)
                dbus_connection_unref(opened)
                throw convert(err, "cannot register with the bus at \(address)")
            }
            c = opened
        } else {
            guard let opened = dbus_bus_get_private(DBUS_BUS_SYSTEM, &err) else {
                throw convert(err, "cannot connect to the system bus")
            }
            c = opened
        }
        // dbus_bus_get* turns this on: a lost bus would _exit(1) the whole app.
        dbus_connection_set_exit_on_disconnect(c, 0)
        let name = dbus_bus_get_unique_name(c).map { String(cString: $0) } ?? ""
        let conn = DBusConnection(raw: c, loop: loop, uniqueName: name)
        guard conn.binding.install(),
              dbus_connection_add_filter(c, bxFilter, conn.binding.retainedPointer(), bxReleaseBinding) != 0
        else {
            conn.close()
            throw DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot attach the connection to the loop")
        }
        return conn
    }

    private init(raw: OpaquePointer, loop: EventLoop, uniqueName: String) {
        self.raw = raw
        self.loop = loop
        self.uniqueName = uniqueName
        binding = DBusLoopBinding(loop: loop, raw: raw)
        binding.connection = self
    }

    isolated deinit { close() }

    public var canPassFileDescriptors: Bool {
        guard let raw else { return false }
        return dbus_connection_can_send_type(raw, bx_dbus_type_unix_fd()) != 0
    }

    /// Closes the connection. Pending calls fail with `disconnected`; the disconnect
    /// handler is not called (this is not a lost bus).
    public func close() {
        guard let raw else { return }
        isConnected = false
        disconnectReported = true
        binding.connection = nil
        binding.uninstall()
        failPending(.disconnected("connection closed"))
        // Send what is queued (StopDiscovery, StopNotify on the way out) before closing.
        if dbus_connection_get_is_connected(raw) != 0 { dbus_connection_flush(raw) }
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
        self.raw = nil
    }

    // MARK: calls

    public func call(_ call: DBusCall, timeout: Double,
                     reply: @escaping @MainActor (Result<[DBusValue], DBusError>) -> Void) {
        let message: DBusMessageRef
        do { message = try DBusMessageRef.methodCall(call) } catch {
            later(reply, .failure(error))
            return
        }
        send(message, timeout: timeout, reply)
    }

    public func addMatch(_ rule: String, reply: (@MainActor (DBusError?) -> Void)?) {
        busCall("AddMatch", [.string(rule)]) { reply?($0.error) }
    }

    public func removeMatch(_ rule: String, reply: (@MainActor (DBusError?) -> Void)?) {
        busCall("RemoveMatch", [.string(rule)]) { reply?($0.error) }
    }

    /// Asks for a well-known name. The reply is RequestName's result code
    /// (1 primary owner, 2 in queue, 3 exists, 4 already owner). Default flags:
    /// DBUS_NAME_FLAG_DO_NOT_QUEUE.
    public func requestName(_ name: String, flags: UInt32 = 4,
                            reply: (@MainActor (Result<UInt32, DBusError>) -> Void)?) {
        do { try DBusValidate.busName(name) } catch {
            if let reply { later(reply, .failure(error)) }
            return
        }
        busCall("RequestName", [.string(name), .uint32(flags)]) { result in
            reply?(result.flatMap { args in
                guard case let .uint32(code)? = args.first else {
                    return .failure(DBusError(name: "org.freedesktop.DBus.Error.InvalidSignature", message: "RequestName replied \(args)"))
                }
                return .success(code)
            })
        }
    }

    private func busCall(_ member: String, _ args: [DBusValue],
                         _ reply: @escaping @MainActor (Result<[DBusValue], DBusError>) -> Void) {
        call(DBusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                      interface: "org.freedesktop.DBus", member: member, args: args), timeout: 25, reply: reply)
    }

    private func send(_ message: DBusMessageRef, timeout: Double,
                      _ reply: @escaping @MainActor (Result<[DBusValue], DBusError>) -> Void) {
        guard let raw, isConnected else {
            later(reply, .failure(.disconnected("not connected to the bus")))
            return
        }
        var call: OpaquePointer?
        guard dbus_connection_send_with_reply(raw, message.raw, &call, Self.milliseconds(timeout)) != 0 else {
            later(reply, .failure(DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot send")))
            return
        }
        // libdbus returns TRUE with no pending call when the connection is already gone.
        guard let call else {
            later(reply, .failure(.disconnected("not connected to the bus")))
            return
        }
        nextPendingID += 1
        let id = nextPendingID
        pending[id] = (call, reply)
        let box = Unmanaged.passRetained(PendingBox(connection: self, id: id)).toOpaque()
        if dbus_pending_call_set_notify(call, bxPendingNotify, box, bxReleasePendingBox) == 0 {
            pending[id] = nil
            dbus_pending_call_cancel(call)
            dbus_pending_call_unref(call)
            later(reply, .failure(DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot track the reply")))
        }
    }

    /// Called by libdbus from inside dbus_connection_dispatch (replies, and the
    /// synthesized NoReply errors of timeouts and of a lost connection, are all queued
    /// messages), so replies keep their order relative to signals.
    fileprivate func completePending(_ id: Int) {
        guard let entry = pending.removeValue(forKey: id) else { return }
        let stolen = dbus_pending_call_steal_reply(entry.call)
        dbus_pending_call_unref(entry.call)
        guard let stolen else {
            entry.reply(.failure(.noReply("no reply")))
            return
        }
        let message = DBusMessageRef(owning: stolen)
        if message.type == DBUS_MESSAGE_TYPE_ERROR {
            var error = message.asError
            // On a lost connection libdbus completes every call with the same NoReply
            // it uses for timeouts; tell the two apart.
            if error.name == DBusError.noReply("").name, let raw, dbus_connection_get_is_connected(raw) == 0 {
                error = .disconnected("connection to the bus lost: \(error.message)")
            }
            entry.reply(.failure(error))
        } else {
            entry.reply(Result { () throws(DBusError) in try DBusMarshal.read(message.raw) })
        }
    }

    private func failPending(_ error: DBusError) {
        let calls = pending
        pending = [:]
        for id in calls.keys.sorted() {
            let entry = calls[id]!
            dbus_pending_call_cancel(entry.call)
            dbus_pending_call_unref(entry.call)
            later(entry.reply, .failure(error))
        }
    }

    /// Completions of calls that never reached the bus still arrive from the loop,
    /// never from inside `call`.
    private func later<T>(_ reply: @escaping @MainActor (Result<T, DBusError>) -> Void, _ result: Result<T, DBusError>) {
        loop.schedule(after: 0) { reply(result) }
    }

    static func milliseconds(_ seconds: Double) -> Int32 {
        guard seconds.isFinite, seconds > 0 else { return bx_dbus_timeout_use_default() }
        return Int32(min(seconds * 1000, Double(Int32.max - 1)).rounded(.up))
    }

    private static func convert(_ err: CDBus.DBusError, _ fallback: String) -> DBusError {
        guard dbus_error_is_set([err]) != 0, let name = err.name else {
            return .disconnected(fallback)
        }
        return DBusError(name: String(cString: name), message: err.message.map { String(cString: $0) } ?? fallback)
    }

    // MARK: incoming messages

    fileprivate func filter(_ m: OpaquePointer) -> DBusHandlerResult {
        let message = DBusMessageRef(borrowing: m)
        switch message.type {
        case DBUS_MESSAGE_TYPE_SIGNAL:
            if message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" {
                lost()
                return DBUS_HANDLER_RESULT_HANDLED
            }
            receiveSignal(m)
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        case DBUS_MESSAGE_TYPE_METHOD_CALL:
            return methodCall(message)
        default:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }

    /// A signal from the filter (DBusLoopBinding.dispatch hands on most as raw signals).
    func receiveSignal(_ m: OpaquePointer) {
        if let raw = DBusRawSignal(m) { receive([raw]) } else { receiveGeneral(m) }
    }

    /// Signals read from the queue, in order: for each, the fast handler first, then the
    /// general one. The fast handler is read once for the run, not once a
    /// signal (a retain and a release each time): one set while a run is handed out takes
    /// effect from the next run.
    func receive(_ run: [DBusRawSignal]) {
        guard let fast = fastSignalHandler else {
            for raw in run { receiveGeneral(raw.message) }
            return
        }
        for raw in run where !fast(raw) { receiveGeneral(raw.message) }
    }

    private func receiveGeneral(_ m: OpaquePointer) {
        // A signal we cannot represent (unix fds) is dropped rather than half-read.
        guard let signalHandler, let args = try? DBusMarshal.read(m) else { return }
        let sender = dbus_message_get_sender(m).map { String(cString: $0) }
        let path = dbus_message_get_path(m).map { String(cString: $0) } ?? ""
        let interface = dbus_message_get_interface(m).map { String(cString: $0) } ?? ""
        let member = dbus_message_get_member(m).map { String(cString: $0) } ?? ""
        signalHandler(DBusSignal(sender: sender, path: path, interface: interface, member: member, args: args))
    }

    private func lost() {
        guard !disconnectReported else { return }
        disconnectReported = true
        isConnected = false
        failPending(.disconnected("connection to the bus lost"))
        disconnectHandler?()
    }

    // MARK: exporting (peripheral mode)

    /// Handles method calls made to us. Returning nil leaves the call unhandled and
    /// libdbus answers org.freedesktop.DBus.Error.UnknownMethod.
    public func exportHandler(_ handler: (@MainActor (DBusMethodCall) -> DBusReply?)?) {
        exported = handler
    }

    private func methodCall(_ message: DBusMessageRef) -> DBusHandlerResult {
        guard let exported, let member = message.member else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let call: DBusMethodCall
        do {
            call = DBusMethodCall(sender: message.sender, path: message.path ?? "/", interface: message.interface,
                                  member: member, args: try DBusMarshal.read(message.raw),
                                  serial: message.serial, expectsReply: !message.noReply)
        } catch {
            try? send(DBusMessageRef.reply(toSerial: message.serial, destination: message.sender, .error(error)))
            return DBUS_HANDLER_RESULT_HANDLED
        }
        guard let answer = exported(call) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        if case .deferred = answer { return DBUS_HANDLER_RESULT_HANDLED }
        do { try reply(to: call, with: answer) } catch {
            // The handler's values were invalid: the caller still gets an answer.
            try? reply(to: call, with: .error(error))
        }
        return DBUS_HANDLER_RESULT_HANDLED
    }

    /// Answers a call, typically one the export handler deferred.
    public func reply(to call: DBusMethodCall, with reply: DBusReply) throws(DBusError) {
        guard call.expectsReply, reply != .deferred else { return }
        try send(DBusMessageRef.reply(toSerial: call.serial, destination: call.sender, reply))
    }

    /// Emits a signal from one of our objects (broadcast, or to `destination`).
    public func emitSignal(path: String, interface: String, member: String, args: [DBusValue] = [],
                           destination: String? = nil) throws(DBusError) {
        let message = try DBusMessageRef.signal(path: path, interface: interface, member: member, args: args)
        if let destination {
            try DBusValidate.busName(destination)
            guard dbus_message_set_destination(message.raw, destination) != 0 else {
                throw DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot set destination")
            }
        }
        try send(message)
    }

    private func send(_ message: DBusMessageRef) throws(DBusError) {
        guard let raw, isConnected else { throw .disconnected("not connected to the bus") }
        // Queued, not written: the write watch flushes it from the loop.
        guard dbus_connection_send(raw, message.raw, nil) != 0 else {
            throw DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot send")
        }
    }
}

/// Only created and read on the loop's thread.
private final class PendingBox: @unchecked Sendable {
    weak var connection: DBusConnection?
    let id: Int
    init(connection: DBusConnection, id: Int) { self.connection = connection; self.id = id }
}

private func bxPendingNotify(_ call: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    let box = Unmanaged<PendingBox>.fromOpaque(data).takeUnretainedValue()
    MainActor.assumeIsolated { box.connection?.completePending(box.id) }
}

private func bxReleasePendingBox(_ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    Unmanaged<PendingBox>.fromOpaque(data).release()
}

private func bxFilter(_ c: OpaquePointer?, _ m: OpaquePointer?, _ data: UnsafeMutableRawPointer?) -> DBusHandlerResult {
    guard let m, let b = DBusLoopBinding.from(data) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    nonisolated(unsafe) let message = m
    return MainActor.assumeIsolated { b.connection?.filter(message) ?? DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
}

extension Result {
    fileprivate var error: Failure? { if case let .failure(e) = self { return e }; return nil }
}

