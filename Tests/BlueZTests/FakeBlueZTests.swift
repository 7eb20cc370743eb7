import TestSupport
import Testing
@testable import Explorer
@testable import DBus
@testable import BlueZ

/// The BlueZ backend on a real (private) dbus-daemon, against a fake org.bluez exported
/// by a second connection: match rules, signal delivery and call arguments as a real
/// bus does them. (PrivateBus.swift is shared with DBusTests.)
@MainActor
@Suite("BlueZ backend against a fake org.bluez on a private bus", .serialized)
final class FakeBlueZTests {
    static let dev = "/org/bluez/hci0/dev_E4_1C_22_5D_90_11"
    static let chr = dev + "/service000a/char000b"
    static let id = PeripheralID("E4:1C:22:5D:90:11")
    static let value: [UInt8] = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)

    let fake: FakeOrgBlueZ
    var loop: EventLoop { fake.loop }
    var bluez: DBusConnection { fake.bluez }
    var backend: BlueZBackend { fake.backend }
    var calls: [DBusMethodCall] { fake.calls }
    var events: [BackendEvent] { fake.events }

    init() throws {
        fake = try FakeOrgBlueZ(objects: [
            "/org/bluez/hci0": BlueZBackendTests.adapter,
            Self.dev: ["org.bluez.Device1": ["Address": .string("E4:1C:22:5D:90:11"), "Connected": .bool(true),
                                             "ServicesResolved": .bool(false), "RSSI": .int16(-60)]],
        ])
        fake.answer = { call in
            guard call.path == Self.chr, call.member == "ReadValue" else { return .values([]) }
            // As BlueZ: the value from `offset` on.
            let options = call.args.first?.stringKeyed ?? [:]
            let offset = options["offset"]?.int ?? 0
            guard offset <= Self.value.count else {
                return .error(DBusError(name: "org.bluez.Error.InvalidOffset", message: "Invalid offset"))
            }
            return .values([.bytes(Array(Self.value.dropFirst(offset)))])
        }
        fake.start()
        // The snapshot comes after the match rules (same connection, in order): once the
        // device is here, every rule is in place.
        #expect(loop.run(until: { self.events.contains(.connected(Self.id)) }, timeout: 5))
    }

    @Test func readValueCarriesTheOffset() throws {
        let c = AttributeID(Self.chr)
        backend.execute(.read(Self.id, c, offset: 30))
        #expect(loop.run(until: { self.events.last == .readCompleted(c, .success(Array("uvwxyz".utf8))) }, timeout: 5))
        let read = try #require(calls.last { $0.member == "ReadValue" })
        #expect(read.interface == "org.bluez.GattCharacteristic1")
        #expect(read.args == [.dict(key: "s", value: "v", [DBusDictEntry(.string("offset"), .variant(.uint16(30)))])])
        backend.execute(.read(Self.id, c))
        #expect(loop.run(until: { self.events.last == .readCompleted(c, .success(Self.value)) }, timeout: 5))
        #expect(calls.last { $0.member == "ReadValue" }?.args == [.dict(key: "s", value: "v", [])])
    }

    /// Device1.Disconnected reaches the backend through the namespace-wide rules, and the
    /// drop that follows carries its reason.
    @Test func disconnectedSignalGivesTheReason() throws {
        try bluez.emitSignal(path: Self.dev, interface: "org.bluez.Device1", member: "Disconnected",
                             args: [.string("org.bluez.Reason.Timeout"), .string("Connection timed out")])
        try bluez.emitSignal(path: Self.dev, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                             args: [.string("org.bluez.Device1"), .vardict(["Connected": .bool(false)]),
                                    .array(element: "s", [])])
        #expect(loop.run(until: { self.events.contains { if case .disconnected = $0 { return true }; return false } },
                         timeout: 5))
        #expect(events.last == .disconnected(Self.id, .timeout))
    }

    /// The storm's signal, over a real bus: the fast path reads it.
    @Test func advertisingChangeOverTheBus() throws {
        let before = backend.propertiesChangedCount
        try bluez.emitSignal(path: Self.dev, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                             args: [.string("org.bluez.Device1"),
                                    .vardict(["RSSI": .int16(-42), "ManufacturerData": .dict(key: "q", value: "v", [
                                        DBusDictEntry(.uint16(0x0059), .variant(.bytes([1, 2, 3])))])]),
                                    .array(element: "s", [])])
        let expected = BackendEvent.advertisementsReceived([AdvertisementReport(
            id: Self.id, address: Self.id.rawValue, name: nil, rssi: -42, connectable: nil,
            advertisement: Advertisement(manufacturerData: [0x0059: [1, 2, 3]]))])
        #expect(loop.run(until: { self.events.last == expected }, timeout: 5))
        #expect(backend.propertiesChangedCount == before + 1)
    }
}
