import Explorer
import DBus

/// Peripheral mode over BlueZ: exports a spec's GATT application and advertisement on
/// our bus connection, registers them with GattManager1 / LEAdvertisingManager1 on one
/// adapter, serves ReadValue / WriteValue / StartNotify / StopNotify, and sends
/// notifications as PropertiesChanged on a characteristic's Value (what BlueZ turns into
/// ATT notifications or indications), or, where the bus passes file descriptors, through
/// the socket bluetoothd takes with AcquireNotify (`GattServerSockets.swift`). Survives
/// bluetoothd restarts: the registrations die with it and are made again when org.bluez
/// has an owner again.
@MainActor
public final class GattServer {
    static let bluez = "org.bluez"
    public let adapter: String
    public var adapterPath: String { "/org/bluez/\(adapter)" }
    public var onEvent: (@MainActor (ServeEvent) -> Void)?
    public private(set) var registered = false
    /// The largest ATT MTU a central has told us about (ReadValue / WriteValue options).
    public private(set) var mtu: Int?

    let bus: DBusConnection
    let loop: EventLoop
    var objects: GattObjects
    /// Sockets bluetoothd took for notifications (AcquireNotify), by characteristic path.
    var sockets: [String: NotifySocket] = [:]
    private var retry: EventLoop.TimerID?
    private var retries = 0

    public init(spec: PeripheralSpec, adapter: String, bus: DBusConnection, loop: EventLoop, instance: Int) {
        self.adapter = adapter
        self.bus = bus
        self.loop = loop
        objects = GattObjects(spec: spec, root: "/org/bleexplr/serve\(instance)",
                              advertisementPath: "/org/bleexplr/serve\(instance)adv",
                              acquirable: NotifySocket.wanted && bus.canPassFileDescriptors)
    }

    public func start() {
        bus.exportHandler { [unowned self] call in self.handle(call) }
        bus.signalHandler = { [unowned self] s in self.signal(s) }
        bus.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                     + "member='NameOwnerChanged',arg0='org.bluez'", reply: nil)
        register()
    }

    /// The current value of the first characteristic with this UUID.
    public func value(_ uuid: BLEUUID) -> Bytes? { objects.characteristics(uuid).first.flatMap { objects.values[$0] } }

    public func isNotifying(_ uuid: BLEUUID) -> Bool { objects.characteristics(uuid).contains { objects.notifying.contains($0) } }

    /// Sets a characteristic's value without notifying.
    public func set(_ uuid: BLEUUID, _ bytes: Bytes) {
        for path in objects.characteristics(uuid) { objects.values[path] = bytes }
    }

    /// Sets a characteristic's value and, when a central subscribed, notifies it.
    @discardableResult
    public func notify(_ uuid: BLEUUID, _ bytes: Bytes) -> Bool {
        var sent = false
        for path in objects.characteristics(uuid) {
            objects.values[path] = bytes
            guard objects.notifying.contains(path) else { continue }
            if sockets[path] != nil {
                sent = sendThroughSocket(path, bytes) || sent
                continue
            }
            do {
                try bus.emitSignal(path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                                   args: [.string(GattObjects.characteristic), .vardict(["Value": .bytes(bytes)]),
                                          .array(element: "s", [])])
                sent = true
            } catch {}
        }
        return sent
    }

    /// Replies once bluetoothd has taken every message sent before it (a Peer.Ping, which
    /// libdbus answers in order with its other incoming messages): the pacing `--stream`
    /// uses over a bus that cannot pass the AcquireNotify socket. Through a socket: once
    /// what did not fit in it went in.
    public func drained(_ uuid: BLEUUID, _ done: @escaping @MainActor (Bool) -> Void) {
        if objects.characteristics(uuid).contains(where: { sockets[$0] != nil }) { return socketsDrained(uuid, done) }
        bus.call(DBusCall(destination: Self.bluez, path: "/", interface: "org.freedesktop.DBus.Peer", member: "Ping"),
                 timeout: 10) { done((try? $0.get()) != nil) }
    }

    /// Unregisters the advertisement and the application; `done` runs when bluetoothd
    /// answered both (or after `timeout`).
    public func stop(timeout: Double = 3, _ done: @escaping @MainActor () -> Void) {
        if let retry { loop.cancel(retry) }
        retry = nil
        closeSockets()
        guard registered else { done(); return }
        registered = false
        final class Progress { var pending = 2, finished = false }
        let progress = Progress()
        let finish: @MainActor () -> Void = { [weak self] in
            guard !progress.finished else { return }
            progress.finished = true
            self?.onEvent?(.unregistered)
            done()
        }
        let timer = loop.schedule(after: timeout) { finish() }
        let one: @MainActor (Result<[DBusValue], DBusError>) -> Void = { [weak self] _ in
            progress.pending -= 1
            if progress.pending == 0 { self?.loop.cancel(timer); finish() }
        }
        call("org.bluez.LEAdvertisingManager1", "UnregisterAdvertisement", [.objectPath(objects.advertisementPath)], one)
        call("org.bluez.GattManager1", "UnregisterApplication", [.objectPath(objects.root)], one)
    }

    // MARK: registration

    private func call(_ interface: String, _ member: String, _ args: [DBusValue],
                      _ reply: @escaping @MainActor (Result<[DBusValue], DBusError>) -> Void) {
        bus.call(DBusCall(destination: Self.bluez, path: adapterPath, interface: interface, member: member, args: args),
                 timeout: 15, reply: reply)
    }

    private func register() {
        call("org.bluez.GattManager1", "RegisterApplication", [.objectPath(objects.root), .vardict([:])]) { [weak self] r in
            guard let self else { return }
            if case let .failure(e) = r { return self.failed("registering the GATT application on \(self.adapter): \(e)") }
            self.call("org.bluez.LEAdvertisingManager1", "RegisterAdvertisement",
                      [.objectPath(self.objects.advertisementPath), .vardict([:])]) { [weak self] r in
                guard let self else { return }
                if case let .failure(e) = r {
                    // Keep nothing half-registered.
                    self.call("org.bluez.GattManager1", "UnregisterApplication", [.objectPath(self.objects.root)]) { _ in }
                    return self.failed("registering the advertisement on \(self.adapter): \(e)")
                }
                self.registered = true
                self.retries = 0
                self.onEvent?(.registered(adapter: self.adapter))
            }
        }
    }

    /// After a bluetoothd restart the adapter takes a moment to reappear: retry a while.
    private func failed(_ message: String) {
        onEvent?(.registrationFailed(message))
        guard retries > 0 else { return }
        retries -= 1
        retry = loop.schedule(after: 1) { [weak self] in self?.retry = nil; self?.register() }
    }

    private func signal(_ s: DBusSignal) {
        guard s.interface == "org.freedesktop.DBus", s.member == "NameOwnerChanged", s.args.count == 3,
              s.args[0].string == Self.bluez else { return }
        registered = false
        objects.notifying.removeAll()
        closeSockets()
        if s.args[2].string?.isEmpty ?? true {
            onEvent?(.bluezGone)
        } else {
            onEvent?(.bluezReturned)
            retries = 30
            if let retry { loop.cancel(retry) }
            retry = loop.schedule(after: 0.5) { [weak self] in self?.retry = nil; self?.register() }
        }
    }

    // MARK: serving

    /// Which attribute, and who asked: the central's address and the link's MTU, which
    /// BlueZ passes in the options of ReadValue, WriteValue and AcquireNotify.
    func asker(_ o: GattObjects.Object, _ isDescriptor: Bool, _ opts: [String: DBusValue]) -> CharacteristicEvent {
        if let m = opts["mtu"]?.int, m >= 23, m <= 517 { mtu = max(mtu ?? 0, m) }
        return CharacteristicEvent(uuid: o.uuid, path: o.path, descriptor: isDescriptor,
                                   central: opts["device"]?.string.flatMap(CharacteristicEvent.address(fromDevicePath:)))
    }

    private func handle(_ c: DBusMethodCall) -> DBusReply? {
        switch (c.interface ?? "", c.member) {
        case ("org.freedesktop.DBus.ObjectManager", "GetManagedObjects"):
            if c.path == objects.root { return .values([objects.managedObjects()]) }
            if c.path == objects.advertisementPath {
                return .values([.dict(key: "o", value: "a{sa{sv}}", [DBusDictEntry(
                    .objectPath(c.path), .dict(key: "s", value: "a{sv}", [DBusDictEntry(
                        .string(GattObjects.advertisement), .vardict(objects.advertisementProperties()))]))])])
            }
            return nil
        case ("org.freedesktop.DBus.Properties", "GetAll"):
            guard let props = properties(c.path, c.args.first?.string ?? "") else { return nil }
            return .values([.vardict(props)])
        case ("org.freedesktop.DBus.Properties", "Get"):
            guard c.args.count == 2, let props = properties(c.path, c.args[0].string ?? ""),
                  let v = c.args[1].string.flatMap({ props[$0] }) else {
                return .error(DBusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "no such property"))
            }
            return .values([.variant(v)])
        case (GattObjects.advertisement, "Release"):
            guard c.path == objects.advertisementPath else { return nil }
            onEvent?(.advertisementReleased)
            return .values([])
        case (GattObjects.characteristic, _), (GattObjects.descriptor, _):
            guard let o = objects.object(c.path) else { return nil }
            return attribute(o, c)
        default:
            return nil
        }
    }

    private func properties(_ path: String, _ interface: String) -> [String: DBusValue]? {
        if path == objects.advertisementPath, interface == GattObjects.advertisement { return objects.advertisementProperties() }
        guard let o = objects.object(path), objects.interface(of: o) == interface else { return nil }
        return objects.properties(o)
    }

    func attribute(_ o: GattObjects.Object, _ c: DBusMethodCall) -> DBusReply? {
        var isDescriptor = false
        if case .descriptor = o.kind { isDescriptor = true }
        func options(_ i: Int) -> [String: DBusValue] { c.args.count > i ? c.args[i].stringKeyed ?? [:] : [:] }
        func who(_ opts: [String: DBusValue]) -> CharacteristicEvent { asker(o, isDescriptor, opts) }
        switch c.member {
        case "ReadValue":
            let opts = options(0)
            let value = objects.values[o.path] ?? []
            let offset = opts["offset"]?.int ?? 0
            guard offset >= 0, offset <= value.count else {
                return .error(DBusError(name: "org.bluez.Error.InvalidOffset", message: "offset \(offset) past the value"))
            }
            let out = Array(value[offset...])
            onEvent?(.read(who(opts), offset: offset, bytes: out))
            return .values([.bytes(out)])
        case "WriteValue":
            guard let bytes = c.args.first?.bytes else {
                return .error(DBusError(name: "org.bluez.Error.InvalidArguments", message: "WriteValue takes ay, a{sv}"))
            }
            let opts = options(1)
            let offset = opts["offset"]?.int ?? 0
            var value = objects.values[o.path] ?? []
            guard offset >= 0, offset <= value.count, offset + bytes.count <= 512 else {
                return .error(DBusError(name: "org.bluez.Error.InvalidOffset", message: "offset \(offset)"))
            }
            value = Array(value[..<offset]) + bytes
            objects.values[o.path] = value
            onEvent?(.written(who(opts), bytes: value, type: opts["type"]?.string ?? "request", offset: offset))
            return .values([])
        case "StartNotify", "StopNotify":
            guard !isDescriptor else { return nil }
            let on = c.member == "StartNotify"
            let changed = on ? objects.notifying.insert(o.path).inserted : objects.notifying.remove(o.path) != nil
            if changed {
                try? bus.emitSignal(path: o.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                                    args: [.string(GattObjects.characteristic), .vardict(["Notifying": .bool(on)]),
                                           .array(element: "s", [])])
                onEvent?(on ? .subscribed(who([:])) : .unsubscribed(who([:])))
            }
            return .values([])
        case "Confirm":
            onEvent?(.confirmed(who([:])))
            return .values([])
        case "AcquireNotify":
            guard !isDescriptor else { return nil }
            return acquireNotify(o, options(0))
        default:
            return nil
        }
    }
}
