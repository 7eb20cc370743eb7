import Testing
@testable import Explorer
@testable import DBus
@testable import BlueZ

/// bluetoothd restarting under `--adapter hci0`, as the lab's chaos test does it ten times: the
/// new bluetoothd takes its bus name first and adds its adapters one by one after that.
@MainActor
@Suite("BlueZ backend across bluetoothd restarts")
struct BlueZRestartTests {
    typealias T = BlueZBackendTests
    static let absent = BackendEvent.adapterChanged(AdapterStatus(name: "hci0", power: .absent, discovering: false))
    static let hci1: [String: [String: DBusValue]] = ["org.bluez.Adapter1": ["Powered": .bool(true), "Discovering": .bool(false)]]

    static func started() -> (FakeBus, BlueZBackend, T.Sink, EventLoop) {
        let bus = FakeBus(), loop = EventLoop(), sink = T.Sink()
        let backend = BlueZBackend(bus: bus, options: .init(adapter: "hci0"))
        backend.adapterGraceSeconds = 0.2
        backend.start(loop: loop) { e, _ in sink.events.append(e) }
        bus.answer("GetManagedObjects", .success([T.tree(["/org/bluez/hci0": T.adapter, "/org/bluez/hci1": hci1])]))
        return (bus, backend, sink, loop)
    }

    static func owner(_ bus: FakeBus, _ old: String, _ new: String) {
        bus.signal("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged", [.string("org.bluez"), .string(old), .string(new)])
    }

    static func added(_ bus: FakeBus, _ path: String, _ ifaces: [String: [String: DBusValue]]) {
        bus.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", [.objectPath(path), T.ifaces(ifaces)])
    }

    static func noAdapter(_ e: BackendEvent) -> Bool {
        if case let .failure(f) = e { return f.message.hasPrefix("no adapter") }
        return false
    }

    @Test func oneOutageAndNoNoAdapterWhileTheAdaptersComeBack() {
        let (bus, backend, sink, loop) = Self.started()
        defer { withExtendedLifetime(backend) {} }
        let before = sink.events.count
        Self.owner(bus, ":1.5", "")
        Self.owner(bus, "", ":1.9")
        bus.answer("GetManagedObjects", .success([T.tree([:])]))   // the name is taken, no adapter yet
        Self.added(bus, "/org/bluez/hci1", Self.hci1)                // not ours
        Self.added(bus, "/org/bluez/hci0", T.adapter)
        T.spin(loop, 0.4)                                            // longer than the grace: it was cancelled
        let after = Array(sink.events[before...])
        #expect(after.filter { $0 == Self.absent }.count == 1, "one outage: \(after)")
        #expect(!after.contains(where: Self.noAdapter), "no \"no adapter\" while bluetoothd starts: \(after)")
        #expect(after.last == .adapterChanged(AdapterStatus(name: "hci0", power: .on, discovering: false)))
        #expect(backend.adapterPath == "/org/bluez/hci0")
    }

    @Test func anAdapterThatStaysAwayIsSaidOnce() {
        let (bus, backend, sink, loop) = Self.started()
        defer { withExtendedLifetime(backend) {} }
        let before = sink.events.count
        Self.owner(bus, ":1.5", "")
        Self.owner(bus, "", ":1.9")
        bus.answer("GetManagedObjects", .success([T.tree(["/org/bluez/hci1": Self.hci1])]))
        Self.added(bus, "/org/bluez/hci2", Self.hci1)
        let early = Array(sink.events[before...])
        #expect(!early.contains(where: Self.noAdapter), "not before the grace: \(early)")
        T.spin(loop, 0.4)
        let after = Array(sink.events[before...])
        #expect(after.filter(Self.noAdapter) == [.failure(.failed("no adapter hci0 (found: hci1, hci2)"))], "\(after)")
        #expect(after.filter { $0 == Self.absent }.count == 1, "one outage: \(after)")
    }

    /// A Disconnect asked for a device bluetoothd no longer knows (it restarted meanwhile), or
    /// refused while no link is up: the device is said disconnected, so the app does not wait
    /// for it to go down for good (Enter on a device "disconnecting" would do nothing).
    @Test func aDisconnectWithNoLinkToEndSaysDisconnected() {
        let (bus, backend, sink, _) = T.started()
        defer { withExtendedLifetime(backend) {} }
        backend.execute(.disconnect(T.id))
        bus.answer("Disconnect", .failure(DBusError(name: "org.bluez.Error.NotConnected", message: "Not Connected")))
        #expect(Array(sink.events.suffix(2)) == [.failure(.notConnected("Not Connected")), .disconnected(T.id, .local)])
        Self.owner(bus, ":1.5", "")
        let before = sink.events.count
        backend.execute(.disconnect(T.id))
        #expect(Array(sink.events[before...]) == [.disconnected(T.id, .local)], "no Disconnect to send: \(sink.events[before...])")
        #expect(bus.pending("Disconnect") == nil)
    }

    /// bluetoothd going down on SIGTERM removes a connected device's objects without saying
    /// Connected=false first: the link is said down, once (not again when its name goes).
    @Test func aConnectedDeviceRemovedIsDisconnectedOnce() {
        let (bus, backend, sink, _) = T.started()
        defer { withExtendedLifetime(backend) {} }
        bus.changed(T.dev, "org.bluez.Device1", ["Connected": .bool(true)])
        let before = sink.events.count
        bus.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved",
                   [.objectPath(T.dev), .array(element: "s", [.string("org.bluez.Device1"), .string("org.freedesktop.DBus.Properties")])])
        Self.owner(bus, ":1.5", "")
        let after = Array(sink.events[before...])
        #expect(after.filter { if case .disconnected = $0 { return true }; return false }
                == [.disconnected(T.id, .other("bluetoothd removed the device"))], "\(after)")
        #expect(after.contains(.peripheralRemoved(T.id)))
    }

    /// Forget, trust or block a device bluetoothd no longer knows: said, not nothing.
    @Test func forgetOrTrustADeviceGoneWithBluetoothdSaysSo() {
        let (bus, backend, sink, _) = T.started()
        defer { withExtendedLifetime(backend) {} }
        Self.owner(bus, ":1.5", "")
        let before = sink.events.count
        backend.execute(.forget(T.id))
        backend.execute(.setTrusted(T.id, true))
        #expect(Array(sink.events[before...]) == [
            .failure(.failed("cannot forget \(T.id): bluetoothd does not know this device (any more)")),
            .failure(.failed("cannot set Trusted of \(T.id): bluetoothd does not know this device (any more)")),
        ])
    }

    /// A refused Disconnect on a link that is up says only the refusal.
    @Test func aRefusedDisconnectOfALinkUpSaysTheRefusal() {
        let (bus, backend, sink, _) = T.started()
        defer { withExtendedLifetime(backend) {} }
        bus.changed(T.dev, "org.bluez.Device1", ["Connected": .bool(true)])
        backend.execute(.disconnect(T.id))
        bus.answer("Disconnect", .failure(DBusError(name: "org.bluez.Error.Failed", message: "busy")))
        #expect(sink.events.last == .failure(.failed("busy")))
    }

    @Test func theFirstSnapshotStillSaysItAtOnce() {
        let bus = FakeBus(), loop = EventLoop(), sink = T.Sink()
        let backend = BlueZBackend(bus: bus, options: .init(adapter: "hci0"))
        backend.start(loop: loop) { e, _ in sink.events.append(e) }
        bus.answer("GetManagedObjects", .success([T.tree(["/org/bluez/hci1": Self.hci1])]))
        #expect(sink.events.filter(Self.noAdapter) == [.failure(.failed("no adapter hci0 (found: hci1)"))])
    }
}

/// bluetoothd killed (SIGKILL) while scanning leaves the kernel's discovery on; the new
/// bluetoothd then answers StartDiscovery with InProgress though nothing scans for it.
@MainActor
@Suite("Scanning again after bluetoothd was killed")
struct BlueZScanAfterKillTests {
    typealias T = BlueZBackendTests

    @Test func inProgressWithoutDiscoveringIsTriedAgain() {
        let (bus, backend, _, loop) = T.started()
        defer { withExtendedLifetime(backend) {} }
        backend.scanRetrySeconds = 0.05
        backend.execute(.startScan)
        bus.answer("SetDiscoveryFilter", .success([]))
        bus.answer("StartDiscovery", .failure(DBusError(name: "org.bluez.Error.InProgress", message: "Operation already in progress")))
        #expect(!backend.scanning)
        T.spin(loop, 0.2)
        bus.answer("SetDiscoveryFilter", .success([]))
        bus.answer("StartDiscovery", .success([]))
        #expect(backend.scanning)
        T.spin(loop, 0.2)
        #expect(bus.pending("SetDiscoveryFilter") == nil, "no more tries once it started")
    }

    @Test func inProgressWhileAnotherClientScansIsMerged() {
        var discovering = T.adapter
        discovering["org.bluez.Adapter1"]!["Discovering"] = .bool(true)
        let (bus, backend, _, loop) = T.started(["/org/bluez/hci0": discovering])
        defer { withExtendedLifetime(backend) {} }
        backend.scanRetrySeconds = 0.05
        backend.execute(.startScan)
        bus.answer("SetDiscoveryFilter", .success([]))
        bus.answer("StartDiscovery", .failure(DBusError(name: "org.bluez.Error.InProgress", message: "Operation already in progress")))
        #expect(backend.scanning)
        T.spin(loop, 0.2)
        #expect(bus.pending("SetDiscoveryFilter") == nil)
    }
}
