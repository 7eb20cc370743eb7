import Testing
@testable import Explorer
@testable import DBus
@testable import BlueZ

/// A lying org.bluez (issue 20): properties at the wrong D-Bus types, mandatory ones
/// missing, objects where none belong, a device that appears and vanishes in one read,
/// 100,000 UUIDs, a 64 KiB name, errors with names nobody knows, a snapshot whose owner
/// changed while it was on its way. The backend shows what it can, drops what it cannot
/// read and keeps its memory bounded. (The scripted bus of BlueZBackendTests; the same
/// faults over a real bus and through the real binary are in FakeBlueZFaultTests and
/// LyingBlueZEndToEndTests.)
@MainActor
@Suite("BlueZ backend against a lying org.bluez")
struct LyingBlueZTests {
    typealias T = BlueZBackendTests
    static let dev = T.dev
    static let id = T.id

    static func device(_ props: [String: DBusValue]) -> [String: [String: DBusValue]] { ["org.bluez.Device1": props] }

    static func reports(_ sink: T.Sink) -> [AdvertisementReport] {
        sink.facts.compactMap { if case let .advertisementReceived(r) = $0 { r } else { nil } }
    }

    /// What the backend said it could not read, as "object property problem".
    static func unreadable(_ sink: T.Sink) -> [String] {
        sink.events.compactMap {
            guard case let .propertyUnreadable(p) = $0 else { return nil }
            switch p.problem {
            case let .wrongType(sent, expected): return "\(p.object) \(p.property) \(sent)!=\(expected)"
            case .missing: return "\(p.object) \(p.property) missing"
            }
        }
    }

    /// RSSI as an int64 (what crashed the full-screen app), a string, an int32 out of
    /// int8's range; TxPower as an int64; UUIDs as an integer; company ids as strings.
    @Test func propertiesOfTheWrongTypeAreNotRead() throws {
        let (bus, backend, sink, _) = T.started(["/org/bluez/hci0": T.adapter, Self.dev: Self.device([
            "Address": .string("E4:1C:22:5D:90:11"), "RSSI": .int64(Int64.max), "TxPower": .int64(Int64.min),
            "UUIDs": .uint32(7), "Name": .objectPath("/not/a/name"), "Appearance": .int64(1 << 40),
            "ManufacturerData": .dict(key: "s", value: "v", [DBusDictEntry(.string("76"), .variant(.bytes([1])))]),
            "ServiceData": .dict(key: "s", value: "s", [DBusDictEntry(.string("feaa"), .string("x"))]),
            "Connected": .string("yes"), "Paired": .int32(1),
        ])])
        defer { withExtendedLifetime(backend) {} }
        let r = try #require(Self.reports(sink).last)
        #expect(r.rssi == nil && r.name == nil)
        #expect(r.advertisement == Advertisement())
        #expect(!sink.events.contains(.connected(Self.id)))   // Connected "yes" is not true
        // And as changes, through the general path (not advertising-only types) and the fast one.
        sink.events.removeAll()
        for v: DBusValue in [.int64(Int64.max), .string("-40"), .int32(-40), .uint64(UInt64.max), .int16(.max), .int16(.min)] {
            bus.changed(Self.dev, "org.bluez.Device1", ["RSSI": v])
        }
        bus.changed(Self.dev, "org.bluez.Device1", ["RSSI": .int16(-40), "TxPower": .int32(9)])
        #expect(Self.reports(sink).map(\.rssi) == [nil, nil, nil, nil, nil, nil, -40])
        #expect(Self.reports(sink).last?.advertisement.txPower == nil)
        #expect(BlueZTranslate.mistyped(["RSSI": .int64(3), "UUIDs": .int32(1), "Name": .string("ok")], object: "A").map(\.property)
                == ["RSSI", "UUIDs"])
    }

    /// A Device1 without its Address is no device; an adapter without Powered is off; a
    /// service without a UUID is left out of the tree.
    @Test func missingMandatoryPropertiesAreNoCrash() {
        let gatt = Self.dev + "/service0010"
        let (bus, backend, sink, loop) = T.started([
            "/org/bluez/hci0": ["org.bluez.Adapter1": ["Discovering": .string("no")]],
            Self.dev + "0": Self.device(["Name": .string("no address")]),
            Self.dev: Self.device(["Address": .string("E4:1C:22:5D:90:11"), "Connected": .bool(true), "ServicesResolved": .bool(true)]),
            gatt: ["org.bluez.GattService1": ["Primary": .bool(true)]],
            gatt + "/char0011": ["org.bluez.GattCharacteristic1": ["UUID": .uint16(0x2A37), "Flags": .string("read")]],
            Self.dev + "/service0020": ["org.bluez.GattService1": ["UUID": .string("180f")]],
        ])
        defer { withExtendedLifetime(backend) {} }
        #expect(sink.events.first == .adapterChanged(AdapterStatus(name: "hci0", power: .poweredOff, discovering: false)))
        #expect(Self.reports(sink).map(\.id) == [Self.id])
        T.spin(loop, 0.05)
        bus.answer("Get", .success([.variant(.string("not an MTU"))]))   // a lying MTU is no MTU
        let resolved = sink.events.compactMap { if case let .servicesResolved(_, s, _) = $0 { s } else { nil } }.last
        #expect(sink.events.contains { if case .servicesResolved(_, _, nil) = $0 { true } else { false } })
        #expect(resolved?.map(\.uuid) == ["180F"])
        #expect(resolved?.first?.characteristics.isEmpty == true)
        // And each is said, once: the device without an address, the service without a UUID
        // (its characteristic, with a UUID of the wrong type, goes with it unread).
        #expect(Self.unreadable(sink) == [Self.dev + "0 Address missing", gatt + " UUID missing"])
        _ = bus
    }

    /// Devices outside the adapter, at the root, at the adapter's own path, and GATT
    /// objects too shallow or too deep to belong to a device.
    @Test func objectsUnderUnexpectedPaths() {
        let (bus, backend, sink, _) = T.started(["/org/bluez/hci0": T.adapter])
        defer { withExtendedLifetime(backend) {} }
        let strays = ["/", "/org/bluez/hci0", "/org/bluez/hci1/dev_11_22_33_44_55_66", "/elsewhere/dev_AA",
                      "/org/bluez/hci0x/dev_11_22_33_44_55_66"]
        for (i, path) in strays.enumerated() {
            bus.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
                       [.objectPath(path), T.ifaces(Self.device(["Address": .string("11:22:33:44:55:6\(i)")]))])
        }
        for path in ["/org", "/org/bluez/hci0/dev_X/s/c/d/e/f", "/org/bluez/hci0/serviceFF"] {
            bus.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
                       [.objectPath(path), T.ifaces(["org.bluez.GattService1": ["UUID": .string("180d")]])])
            bus.changed(path, "org.bluez.Device1", ["RSSI": .int16(-50)])
        }
        #expect(Self.reports(sink).isEmpty)
        #expect(backend.devicePaths.isEmpty)
    }

    /// InterfacesAdded and InterfacesRemoved in one read of the bus: the device is
    /// reported, then removed, in that order, and nothing of it is left.
    @Test func deviceThatAppearsAndVanishesInOneBatch() {
        let (bus, backend, sink, _) = T.started(["/org/bluez/hci0": T.adapter])
        defer { withExtendedLifetime(backend) {} }
        sink.events.removeAll()
        bus.run {
            bus.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
                       [.objectPath(Self.dev), T.ifaces(T.device)])
            bus.changed(Self.dev, "org.bluez.Device1", ["RSSI": .int16(-50)])
            bus.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved",
                       [.objectPath(Self.dev), .array(element: "s", [.string("org.bluez.Device1")])])
            bus.changed(Self.dev, "org.bluez.Device1", ["RSSI": .int16(-51)])   // after it left: nobody's
        }
        let facts = sink.facts.filter { if case .bondChanged = $0 { false } else { true } }
        #expect(facts.count == 3)
        #expect(facts.last == .peripheralRemoved(Self.id))
        #expect(backend.devicePaths.isEmpty && backend.mirror.objects[Self.dev] == nil)
        // The store ends with no such device.
        var s = AppState(now: Timestamp(0))
        for e in sink.events { _ = Reducer.reduce(&s, .backend(e, at: Timestamp(1))) }
        #expect(s.peripherals[Self.id] == nil)
    }

    /// 100,000 UUIDs and a 64 KiB name: the report keeps 256 UUIDs and 248 bytes of name,
    /// the mirror 1,024 elements and 1 KiB, from the snapshot and from changes alike.
    @Test func hugeUUIDListsAndNamesAreBounded() throws {
        let uuids = DBusValue.array(element: "s", (0..<100_000).map { .string(String(format: "%08x-0000-1000-8000-00805f9b34fb", $0)) })
        let name = String(repeating: "é", count: 32 * 1024)   // 64 KiB
        let (bus, backend, sink, _) = T.started(["/org/bluez/hci0": T.adapter, Self.dev: Self.device([
            "Address": .string("E4:1C:22:5D:90:11"), "UUIDs": uuids, "Name": .string(name), "Alias": .string(name),
            "ManufacturerData": .dict(key: "q", value: "v", (0..<1000).map {
                DBusDictEntry(.uint16(UInt16($0)), .variant(.bytes(Array(repeating: 1, count: 5000))))
            }),
        ])])
        defer { withExtendedLifetime(backend) {} }
        let r = try #require(Self.reports(sink).last)
        #expect(r.advertisement.serviceUUIDs.count == ReportBounds.serviceUUIDs)
        #expect(r.name?.utf8.count == 248 && r.advertisement.localName?.utf8.count == 248)
        #expect(r.advertisement.manufacturerData.count == ReportBounds.dataEntries)
        #expect(r.advertisement.manufacturerData.values.allSatisfy { $0.count == ReportBounds.dataBytes })
        let props = try #require(backend.mirror[Self.dev, "org.bluez.Device1"])
        #expect(props["UUIDs"]?.strictStrings?.count == BlueZMirror.maxElements)
        #expect(props["Name"]?.strictString?.utf8.count == BlueZMirror.maxStringBytes)
        #expect(props["ManufacturerData"]?.entries?.allSatisfy { $0.value.bytes?.count == BlueZMirror.maxBytes } == true)
        // The same as a change (not advertising-only: it goes through the mirror too).
        sink.events.removeAll()
        bus.changed(Self.dev, "org.bluez.Device1", ["UUIDs": uuids, "Name": .string(name), "Connected": .bool(false)])
        #expect(Self.reports(sink).last?.advertisement.serviceUUIDs.count == ReportBounds.serviceUUIDs)
        #expect(backend.mirror[Self.dev, "org.bluez.Device1"]?["UUIDs"]?.strictStrings?.count == BlueZMirror.maxElements)
    }

    /// Errors whose names no BlueZ has, with escape sequences in their messages: said,
    /// as text that cannot drive a terminal.
    @Test func unknownErrorNamesAndHostileMessages() {
        let (bus, backend, sink, _) = T.started()
        defer { withExtendedLifetime(backend) {} }
        backend.execute(.startScan)
        bus.answer("SetDiscoveryFilter", .success([]))
        bus.answer("StartDiscovery", .failure(DBusError(name: "com.example.Error.Weird", message: "\u{1B}]0;pwned\u{07}\u{1B}[2Jgone\n")))
        guard case let .scanFailed(e)? = sink.events.last else { Issue.record("no scanFailed: \(sink.events.last.map { "\($0)" } ?? "")"); return }
        #expect(e.name == "com.example.Error.Weird")
        #expect(!e.message.unicodeScalars.contains(where: TerminalSafe.isUnsafe))
        #expect(e.message.contains("pwned") && e.message.contains("gone"))
        backend.execute(.connect(Self.id))
        bus.answer("Connect", .failure(DBusError(name: "x", message: String(repeating: "\u{9B}", count: 100_000))))
        let last = sink.events.last { if case .connectFailed = $0 { true } else { false } }
        guard case let .connectFailed(_, e2)? = last else { Issue.record("no connectFailed"); return }
        #expect(e2.message.utf8.count <= 3 * 1024 && !e2.message.unicodeScalars.contains(where: TerminalSafe.isUnsafe))
        // StopDiscovery's error, and a GetManagedObjects that fails: the same.
        backend.execute(.stopScan)
        bus.answer("StopDiscovery", .failure(DBusError(name: "com.example.Error.Stop\u{1B}[5m", message: "\u{1B}[2Jstop\u{07}")))
        guard case let .scanFailed(e3)? = sink.events.last else { Issue.record("no scanFailed for StopDiscovery"); return }
        #expect(e3.message.contains("stop") && !(e3.name + e3.message).unicodeScalars.contains(where: TerminalSafe.isUnsafe))
        let bus2 = FakeBus(), otherSink = T.Sink()
        let backend2 = BlueZBackend(bus: bus2)
        backend2.start(loop: EventLoop()) { e, _ in otherSink.events.append(e) }
        bus2.answer("GetManagedObjects", .failure(DBusError(name: "org.freedesktop.DBus.Error.AccessDenied",
                                                            message: "\u{1B}]0;pwned\u{07}\u{9B}31mdenied")))
        guard case let .failure(e4)? = otherSink.events.last else { Issue.record("no failure for GetManagedObjects"); return }
        #expect(e4.message.contains("denied") && !e4.message.unicodeScalars.contains(where: TerminalSafe.isUnsafe))
        withExtendedLifetime(backend2) {}
    }

    /// bluetoothd changes owner while the snapshot is on its way, then the old reply
    /// arrives after the new one: only the new owner's objects count.
    @Test func nameOwnerChangeDuringGetManagedObjects() {
        let bus = FakeBus(), loop = EventLoop(), sink = T.Sink()
        let backend = BlueZBackend(bus: bus)
        backend.start(loop: loop) { e, _ in sink.events.append(e) }
        bus.signal("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                   [.string("org.bluez"), .string(":1.5"), .string(":1.9")])
        let old = T.tree(["/org/bluez/hci0": T.adapter, Self.dev: T.device])
        let new = T.tree(["/org/bluez/hci1": T.adapter])
        // The calls in the order made: the stale one first, answered last.
        let stale = bus.calls.removeFirst()
        bus.answer("GetManagedObjects", .success([new]))
        stale.1(.success([old]))
        #expect(backend.adapterPath == "/org/bluez/hci1")
        #expect(backend.mirror.objects[Self.dev] == nil && Self.reports(sink).isEmpty)
        // And bluetoothd leaving while a snapshot is pending: its late reply changes nothing.
        bus.signal("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                   [.string("org.bluez"), .string(":1.9"), .string(":1.10")])
        bus.signal("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                   [.string("org.bluez"), .string(":1.10"), .string("")])
        bus.answer("GetManagedObjects", .success([old]))
        #expect(backend.adapterPath == nil && backend.mirror.objects.isEmpty)
        #expect(sink.events.last == .failure(BackendError(name: "org.bluez.Error.NotAvailable", message: "bluetoothd is not running")))
    }

    /// Any shape in any place: signals whose arguments are of other types are ignored.
    @Test func signalsOfAnyShapeAreIgnored() {
        let (bus, backend, sink, _) = T.started()
        defer { withExtendedLifetime(backend) {} }
        sink.events.removeAll()
        let junk: [DBusValue] = [.int32(1), .string("x"), .bytes([1]), .variant(.variant(.bool(true))),
                                 .array(element: "v", [.variant(.int16(1))]), .structure([.string("org.bluez.Device1")]),
                                 .dict(key: "s", value: "v", [DBusDictEntry(.string("RSSI"), .int16(-1))])]
        for a in junk {
            for b in junk {
                bus.signal(Self.dev, "org.freedesktop.DBus.Properties", "PropertiesChanged", [.string("org.bluez.Device1"), a, b])
                bus.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", [a, b])
                bus.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved", [a, b])
                bus.signal("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged", [a, b, a])
            }
        }
        // Whatever reached a report holds only what could be read at its type (the one
        // int16 RSSI in the junk), and the device is still there, as it was.
        for r in Self.reports(sink) { #expect(r.rssi == nil || r.rssi == -1) }
        #expect(backend.devicePaths[Self.id] == Self.dev && backend.adapterPath == "/org/bluez/hci0")
    }

    /// What cannot be read is said: once per device and property, however often bluetoothd
    /// sends it (a storm of lying RSSIs says one warning, not one a signal), through the fast
    /// path's fallback and the general path alike; then a new lie of the same device is said too.
    @Test func whatCannotBeReadIsSaidOncePerDeviceAndProperty() {
        let other = "/org/bluez/hci0/dev_C0_FF_EE_00_00_01"
        let (bus, backend, sink, _) = T.started(["/org/bluez/hci0": T.adapter,
            Self.dev: Self.device(["Address": .string("E4:1C:22:5D:90:11"), "RSSI": .int64(Int64.max), "UUIDs": .uint32(7),
                                   "Connected": .string("yes"), "Name": .string("Liar")]),
            other: Self.device(["Address": .string("C0:FF:EE:00:00:01"), "RSSI": .int16(-40)]),
        ])
        defer { withExtendedLifetime(backend) {} }
        let id = Self.id.rawValue
        #expect(Self.unreadable(sink) == ["\(id) Connected s!=b", "\(id) RSSI x!=n", "\(id) UUIDs u!=as"])
        sink.events.removeAll()
        for i in 0..<1000 {
            bus.changed(Self.dev, "org.bluez.Device1", ["RSSI": i % 2 == 0 ? .int64(Int64(i)) : .string("-40")])
            bus.changed(Self.dev, "org.bluez.Device1", ["RSSI": .int32(-40), "ManufacturerData": .bytes([1])])
            bus.changed(Self.dev, "org.bluez.Device1", ["Connected": .int32(1)])
        }
        #expect(Self.reports(sink).count == 2000 && Self.reports(sink).allSatisfy { $0.rssi == nil })
        #expect(Self.unreadable(sink) == ["\(id) ManufacturerData ay!=a{qv}"])
        // Another device's lie is its own; a new property of the first is said as well.
        sink.events.removeAll()
        bus.changed(other, "org.bluez.Device1", ["RSSI": .uint16(40)])
        bus.changed(Self.dev, "org.bluez.Device1", ["TxPower": .double(4), "Paired": .string("no")])
        bus.changed(other, "org.bluez.Device1", ["RSSI": .uint16(41)])
        #expect(Self.unreadable(sink) == ["C0:FF:EE:00:00:01 RSSI q!=n", "\(id) Paired s!=b", "\(id) TxPower d!=n"])
        // A well-typed change says nothing (the fast path's and the general path's).
        sink.events.removeAll()
        bus.changed(Self.dev, "org.bluez.Device1", ["RSSI": .int16(-41)])
        bus.changed(Self.dev, "org.bluez.Device1", ["Name": .string("Liar 2"), "UUIDs": .array(element: "s", [])])
        #expect(Self.unreadable(sink).isEmpty && Self.reports(sink).count == 2)
        // bluetoothd restarts: the new one's lies are said again.
        bus.signal("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                   [.string("org.bluez"), .string(":1.1"), .string(":1.2")])
        sink.events.removeAll()
        bus.answer("GetManagedObjects", .success([T.tree(["/org/bluez/hci0": T.adapter,
                                                          Self.dev: Self.device(["Address": .string(id), "RSSI": .string("-1")])])]))
        #expect(Self.unreadable(sink) == ["\(id) RSSI s!=n"])
    }

    /// Past its limit the backend says no more (a bluetoothd inventing devices cannot grow
    /// the set of what was said without end).
    @Test func whatIsSaidIsBounded() {
        let (bus, backend, sink, _) = T.started(["/org/bluez/hci0": T.adapter])
        defer { withExtendedLifetime(backend) {} }
        for i in 0..<(BlueZBackend.unreadableLimit + 100) {
            let digits = String(String(i + 0x10000, radix: 16, uppercase: true).suffix(4))
            let address = "02:00:00:00:" + digits.prefix(2) + ":" + digits.suffix(2)
            bus.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
                       [.objectPath("/org/bluez/hci0/dev_\(address.replacingOccurrences(of: ":", with: "_"))"),
                        T.ifaces(Self.device(["Address": .string(address), "RSSI": .int64(1)]))])
        }
        #expect(Self.unreadable(sink).count == BlueZBackend.unreadableLimit)
        #expect(backend.unreadableSaid.count == BlueZBackend.unreadableLimit)
        _ = bus
    }
}
