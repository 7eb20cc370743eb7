import TestSupport
import Foundation
import DBus
import Explorer

/// A fake bluetoothd on a private bus that lies (issue 20): it answers GetManagedObjects
/// with whatever `device` and `objects` say, fails or never answers the members a test
/// names, and can hand the name org.bluez to a second connection while a call is on its
/// way. The real binary runs against it (`run`, or in tmux with `--bus address`).
@MainActor
final class LyingBlueZ {
    static let adapter = "/org/bluez/hci0"
    static let dev = "/org/bluez/hci0/dev_C0_FF_EE_00_00_01"
    static let service = dev + "/service000a"
    static let characteristic = service + "/char000b"

    let bus: PrivateBus
    let loop = EventLoop()
    /// The connection that owns org.bluez now (`handOver` gives it to a new one).
    private(set) var bluez: DBusConnection
    /// Every member called, in order.
    var members: [String] = []
    /// The device's Device1 properties in the snapshot.
    var device: [String: DBusValue] = [:]
    /// More objects in the snapshot, by path (a device's GATT tree).
    var objects: [String: [String: [String: DBusValue]]] = [:]
    /// Members answered with this instead of success (an error of any name).
    var replies: [String: DBusReply] = [:]
    /// Answers for the first call of a member only.
    var repliesOnce: [String: DBusReply] = [:]
    /// Members never answered (a bluetoothd that hangs); the calls wait in `held`, with
    /// the connection they came in on, for a test to answer late.
    var hangs: Set<String> = []
    var held: [(owner: DBusConnection, call: DBusMethodCall)] = []
    /// Answers AcquireNotify (a socket and an MTU, made per call), when set.
    var acquireNotify: ((DBusMethodCall) -> DBusReply)?
    /// Answers for members by name (AcquireWrite, WriteValue, ...), called with each call.
    var handlers: [String: (DBusMethodCall) -> DBusReply] = [:]

    init() throws {
        bus = try PrivateBus()
        bluez = try DBusConnection.open(address: bus.address, loop: loop)
        // 1|4: DBUS_NAME_FLAG_ALLOW_REPLACEMENT | DO_NOT_QUEUE, so that `handOver` can take it.
        try own(bluez, flags: 5)
    }

    private func own(_ c: DBusConnection, flags: UInt32) throws {
        c.exportHandler { [unowned self, unowned c] call in
            members.append(call.member)
            if hangs.contains(call.member) { held.append((c, call)); return .deferred }
            if call.member == "AcquireNotify", let answer = acquireNotify { return answer(call) }
            if let answer = handlers[call.member] { return answer(call) }
            if let r = repliesOnce.removeValue(forKey: call.member) { return r }
            if let r = replies[call.member] { return r }
            if call.member == "GetManagedObjects" { return .values([snapshot()]) }
            return .values([])
        }
        var owned: Result<UInt32, DBusError>?
        c.requestName("org.bluez", flags: flags) { owned = $0 }
        guard loop.run(until: { owned != nil }, timeout: 5), case .success(1)? = owned else {
            throw E2EError("the fake bluetoothd could not own org.bluez: \(String(describing: owned))")
        }
    }

    /// A second bluetoothd takes org.bluez over (one NameOwnerChanged from the old owner
    /// to the new); the old connection stays open, so it can still answer what it held.
    func handOver() throws {
        let next = try DBusConnection.open(address: bus.address, loop: loop)
        try own(next, flags: 2 | 4)   // DBUS_NAME_FLAG_REPLACE_EXISTING | DO_NOT_QUEUE
        retired.append(bluez)
        bluez = next
    }
    private var retired: [DBusConnection] = []

    /// Answers every held call now (after the caller gave up), each on the connection it
    /// came in on, then waits until the bus has taken each answer: what the app reads after
    /// that came after these answers.
    func answerHeld(_ reply: (DBusMethodCall) -> DBusReply) {
        let calls = held
        held.removeAll()
        for (owner, call) in calls {
            try? owner.reply(to: call, with: reply(call))
            var done = false
            owner.call(DBusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                interface: "org.freedesktop.DBus", member: "GetId"), timeout: 5) { _ in done = true }
            _ = loop.run(until: { done }, timeout: 5)
        }
    }

    func snapshot() -> DBusValue {
        var all = objects
        all[Self.adapter] = ["org.bluez.Adapter1": ["Address": .string("00:AA:01:00:00:23"), "Powered": .bool(true),
                                                    "Discovering": .bool(false)]]
        all[Self.dev] = ["org.bluez.Device1": device]
        return Self.tree(all)
    }

    static func tree(_ objects: [String: [String: [String: DBusValue]]]) -> DBusValue {
        .dict(key: "o", value: "a{sa{sv}}", objects.keys.sorted().map { path in
            DBusDictEntry(.objectPath(path), .dict(key: "s", value: "a{sv}", objects[path]!.keys.sorted().map { i in
                DBusDictEntry(.string(i), .vardict(objects[path]![i]!))
            }))
        })
    }

    /// A connected device whose services are resolved, with one service (Heart Rate) and
    /// one characteristic (2A37) that can be read and notify.
    func connectedDeviceWithGATT(name: String) {
        device = ["Address": .string("C0:FF:EE:00:00:01"), "Name": .string(name), "RSSI": .int16(-50),
                  "Connected": .bool(true), "ServicesResolved": .bool(true), "Adapter": .objectPath(Self.adapter)]
        objects[Self.service] = ["org.bluez.GattService1": [
            "UUID": .string("0000180d-0000-1000-8000-00805f9b34fb"), "Primary": .bool(true), "Device": .objectPath(Self.dev)]]
        objects[Self.characteristic] = ["org.bluez.GattCharacteristic1": [
            "UUID": .string("00002a37-0000-1000-8000-00805f9b34fb"), "Service": .objectPath(Self.service),
            "Flags": .array(element: "s", [.string("read"), .string("notify")])]]
    }

    /// Serves the fake bluetoothd until `condition` holds (checked ten times a second).
    func serve(until condition: () -> Bool, timeout: Double) -> Bool {
        serve(until: condition, timeout: timeout, every: nil)
    }

    /// The same, calling `tick` ten times a second (a device that keeps sending).
    func serve(until condition: () -> Bool, timeout: Double, every tick: (() -> Void)?) -> Bool {
        var timer: EventLoop.TimerID?
        func again() { timer = loop.schedule(after: 0.1) { tick?(); again() } }
        again()
        defer { timer.map(loop.cancel) }
        return loop.run(until: condition, timeout: timeout)
    }

    /// Runs `bleexplr ARGS` against the fake bus; its output (stdout and stderr) and exit
    /// code (nil: it was still running after `timeout` and was killed).
    /// `during`: called ten times a second while it runs; `more`: variables beside the bus's.
    func run(_ args: [String], timeout: Double = 20, env more: [String] = [], during: (() -> Void)? = nil) throws -> (output: String, status: Int32?) {
        let out = tempPath("lying")
        defer { unlink(out) }
        let env = ["DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", "PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"] + more
        let pid = try startProcess(Tmux.binary, args, output: out, env: env)
        var status: Int32 = 0
        var done = false
        _ = serve(until: {
            // Asked more than once after the end: only the first waitpid reaps it.
            if !done { done = waitpid(pid, &status, WNOHANG) == pid }
            return done
        }, timeout: timeout, every: during)
        if !done {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        return ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "", done ? shellExitCode(status) : nil)
    }

    /// The app in tmux against this bus; `shows` serves the bus until the screen has `text`.
    func app(_ name: String, _ args: String = "") throws -> Tmux {
        try Tmux(name, command: wrapped("--bus '\(bus.address)' \(args)"))
    }

    func shows(_ t: Tmux, _ timeout: Double = 10, _ condition: (String) -> Bool) -> (Bool, String) {
        var screen = ""
        let ok = serve(until: { screen = (try? t.screen()) ?? ""; return condition(screen) }, timeout: timeout)
        return (ok, screen)
    }

    /// q, then the shell's `EXIT=` line: whether the app quit with 0, and the last screen.
    func quits(_ t: Tmux) throws -> (Bool, String) {
        try t.keys("q")
        let (ok, screen) = shows(t, 5) { $0.contains("EXIT=") }
        return (ok && screen.contains("EXIT=0"), screen)
    }

    /// The device's properties changed (PropertiesChanged on Device1), as bluetoothd sends them.
    func changed(_ props: [String: DBusValue]) {
        try? bluez.emitSignal(path: Self.dev, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                              args: [.string("org.bluez.Device1"), .vardict(props), .array(element: "s", [])])
    }

    /// A process's resident memory (VmRSS), in KiB.
    static func residentKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
}
