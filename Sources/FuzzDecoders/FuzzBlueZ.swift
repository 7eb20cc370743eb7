#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Explorer
import DBus
import BlueZ

/// A bus on which org.bluez says whatever the fuzz bytes say: the real BlueZ backend is
/// started on it, answered with a GetManagedObjects of any shape, then sent signals
/// (PropertiesChanged, InterfacesAdded/Removed, NameOwnerChanged, Disconnected) with
/// arguments of any types in any place, each as a real bus delivers it (the fast path
/// first, on a real message, then the values). Its calls are answered with values or
/// errors of any kind, or never.
@MainActor
final class FuzzBus: DBusClient {
    var signalHandler: (@MainActor (DBusSignal) -> Void)?
    var fastSignalHandler: (@MainActor (DBusRawSignal) -> Bool)?
    var signalsDispatched: (@MainActor () -> Void)?
    var disconnectHandler: (@MainActor () -> Void)?
    var pending: [(DBusCall, @MainActor (Result<[DBusValue], DBusError>) -> Void)] = []

    func call(_ call: DBusCall, timeout: Double, reply: @escaping @MainActor (Result<[DBusValue], DBusError>) -> Void) {
        pending.append((call, reply))
    }
    func addMatch(_ rule: String, reply: (@MainActor (DBusError?) -> Void)?) { reply?(nil) }
    func exportHandler(_ handler: (@MainActor (DBusMethodCall) -> DBusReply?)?) {}
    func reply(to call: DBusMethodCall, with reply: DBusReply) throws(DBusError) {}

    func signal(_ path: String, _ interface: String, _ member: String, _ args: [DBusValue]) {
        if let fast = fastSignalHandler,
           DBusRawSignal.with(path: path, interface: interface, member: member, args: args, fast) == true {
            return
        }
        signalHandler?(DBusSignal(sender: ":1.9", path: path, interface: interface, member: member, args: args))
    }
}

enum FuzzBlueZ {
    @MainActor
    static func run(_ bytes: Bytes) -> [String] {
        var f = FuzzValues(bytes)
        let bus = FuzzBus(), loop = EventLoop()
        var events: [BackendEvent] = []
        let backend = BlueZBackend(bus: bus, options: .init(agent: nil))
        backend.start(loop: loop) { e, _ in events.append(e) }
        backend.execute(.startScan)
        var steps = 0
        while !f.exhausted, steps < 64 {
            steps += 1
            switch f.byte() % 10 {
            case 0, 1:
                // The oldest call answered: the snapshot as values, anything else as anything.
                guard !bus.pending.isEmpty else { continue }
                let (call, reply) = bus.pending.removeFirst()
                switch f.byte() % 4 {
                case 0: reply(.failure(DBusError(name: f.pick(["org.bluez.Error.Failed", "org.bluez.Error.InProgress",
                                                               "com.example.Unknown", "org.freedesktop.DBus.Error.NoReply"]),
                                                 message: f.string())))
                case 1: reply(.success((0..<Int(f.byte() % 3)).map { _ in f.any() }))
                default: reply(.success(call.member == "GetManagedObjects" ? [f.managedObjects()] : []))
                }
            case 2, 3, 4:
                let changed = f.byte() % 4 == 0 ? f.any() : f.properties()
                let invalidated: DBusValue = f.byte() % 4 == 0 ? f.any()
                    : .array(element: "s", (0..<Int(f.byte() % 3)).map { _ in .string(f.pick(FuzzValues.properties)) })
                bus.signal(f.path(), "org.freedesktop.DBus.Properties", "PropertiesChanged",
                           [f.byte() % 8 == 0 ? f.any() : .string(f.pick(FuzzValues.interfaces)), changed, invalidated])
            case 5, 6:
                bus.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
                           [f.byte() % 8 == 0 ? f.any() : .objectPath(f.path()), f.byte() % 8 == 0 ? f.any() : f.interfaceMap()])
            case 7:
                bus.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved",
                           [.objectPath(f.path()), .array(element: "s", (0..<Int(f.byte() % 3)).map { _ in .string(f.pick(FuzzValues.interfaces)) })])
            case 8:
                bus.signal("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                           [.string("org.bluez"), .string(f.pick(["", ":1.9", ":1.10"])), .string(f.pick(["", ":1.9", ":1.10"]))])
            default:
                // A command from the app, as the reducer would send one.
                let id = PeripheralID(f.pick(["E4:1C:22:5D:90:11", "C0:FF:EE:00:00:01"]))
                let cid = AttributeID(f.pick(FuzzValues.paths))
                backend.execute(f.pick([BackendCommand.connect(id), .disconnect(id), .read(id, cid, offset: 0), .setNotify(id, cid, true),
                                        .stopScan, .startScan, .write(id, cid, [1, 2], .request), .readDescriptor(id, cid),
                                        .pair(id), .forget(id)]))
            }
            bus.signalsDispatched?()
        }
        // Now and then the timers too (the GATT tree of a device connected and resolved in
        // the snapshot is sent at once): a millisecond of the loop.
        if f.byte() % 4 == 0 { _ = loop.run(until: { false }, timeout: 0.001) }
        backend.shutdown()
        #if !FUZZING
        // The corpus replayer, asked (FUZZ_SHOW_EVENTS=1): what the backend made of the script,
        // for the tests that check a seed says what it is meant to (Tests/Fuzz/bluez-seeds.py).
        if getenv("FUZZ_SHOW_EVENTS") != nil { for e in events { print("event: " + String(reflecting: e)) } }
        #endif
        return FuzzScreens.texts(events, pick: bytes.reduce(0, &+))
    }
}
