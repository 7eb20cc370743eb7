import TestSupport
import Foundation
import Testing
import DBus
import Explorer

/// `bleexplr bench-ingest`, the storm harness's consumer, run as the harness runs it: on
/// a bus given as the system bus, against an org.bluez that this test plays (a private
/// dbus-daemon), through the real BlueZ backend, store and reducer.
@MainActor
@Suite("bench-ingest against a fake org.bluez", .serialized)
struct BenchIngestEndToEndTests {
    static func device(_ i: Int) -> String { "/org/bluez/hci0/dev_C0_FF_EE_00_00_\(String(format: "%02X", i))" }
    static func address(_ i: Int) -> String { "C0:FF:EE:00:00:\(String(format: "%02X", i))" }

    static func props(_ p: [String: DBusValue]) -> DBusValue {
        .dict(key: "s", value: "v", p.keys.sorted().map { DBusDictEntry(.string($0), .variant(p[$0]!)) })
    }

    static func interfaces(_ i: [String: [String: DBusValue]]) -> DBusValue {
        .dict(key: "s", value: "a{sv}", i.keys.sorted().map { DBusDictEntry(.string($0), props(i[$0]!)) })
    }

    static var managedObjects: DBusValue {
        var objects: [String: [String: [String: DBusValue]]] = [
            "/org/bluez/hci0": ["org.bluez.Adapter1": ["Address": .string("00:AA:01:00:00:23"), "Powered": .bool(true),
                                                       "Discovering": .bool(false)]],
        ]
        for i in 0..<8 {
            objects[device(i)] = ["org.bluez.Device1": ["Address": .string(address(i)), "RSSI": .int16(-70),
                                                        "Adapter": .objectPath("/org/bluez/hci0")]]
        }
        return .dict(key: "o", value: "a{sa{sv}}", objects.keys.sorted().map { DBusDictEntry(.objectPath($0), interfaces(objects[$0]!)) })
    }

    @Test func countsEveryAdvertisingSignalAndPrintsTheMarker() throws {
        let bus = try PrivateBus()
        let loop = EventLoop()
        let bluez = try DBusConnection.open(address: bus.address, loop: loop)
        var members: [String] = []
        bluez.exportHandler { call in
            members.append(call.member)
            return call.member == "GetManagedObjects" ? .values([Self.managedObjects]) : .values([])
        }
        var owned: Result<UInt32, DBusError>?
        bluez.requestName("org.bluez") { owned = $0 }
        #expect(loop.run(until: { owned != nil }, timeout: 5))

        let out = tempPath("bench-ingest")
        defer { unlink(out) }
        let env = ["DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", "PATH=/usr/bin:/bin", "HOME=/tmp"]
        let pid = try startProcess(Tmux.binary, ["bench-ingest"], output: out, env: env)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        // Armed: the consumer has its rules, the snapshot, and has started discovery.
        #expect(loop.run(until: { members.contains("StartDiscovery") }, timeout: 20), "\(members)")

        let storm = 600
        for n in 0..<storm {
            let data: [UInt8] = [UInt8(n & 0xFF), UInt8(n >> 8), 1, 2, 3]
            try bluez.emitSignal(path: Self.device(n % 8), interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                                 args: [.string("org.bluez.Device1"),
                                        Self.props(["RSSI": .int16(Int16(-40 - n % 50)),
                                                    "ManufacturerData": .dict(key: "q", value: "v", [
                                                        DBusDictEntry(.uint16(0x0059), .variant(.bytes(data)))])]),
                                        .array(element: "s", [])])
        }
        try bluez.emitSignal(path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded",
                             args: [.objectPath("/org/bluez/hci0/dev_FF_FF_FF_FF_FF_FF"),
                                    Self.interfaces(["org.bluez.Device1": ["Address": .string("FF:FF:FF:FF:FF:FF"),
                                                                           "Name": .string("BENCH-END")]])])
        func output() -> String { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }
        #expect(loop.run(until: { output().contains("BENCH-END") }, timeout: 20), "\(output())")
        let line = output().split(separator: "\n").first { $0.hasPrefix("BENCH-END") }.map(String.init) ?? ""
        func field(_ name: String) -> Double? {
            line.split(separator: " ").first { $0.hasPrefix(name + "=") }.flatMap { Double($0.dropFirst(name.count + 1)) }
        }
        // Every PropertiesChanged, through the fast path, in runs; the marker is no device update.
        #expect(field("count") == Double(storm), "\(line)")
        #expect((field("batches") ?? 0) >= 1 && (field("batches") ?? 0) <= Double(storm), "\(line)")
        #expect((field("cpu_s") ?? 0) > 0 && field("t_end") != nil, "\(line)")
        // The devices it knows: the eight of the tree and the marker (bench-peers reports them less the marker).
        #expect(field("devices") == 9, "\(line)")
    }
}
