import Explorer
import DBus
import CMalloc

/// The real backend: bluetoothd over D-Bus. Keeps a mirror of BlueZ's objects (subscribe
/// first, then GetManagedObjects), turns its changes into BackendEvents, and commands
/// into async method calls (BlueZCommands.swift). Survives bluetoothd restarts (NameOwnerChanged).
@MainActor
public final class BlueZBackend: Backend {
    public let kind = "bluez"

    public struct Options: Sendable {
        /// hciN, or nil for the first powered adapter.
        public var adapter: String?
        /// RSSI discovery filter. Without one BlueZ only reports RSSI changes of 8 dB or more;
        /// with one the kernel drops reports whose RSSI is "not available" (127).
        public var rssiFloor: Int?
        /// The pairing agent's capability; nil registers none.
        public var agent: AgentCapability?
        public init(adapter: String? = nil, rssiFloor: Int? = -127, agent: AgentCapability? = nil) {
            self.adapter = adapter; self.rssiFloor = rssiFloor; self.agent = agent
        }
    }

    static let bluez = "org.bluez"
    static let rules = [
        "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager'",
        "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path_namespace='/org/bluez'",
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'",
        // Newer BlueZ says why a link dropped, just before Connected turns false.
        "type='signal',sender='org.bluez',interface='org.bluez.Device1',member='Disconnected',path_namespace='/org/bluez'",
    ]

    let bus: DBusClient
    let options: Options
    var loop: EventLoop?
    var emit: (@MainActor (BackendEvent, Timestamp) -> Void)?
    public private(set) var mirror = BlueZMirror()
    /// Path of the adapter in use, e.g. /org/bluez/hci0.
    public private(set) var adapterPath: String?
    var devicePaths: [PeripheralID: String] = [:]
    /// The advertising fast path, with the reverse of devicePaths that every Device1
    /// signal looks its device up in (`ingest.state.deviceIDs`).
    let ingest = AdvertisingIngest()
    var scanWanted = false
    var scanning = false
    /// A StartDiscovery sent, its reply not in yet: shutdown must stop it too.
    var discoveryStarting = false
    var localDisconnects: Set<PeripheralID> = []
    /// Reasons from Device1.Disconnected, waiting for the Connected=false that follows.
    var disconnectReasons: [PeripheralID: DisconnectReason] = [:]
    var resolving: [PeripheralID: EventLoop.TimerID] = [:]
    var resolvedSent: Set<PeripheralID> = []
    var subscribed: Set<String> = []
    /// Subscriptions that came with a socket (AcquireNotify).
    var acquired = AcquiredNotifications()
    /// Sockets for writes without response (AcquireWrite).
    var acquiredWrites = AcquiredWrites()
    /// Connects under way: which attempt counts, and the watch for one that brings no link.
    var connects = ConnectAttempts()
    var bluezPresent = false
    /// The adapter status last sent (`send` drops a repeat).
    var lastAdapter: AdapterStatus?
    /// bluetoothd came back without the adapter asked for (it takes its bus name before it adds
    /// its adapters): "no adapter" is said only if it is still missing when this fires.
    var adapterGrace: EventLoop.TimerID?
    var adapterGraceSeconds = 5.0
    /// StartDiscovery refused while the adapter is powered and not discovering: the next try.
    var scanRetry: EventLoop.TimerID?
    var scanRetrySeconds = 1.0
    var scanRetries = 0
    /// GetManagedObjects calls made (`reload`): the reply of an older one is dropped.
    var snapshot = 0
    /// bluetoothd's unique bus name, once a signal told it: only it may call our agent.
    var bluezOwner: String?
    var agentRegistered = false
    /// Agent calls waiting for the reducer's answer, by the id given in `agentRequested`.
    var agentCalls: [Int: DBusMethodCall] = [:]
    var nextAgentCall = 1
    /// Properties said unreadable (`sayUnreadable`), by object path and name: each is said
    /// once, not with every signal that brings it again. Bounded: past the limit, no more.
    var unreadableSaid: Set<String> = []
    static let unreadableLimit = 4096
    /// PropertiesChanged signals handled (the ingest benchmark reports it).
    public var propertiesChangedCount: Int { ingest.state.propertiesChangedCount }

    public init(bus: DBusClient, options: Options = Options()) {
        self.bus = bus
        self.options = options
    }

    public func start(loop: EventLoop, emit: @escaping @MainActor (BackendEvent, Timestamp) -> Void) {
        self.loop = loop
        self.emit = emit
        bus.signalHandler = { [weak self] in self?.signal($0) }
        // The ingest object, not the backend: a strong capture (it holds nothing that holds
        // the bus), so the call for every signal loads no weak reference.
        bus.fastSignalHandler = { [ingest] in ingest.advertisingChanged($0) }
        bus.signalsDispatched = { [weak self] in self?.sendGathered() }
        bus.disconnectHandler = { [weak self] in
            self?.send(.failure(BackendError(name: "org.freedesktop.DBus.Error.Disconnected", message: "lost the D-Bus connection")))
            self?.forgetEverything()
        }
        // Subscribe before the snapshot, or changes in between are lost.
        for rule in Self.rules {
            bus.addMatch(rule) { [weak self] error in
                if let error { self?.send(.failure(BlueZTranslate.backendError(error))) }
            }
        }
        reload()
    }

    public func shutdown() {
        unregisterAgent()
        // Leave the radio as we found it: stop what we started.
        releaseAcquired(under: "")
        for path in subscribed {
            bus.call(DBusCall(destination: Self.bluez, path: path, interface: BlueZTranslate.characteristic, member: "StopNotify"),
                     timeout: 2) { _ in }
        }
        subscribed.removeAll()
        // Also a StartDiscovery still on its way: bluetoothd 5.66 and 5.82 kept discovering for good
        // after a client that left before its StartDiscovery completed (`read` of a known device).
        if scanning || discoveryStarting, let a = adapterPath {
            bus.call(DBusCall(destination: Self.bluez, path: a, interface: BlueZTranslate.adapter, member: "StopDiscovery"),
                     timeout: 2) { _ in }
        }
    }

    /// Every event goes out through here, after the reports gathered before it: the
    /// order of facts is the order of the signals.
    /// `at`: when it happened, where that is known better than now (a notification's time
    /// from the kernel).
    func send(_ e: BackendEvent, at: Timestamp? = nil) {
        // The same adapter status twice says nothing new (a restarted bluetoothd adds its
        // adapters one by one: each one that is not ours would say "absent" again).
        if case let .adapterChanged(a) = e {
            if a == lastAdapter { return }
            lastAdapter = a
        }
        sendGathered()
        emit?(e, at ?? Timestamp.now())
    }

    /// The reports the fast path gathered from one read of the bus, as one event.
    func sendGathered() {
        guard !ingest.state.gathered.isEmpty else { return }
        var run = ingest.state.takeRun()
        emit?(.advertisementsReceived(run), Timestamp.now())
        ingest.state.recycle(&run)
    }

    func call(_ path: String, _ interface: String, _ member: String, _ args: [DBusValue] = [],
                      timeout: Double = 25, _ reply: @escaping @MainActor (Result<[DBusValue], DBusError>) -> Void) {
        bus.call(DBusCall(destination: Self.bluez, path: path, interface: interface, member: member, args: args),
                 timeout: timeout, reply: reply)
    }

    // MARK: The mirror

    /// afterRestart: bluetoothd has just taken its name again (NameOwnerChanged).
    func reload(afterRestart: Bool = false) {
        snapshot += 1
        let asked = snapshot
        bus.call(DBusCall(destination: Self.bluez, path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                          member: "GetManagedObjects"), timeout: 10) { [weak self] result in
            // A reply to a snapshot asked before bluetoothd's name changed owner (or left)
            // describes an object tree that is gone: only the latest one counts.
            guard let self, asked == self.snapshot else { return }
            switch result {
            case let .success(args):
                guard let tree = args.first, self.mirror.load(tree) else {
                    self.send(.failure(.failed("unexpected GetManagedObjects reply from bluetoothd")))
                    return
                }
                self.bluezPresent = true
                self.registerAgent()
                self.chooseAdapter(snapshot: afterRestart ? .afterRestart : .first)
                // The reply and its value tree (about 1 MiB a thousand devices) are freed when
                // this returns; with the mmap threshold raised (main.swift) the heap keeps those
                // pages resident: give them back once, after the snapshot (1.1 MiB of the
                // storm's peak, docs/bench.md).
                _ = self.loop?.schedule(after: 0) { _ = malloc_trim(0) }
            case let .failure(error):
                self.bluezPresent = false
                self.send(.adapterChanged(AdapterStatus(name: self.options.adapter ?? "", power: .absent, discovering: false)))
                if error.name == "org.freedesktop.DBus.Error.ServiceUnknown" || error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
                    self.send(.failure(BackendError(name: error.name, message: "bluetoothd is not running")))
                } else {
                    self.send(.failure(BlueZTranslate.backendError(error)))
                }
            }
        }
    }

    /// Why chooseAdapter runs: a snapshot (the first one, or the first after bluetoothd came back),
    /// or an adapter that appeared later (nil), which never says "no adapter" itself.
    enum Snapshot { case first, afterRestart }

    func chooseAdapter(snapshot: Snapshot? = nil) {
        let adapters = mirror.paths(with: BlueZTranslate.adapter)
        let chosen: String?
        if let want = options.adapter {
            chosen = adapters.first { $0.hasSuffix("/" + want) }
        } else {
            chosen = adapters.first { mirror[$0, BlueZTranslate.adapter]?["Powered"]?.bool == true } ?? adapters.first
        }
        adapterPath = chosen
        guard let chosen else {
            send(.adapterChanged(AdapterStatus(name: options.adapter ?? "", power: .absent, discovering: false)))
            guard options.adapter != nil, let snapshot else { return }
            if snapshot == .first {
                sayNoAdapter()
            } else if adapterGrace == nil {
                let asked = self.snapshot
                adapterGrace = loop?.schedule(after: adapterGraceSeconds) { [weak self] in
                    guard let self else { return }
                    self.adapterGrace = nil
                    if asked == self.snapshot, self.adapterPath == nil { self.sayNoAdapter() }
                }
            }
            return
        }
        if let t = adapterGrace { loop?.cancel(t); adapterGrace = nil }
        sendAdapter()
        for path in mirror.paths(with: BlueZTranslate.device, under: chosen) { deviceAppeared(path) }
        if scanWanted { startScan() }
    }

    func sayNoAdapter() {
        guard let want = options.adapter else { return }
        let found = mirror.paths(with: BlueZTranslate.adapter).map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        send(.failure(.failed("no adapter \(want) (found: \(found.joined(separator: ", ")))")))
    }

    func sendAdapter() {
        guard let a = adapterPath, let props = mirror[a, BlueZTranslate.adapter] else { return }
        let name = a.split(separator: "/").last.map(String.init) ?? a
        let powered = props["Powered"]?.bool ?? false
        send(.adapterChanged(AdapterStatus(name: name, power: powered ? .on : .poweredOff,
                                           discovering: props["Discovering"]?.bool ?? false)))
    }

    func forgetEverything() {
        for (id, path) in devicePaths {
            if mirror[path, BlueZTranslate.device]?["Connected"]?.bool == true {
                send(.disconnected(id, .other("bluetoothd went away")))
            }
        }
        for t in resolving.values { loop?.cancel(t) }
        resolving.removeAll()
        resolvedSent.removeAll()
        devicePaths.removeAll()
        ingest.state.deviceIDs.removeAll()
        disconnectReasons.removeAll()
        releaseAcquired(under: "")
        subscribed.removeAll()
        unreadableSaid.removeAll()   // a new bluetoothd: its lies are said again
        forgetAgent()
        mirror.removeAll()
        scanning = false
        adapterPath = nil
        if let t = adapterGrace { loop?.cancel(t); adapterGrace = nil }
        if let t = scanRetry { loop?.cancel(t); scanRetry = nil }
    }

    // MARK: Signals

    func signal(_ s: DBusSignal) {
        if s.interface != "org.freedesktop.DBus", let sender = s.sender, sender.hasPrefix(":") { bluezOwner = sender }
        switch (s.interface, s.member) {
        case ("org.freedesktop.DBus", "NameOwnerChanged"):
            guard s.args.count == 3, s.args[0].string == Self.bluez else { return }
            let newOwner = s.args[2].string ?? ""
            forgetEverything()
            snapshot += 1   // a snapshot still on its way is of the old owner
            bluezOwner = newOwner.isEmpty ? nil : newOwner
            if newOwner.isEmpty {
                bluezPresent = false
                send(.adapterChanged(AdapterStatus(name: options.adapter ?? "", power: .absent, discovering: false)))
                send(.failure(BackendError(name: "org.bluez.Error.NotAvailable", message: "bluetoothd is not running")))
            } else {
                reload(afterRestart: true)
            }
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesAdded"):
            guard s.args.count == 2, let path = s.args[0].string else { return }
            mirror.add(path: path, s.args[1])
            interfacesAdded(path, (s.args[1].entries ?? []).compactMap { $0.key.string })
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved"):
            guard s.args.count == 2, let path = s.args[0].string, let names = s.args[1].strings else { return }
            // A device removed while its link was up (bluetoothd going down on SIGTERM removes
            // its objects without saying Connected=false first): the link is down too.
            let wasUp = names.contains(BlueZTranslate.device) && mirror[path, BlueZTranslate.device]?["Connected"]?.bool == true
            let removed = mirror.remove(path: path, names)
            if removed.contains(BlueZTranslate.device), let id = ingest.state.deviceIDs.removeValue(forKey: path) {
                devicePaths.removeValue(forKey: id)
                if wasUp {
                    drainAcquired(under: path)
                    send(.disconnected(id, disconnectReasons.removeValue(forKey: id) ?? .other("bluetoothd removed the device")))
                }
                send(.peripheralRemoved(id))
            }
            // A service gone from a connected device's database (Service Changed): the tree again.
            if removed.contains(where: { $0.hasPrefix("org.bluez.Gatt") }), let (id, devicePath) = owningDevice(path) {
                drainAcquired(under: path)
                releaseAcquired(path)
                if resolvedSent.contains(id) || resolving[id] != nil { scheduleResolved(id, devicePath, settle: 0.2) }
            }
        case (BlueZTranslate.device, "Disconnected"):
            // Disconnected(s name, s message), BlueZ versions after the lab's 5.66. Connected
            // turns false right after it: the reason waits for that.
            guard let id = ingest.state.deviceIDs[s.path], let name = s.args.first?.string else { return }
            disconnectReasons[id] = BlueZTranslate.disconnectReason(name, weAsked: localDisconnects.contains(id))
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
            guard s.args.count >= 2, let iface = s.args[0].string, let changed = s.args[1].stringKeyed else { return }
            let invalidated = s.args.count > 2 ? s.args[2].strings ?? [] : []
            ingest.state.propertiesChangedCount += 1
            // Advertising data (RSSI, ManufacturerData, ...) flows straight to the store as
            // events; the mirror keeps what later decisions need (link, GATT, adapter).
            // This is most of the signal traffic in a busy room.
            let advertisingOnly = iface == BlueZTranslate.device && changed.keys.allSatisfy(BlueZTranslate.advertisingProperties.contains)
            if advertisingOnly, invalidated.allSatisfy(BlueZTranslate.advertisingProperties.contains) {
                // nothing to keep
            } else {
                mirror.change(path: s.path, interface: iface, changed: changed, invalidated: invalidated)
            }
            propertiesChanged(s.path, iface, changed, invalidated, advertisingOnly: advertisingOnly)
        default:
            break
        }
    }

    func interfacesAdded(_ path: String, _ names: [String]) {
        if names.contains(BlueZTranslate.adapter), adapterPath == nil { chooseAdapter(); return }
        if names.contains(BlueZTranslate.device) { deviceAppeared(path) }
        if names.contains(where: { $0.hasPrefix("org.bluez.Gatt") }), let (id, devicePath) = owningDevice(path) {
            // GATT objects still arriving: give the tree a moment to settle. After the tree
            // was sent, the device's database changed (Service Changed): send it again.
            if resolving[id] != nil || resolvedSent.contains(id) { scheduleResolved(id, devicePath, settle: 0.2) }
        }
    }

    /// The device a GATT object belongs to: /org/bluez/hci0/dev_XX/service000a/... -> dev_XX.
    func owningDevice(_ path: String) -> (PeripheralID, String)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 4 else { return nil }
        let devicePath = "/" + parts[0..<4].joined(separator: "/")
        return ingest.state.deviceIDs[devicePath].map { ($0, devicePath) }
    }

    func deviceAppeared(_ path: String) {
        guard let a = adapterPath, path.hasPrefix(a + "/"), let props = mirror[path, BlueZTranslate.device] else { return }
        guard let address = props["Address"]?.strictString else {
            // No address, no device: say so, once.
            let problem = props["Address"].map { UnreadableProperty.Problem.wrongType(sent: $0.unwrapped.signature, expected: "s") }
            sayUnreadable([UnreadableProperty(object: path, property: "Address", problem: problem ?? .missing)], of: path)
            return
        }
        let id = PeripheralID(address)
        devicePaths[id] = path
        ingest.state.deviceIDs[path] = id
        var report = BlueZTranslate.report(id: id, props)
        // BlueZ does not say whether a device is connectable; treat all as connectable.
        report.connectable = true
        send(.advertisementReceived(report))
        send(.bondChanged(id, BlueZTranslate.bond(props)))
        // Once a device: every property read, link and pairing ones too.
        sayUnreadable(BlueZTranslate.mistyped(props, object: id.rawValue), of: path)
        if props["Connected"]?.bool == true {
            send(.connected(id))
            if props["ServicesResolved"]?.bool == true { scheduleResolved(id, path, settle: 0) }
        }
    }

    func propertiesChanged(_ path: String, _ iface: String, _ changed: [String: DBusValue], _ invalidated: [String],
                           advertisingOnly: Bool = false) {
        switch iface {
        case BlueZTranslate.adapter where path == adapterPath:
            if changed["Discovering"]?.bool == false { scanning = false }
            sendAdapter()
            // After bluetoothd (re)starts the adapter powers up a moment later: scan then.
            if changed["Powered"]?.bool == true, scanWanted, !scanning { startScan() }
        case BlueZTranslate.device:
            guard let id = ingest.state.deviceIDs[path] else { return }
            if changed.keys.contains(where: BlueZTranslate.advertisingProperties.contains) {
                var unread = false
                send(.advertisementReceived(BlueZTranslate.report(id: id, changed, unread: &unread)))
                // Which, only when one was (this is the path of every advertising change
                // the fast path does not take).
                if unread { sayUnreadable(BlueZTranslate.mistyped(changed, object: id.rawValue), of: path) }
            }
            // Link and pairing properties (a change the mirror keeps, never the storm's).
            if !advertisingOnly { sayUnreadable(BlueZTranslate.mistyped(changed, object: id.rawValue), of: path) }
            if invalidated.contains("RSSI") { send(.rssiLost(id)) }
            if changed.keys.contains(where: BlueZTranslate.bondProperties.contains), let props = mirror[path, iface] {
                send(.bondChanged(id, BlueZTranslate.bond(props)))
            }
            if let connected = changed["Connected"]?.bool {
                if connected {
                    disconnectReasons.removeValue(forKey: id)   // a stale one, never followed by Connected=false
                    stopStallWatch(id)
                    send(.connected(id))
                } else {
                    if let t = resolving.removeValue(forKey: id) { loop?.cancel(t) }
                    resolvedSent.remove(id)
                    // Without BlueZ's reason (5.66 and older): ours if we asked, else the peer's.
                    let asked = localDisconnects.remove(id) != nil
                    let reason = disconnectReasons.removeValue(forKey: id) ?? (asked ? .local : .remote)
                    drainAcquired(under: path)   // values that came before the link dropped
                    releaseAcquired(under: path)
                    subscribed = subscribed.filter { !$0.hasPrefix(path + "/") }
                    // What a stalled connect's Disconnect ended (bluetoothd's own idea of a
                    // link the app never saw up): the connect goes on (`linkStalled`).
                    if connects.restarting.contains(id) { return }
                    send(.disconnected(id, reason))
                }
            }
            if changed["ServicesResolved"]?.bool == true { scheduleResolved(id, path, settle: 0.1) }
        case BlueZTranslate.characteristic:
            // An acquired subscription's values come through its socket only.
            if let value = changed["Value"]?.bytes, mirror[path, iface]?["Notifying"]?.bool == true,
               acquired.sockets[path] == nil {
                send(.valueNotified(AttributeID(path), value))
            }
        default:
            break
        }
    }

    /// ServicesResolved can turn true a little before every GATT object is exported: wait
    /// until InterfacesAdded has been quiet for `settle` seconds, then send the tree.
    func scheduleResolved(_ id: PeripheralID, _ path: String, settle: Double) {
        if let t = resolving[id] { loop?.cancel(t) }
        guard let loop else { return }
        resolving[id] = loop.schedule(after: settle) { [weak self] in
            guard let self else { return }
            self.resolving.removeValue(forKey: id)
            guard self.mirror[path, BlueZTranslate.device]?["Connected"]?.bool == true else { return }
            self.resolvedSent.insert(id)
            // What the tree holds that cannot be read is said now, whatever the MTU's answer.
            var unreadable: [UnreadableProperty] = []
            _ = BlueZTranslate.services(self.mirror, devicePath: path, unreadable: &unreadable)
            self.sayUnreadable(unreadable)
            self.askMTU(path) { [weak self] mtu in
                // Gone meanwhile: its disconnection was sent, and a later link resolves again.
                guard let self, self.resolvedSent.contains(id),
                      self.mirror[path, BlueZTranslate.device]?["Connected"]?.bool == true else { return }
                var said: [UnreadableProperty] = []   // said above
                self.send(.servicesResolved(id, BlueZTranslate.services(self.mirror, devicePath: path, unreadable: &said),
                                            mtu: mtu ?? BlueZTranslate.mtu(self.mirror, devicePath: path)))
            }
        }
    }

    /// The link's MTU, asked of one characteristic (GattCharacteristic1.MTU, BlueZ >= 5.62).
    /// The mirror cannot be trusted with it: bluetoothd drops the property while a device is
    /// disconnected and brings it back on the next link without a signal (5.66, 5.82: a link
    /// whose MTU stays 23 never says it), so a reconnection would have none or the last
    /// link's. nil when there is no characteristic or bluetoothd has no such property.
    func askMTU(_ devicePath: String, _ done: @escaping @MainActor (Int?) -> Void) {
        guard let first = mirror.paths(with: BlueZTranslate.characteristic, under: devicePath).sorted().first else {
            return done(nil)
        }
        call(first, "org.freedesktop.DBus.Properties", "Get", [.string(BlueZTranslate.characteristic), .string("MTU")],
             timeout: 5) { result in
            if case let .success(args) = result, let m = args.first?.strictUInt16, m >= 23 { done(m) } else { done(nil) }
        }
    }

    /// Says each problem once per object (its path: `of`, or the problem's own object, a
    /// GATT path) and property, and none past `unreadableLimit`.
    func sayUnreadable(_ problems: [UnreadableProperty], of path: String? = nil) {
        for p in problems where unreadableSaid.count < Self.unreadableLimit {
            if unreadableSaid.insert((path ?? p.object) + "\u{0}" + p.property).inserted { send(.propertyUnreadable(p)) }
        }
    }
}
