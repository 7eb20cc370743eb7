@preconcurrency import Glibc
import TestSupport
import Testing
@testable import Explorer
@testable import DBus
@testable import BlueZ

/// `serve`'s notifications through AcquireNotify, on a real (private) dbus-daemon whose
/// Unix socket passes file descriptors: a fake org.bluez registers the application,
/// sees `NotifyAcquired` on the notifying characteristic, acquires it as bluetoothd does
/// when a central writes the CCCD, and reads the notifications from the socket it got.
@MainActor
@Suite("serve: notifications through the socket bluetoothd acquires", .serialized)
final class GattServerSocketTests {
    let bus: PrivateBus
    let loop = EventLoop()
    let bluez: DBusConnection
    let app: DBusConnection
    let server: GattServer
    var events: [ServeEvent] = []
    var registered = false
    static let central = "/org/bluez/hci0/dev_F0_F1_F2_F3_F4_09"

    init() throws {
        bus = try PrivateBus()
        bluez = try DBusConnection.open(address: bus.address, loop: loop)
        app = try DBusConnection.open(address: bus.address, loop: loop)
        server = GattServer(spec: GattObjectsTests.spec, adapter: "hci0", bus: app, loop: loop, instance: 1)
        bluez.exportHandler { [unowned self] call in
            if call.member == "RegisterAdvertisement" { registered = true }
            return .values([])
        }
        var owned: Result<UInt32, DBusError>?
        bluez.requestName("org.bluez") { owned = $0 }
        #expect(loop.run(until: { owned != nil }, timeout: 5))
        server.onEvent = { [unowned self] in events.append($0) }
        server.start()
        #expect(loop.run(until: { self.registered }, timeout: 5))
    }

    /// What bluetoothd reads of the application (GetManagedObjects on its root).
    func tree() -> [String: [String: DBusValue]] {
        var reply: Result<[DBusValue], DBusError>?
        bluez.call(DBusCall(destination: app.uniqueName, path: "/org/bleexplr/serve1", interface: "org.freedesktop.DBus.ObjectManager",
                            member: "GetManagedObjects"), timeout: 5) { reply = $0 }
        _ = loop.run(until: { reply != nil }, timeout: 5)
        var out: [String: [String: DBusValue]] = [:]
        for e in (try? reply?.get().first?.entries) ?? [] {
            guard let path = e.key.string else { continue }
            out[path] = e.value.entries?.first?.value.stringKeyed
        }
        return out
    }

    /// AcquireNotify as bluetoothd calls it: the socket and the MTU, or the error.
    func acquire(_ path: String, mtu: UInt16 = 247) -> Result<(Int32, Int), DBusError>? {
        var reply: Result<[DBusValue], DBusError>?
        bluez.call(DBusCall(destination: app.uniqueName, path: path, interface: GattObjects.characteristic, member: "AcquireNotify",
                            args: [.vardict(["mtu": .uint16(mtu), "device": .objectPath(Self.central), "link": .string("LE")])]),
                   timeout: 5) { reply = $0 }
        _ = loop.run(until: { reply != nil }, timeout: 5)
        return reply.map { r in r.flatMap { args in
            guard args.count == 2, let fd = args[0].fd, let m = args[1].int else {
                return .failure(DBusError(name: "test.BadReply", message: "\(args)"))
            }
            return .success((fd.take(), m))
        } }
    }

    func packets(_ fd: Int32) -> [Bytes] {
        var out: [Bytes] = []
        var buf = [UInt8](repeating: 0, count: 1024)
        while true {
            let n = recv(fd, &buf, buf.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { return out }
            out.append(Array(buf[0..<n]))
        }
    }

    @Test func theNotifyingCharacteristicOffersASocketAndEachValueIsOnePacket() throws {
        let t = tree()
        #expect(t["/org/bleexplr/serve1/service0/char0"]?["NotifyAcquired"]?.bool == false)
        #expect(t["/org/bleexplr/serve1/service0/char1"]?["NotifyAcquired"] == nil)   // read only

        let (fd, mtu) = try #require(acquire("/org/bleexplr/serve1/service0/char0")).get()
        defer { close(fd) }
        #expect(mtu == 247)
        #expect(events.last == .acquired(CharacteristicEvent(uuid: "2A6E", path: "/org/bleexplr/serve1/service0/char0",
                                                             central: "F0:F1:F2:F3:F4:09"), mtu: 247))
        #expect(server.mtu == 247)
        #expect(server.isNotifying("2A6E"))
        #expect(tree()["/org/bleexplr/serve1/service0/char0"]?["NotifyAcquired"]?.bool == true)

        #expect(server.notify("2A6E", [0x01, 0x02]))
        #expect(server.notify("2A6E", Array(repeating: 0xAB, count: 244)))
        #expect(packets(fd) == [[0x01, 0x02], Array(repeating: 0xAB, count: 244)])
    }

    @Test func whatTheSocketCannotTakeWaitsAndDrainedSaysWhenItWentIn() throws {
        let (fd, _) = try #require(acquire("/org/bleexplr/serve1/service0/char0")).get()
        defer { close(fd) }
        // bluetoothd not reading: the socket fills, then values wait (up to the limit), then are refused.
        var accepted = 0
        let value = Array(repeating: UInt8(0x5A), count: 500)
        while server.notify("2A6E", value) { accepted += 1; if accepted > 100_000 { break } }
        #expect(accepted < 100_000)
        var drained: Bool?
        server.drained("2A6E") { drained = $0 }
        _ = loop.run(until: { drained != nil }, timeout: 0.2)
        #expect(drained == nil)   // nothing taken yet: still waiting
        // bluetoothd reads: everything accepted arrives, in order, and the drain answers.
        var got = 0
        #expect(loop.run(until: { got += self.packets(fd).count; return drained != nil && got == accepted }, timeout: 5))
        #expect(drained == true)
        #expect(got == accepted)
    }

    @Test func bluetoothdClosingItsEndIsAnUnsubscription() throws {
        let (fd, _) = try #require(acquire("/org/bleexplr/serve1/service0/char0")).get()
        close(fd)
        #expect(loop.run(until: { self.events.last.map { if case .unsubscribed = $0 { return true }; return false } ?? false },
                         timeout: 5))
        #expect(!server.isNotifying("2A6E"))
        #expect(server.notify("2A6E", [0x01]) == false)
        #expect(tree()["/org/bleexplr/serve1/service0/char0"]?["NotifyAcquired"]?.bool == false)
    }

    @Test func aCharacteristicWithoutNotifyRefusesASocket() {
        guard case let .failure(e)? = acquire("/org/bleexplr/serve1/service0/char1") else {
            Issue.record("acquired a read-only characteristic"); return
        }
        #expect(e.name == "org.bluez.Error.NotSupported")
    }
}
