import TestSupport
import Testing
@testable import Explorer
@testable import DBus
@testable import BlueZ

/// A fake org.bluez on a real (private) dbus-daemon, exported by one connection, and the
/// BlueZ backend on a second: match rules, signal delivery and call arguments as a real bus
/// does them. GetManagedObjects answers `objects`; every other call goes to `answer` (none:
/// an empty reply). `start()` takes the name and starts the backend.
@MainActor
final class FakeOrgBlueZ {
    let bus: PrivateBus
    let loop = EventLoop()
    let bluez: DBusConnection
    let client: DBusConnection
    let backend: BlueZBackend
    /// Every call to org.bluez, in order.
    var calls: [DBusMethodCall] = []
    var events: [BackendEvent] = []
    var answer: (@MainActor (DBusMethodCall) -> DBusReply)?

    init(objects: [String: [String: [String: DBusValue]]]) throws {
        bus = try PrivateBus()
        bluez = try DBusConnection.open(address: bus.address, loop: loop)
        client = try DBusConnection.open(address: bus.address, loop: loop)
        backend = BlueZBackend(bus: client)
        let tree = BlueZBackendTests.tree(objects)
        bluez.exportHandler { [unowned self] call in
            calls.append(call)
            if call.path == "/", call.member == "GetManagedObjects" { return .values([tree]) }
            return answer?(call) ?? .values([])
        }
    }

    func start() {
        var owned: Result<UInt32, DBusError>?
        bluez.requestName("org.bluez") { owned = $0 }
        #expect(loop.run(until: { owned != nil }, timeout: 5))
        backend.start(loop: loop) { [unowned self] e, _ in events.append(e) }
    }
}
