import TestSupport
import Testing
@testable import Explorer
@testable import DBus
@testable import BlueZ

/// A Connect that brings no link (bluetoothd 5.66 in the lab: "Device … is already
/// connected", no Connected=true, the Connect unanswered): once, the backend gives it up
/// with Disconnect and connects again as attempt 2. Against a fake org.bluez on a private bus.
@MainActor
@Suite("BlueZ backend: a connect that brings no link is made again", .serialized)
final class ConnectStallTests {
    static let dev = "/org/bluez/hci0/dev_E4_1C_22_5D_90_22"
    static let id = PeripheralID("E4:1C:22:5D:90:22")

    let fake: FakeOrgBlueZ
    var loop: EventLoop { fake.loop }
    var backend: BlueZBackend { fake.backend }
    var events: [BackendEvent] { fake.events }
    /// The calls to the device, by name.
    var calls: [String] { fake.calls.filter { $0.path == Self.dev }.map(\.member) }
    /// How the fake answers each Connect, in order (nil: never).
    var connectAnswers: [Bool?] = []

    init() throws {
        fake = try FakeOrgBlueZ(objects: [
            "/org/bluez/hci0": BlueZBackendTests.adapter,
            Self.dev: ["org.bluez.Device1": ["Address": .string("E4:1C:22:5D:90:22"), "Connected": .bool(false),
                                             "ServicesResolved": .bool(false), "RSSI": .int16(-60)]],
        ])
        fake.backend.connects.stallSeconds = 0.4
        fake.backend.connects.settleSeconds = 0.2
        fake.answer = { [unowned self] call in
            switch (call.path, call.member) {
            case (Self.dev, "Connect"):
                let n = calls.filter { $0 == "Connect" }.count
                guard n <= connectAnswers.count, let up = connectAnswers[n - 1] else { return .deferred }
                if up { connected(true) }
                return up ? .values([]) : .error(DBusError(name: "org.bluez.Error.Failed", message: "Page Timeout"))
            case (Self.dev, "Disconnect"):
                // bluetoothd ends the link it thought it had.
                connected(false)
                return .values([])
            default:
                return .values([])
            }
        }
        fake.start()
        #expect(loop.run(until: { self.events.contains { if case .advertisementReceived = $0 { return true }; return false } },
                         timeout: 5))
    }

    func connected(_ up: Bool) {
        try? fake.bluez.emitSignal(path: Self.dev, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                              args: [.string("org.bluez.Device1"), .vardict(["Connected": .bool(up)]), .array(element: "s", [])])
    }

    var linkEvents: [BackendEvent] {
        events.filter {
            switch $0 {
            case .connecting, .connected, .disconnected, .connectFailed: return true
            default: return false
            }
        }
    }

    @Test func noLinkInTimeIsGivenUpAndAskedForAgain() throws {
        connectAnswers = [nil, true]
        backend.execute(.connect(Self.id))
        #expect(loop.run(until: { self.events.contains(.connected(Self.id)) }, timeout: 5), "\(calls) \(events)")
        #expect(calls == ["Connect", "Disconnect", "Connect"])
        // The Connected=false of the Disconnect is no link lost: the app never saw the link up.
        #expect(linkEvents == [.connecting(Self.id, attempt: 1), .connecting(Self.id, attempt: 2), .connected(Self.id)])
    }

    @Test func aLinkInTimeIsLeftAlone() throws {
        connectAnswers = [true]
        backend.execute(.connect(Self.id))
        #expect(loop.run(until: { self.events.contains(.connected(Self.id)) }, timeout: 5))
        _ = loop.run(until: { false }, timeout: 0.8)
        #expect(calls == ["Connect"])
    }

    @Test func theSecondAttemptIsNotMadeAgain() throws {
        connectAnswers = [nil, nil]
        backend.execute(.connect(Self.id))
        _ = loop.run(until: { false }, timeout: 1.5)
        #expect(calls == ["Connect", "Disconnect", "Connect"])
        #expect(linkEvents == [.connecting(Self.id, attempt: 1), .connecting(Self.id, attempt: 2)])
    }

    @Test func givingUpTheConnectStopsTheWatch() throws {
        connectAnswers = [nil]
        backend.execute(.connect(Self.id))
        _ = loop.run(until: { false }, timeout: 0.1)
        backend.execute(.disconnect(Self.id))
        _ = loop.run(until: { false }, timeout: 0.8)
        #expect(calls == ["Connect", "Disconnect"])
        #expect(!linkEvents.contains(.connecting(Self.id, attempt: 2)))
    }
}
