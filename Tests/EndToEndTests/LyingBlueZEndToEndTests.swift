import TestSupport
import Foundation
import Testing
import DBus
import Explorer

/// The real binary against a lying org.bluez on a private bus (issue 20): an RSSI sent as
/// an int64, a 64 KiB name and 100,000 UUIDs, a StartDiscovery error whose message is
/// escape sequences, a GetManagedObjects that is never answered. The binary never
/// crashes, never lets the bytes reach the terminal, and quits when asked.
@MainActor
@Suite("End to end: bleexplr against a lying org.bluez", .serialized)
final class LyingBlueZEndToEndTests {
    static let dev = "/org/bluez/hci0/dev_C0_FF_EE_00_00_01"
    static let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31mred"

    let bus: PrivateBus
    let loop = EventLoop()
    let bluez: DBusConnection
    var members: [String] = []
    /// The device's Device1 properties in the snapshot.
    var device: [String: DBusValue] = [:]
    var startDiscovery: DBusReply = .values([])
    /// GetManagedObjects, or Connect, left unanswered (a bluetoothd that hangs).
    var snapshotHangs = false
    var connectHangs = false
    var held: [DBusMethodCall] = []

    init() throws {
        bus = try PrivateBus()
        bluez = try DBusConnection.open(address: bus.address, loop: loop)
        bluez.exportHandler { [unowned self] call in
            members.append(call.member)
            switch call.member {
            case "GetManagedObjects":
                if snapshotHangs { held.append(call); return .deferred }
                return .values([Self.tree(["/org/bluez/hci0": ["org.bluez.Adapter1": [
                    "Address": .string("00:AA:01:00:00:23"), "Powered": .bool(true), "Discovering": .bool(false)]],
                                           Self.dev: ["org.bluez.Device1": device]])])
            case "StartDiscovery": return startDiscovery
            case "Connect" where connectHangs: held.append(call); return .deferred
            default: return .values([])
            }
        }
        var owned: Result<UInt32, DBusError>?
        bluez.requestName("org.bluez") { owned = $0 }
        #expect(loop.run(until: { owned != nil }, timeout: 5))
    }

    static func tree(_ objects: [String: [String: [String: DBusValue]]]) -> DBusValue {
        .dict(key: "o", value: "a{sa{sv}}", objects.keys.sorted().map { path in
            DBusDictEntry(.objectPath(path), .dict(key: "s", value: "a{sv}", objects[path]!.keys.sorted().map { i in
                DBusDictEntry(.string(i), .vardict(objects[path]![i]!))
            }))
        })
    }

    /// Serves the fake bluetoothd until `condition` holds (checked ten times a second).
    func serve(until condition: () -> Bool, timeout: Double) -> Bool {
        var tick: EventLoop.TimerID?
        func again() { tick = loop.schedule(after: 0.1) { again() } }
        again()
        defer { tick.map(loop.cancel) }
        return loop.run(until: condition, timeout: timeout)
    }

    /// Runs `bleexplr ARGS` against the fake bus; its output (stdout and stderr) and exit code.
    func run(_ args: [String], timeout: Double = 20) throws -> (output: String, status: Int32?) {
        let out = tempPath("lying")
        defer { unlink(out) }
        let env = ["DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", "PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"]
        let pid = try startProcess(Tmux.binary, args, output: out, env: env)
        var status: Int32 = 0
        var done = false
        _ = serve(until: {
            // Asked more than once after the end: only the first waitpid reaps it.
            if !done { done = waitpid(pid, &status, WNOHANG) == pid }
            return done
        }, timeout: timeout)
        if !done {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        return ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "", done ? shellExitCode(status) : nil)
    }

    static var lyingDevice: [String: DBusValue] {
        ["Address": .string("C0:FF:EE:00:00:01"), "RSSI": .int64(Int64.max), "TxPower": .int64(Int64.min),
         "Name": .string(String(repeating: "N", count: 64 * 1024)),
         "UUIDs": .array(element: "s", (0..<100_000).map { .string(String(format: "%08x-0000-1000-8000-00805f9b34fb", $0)) }),
         "Adapter": .objectPath("/org/bluez/hci0")]
    }

    /// `scan --json` prints the device without the RSSI it could not read, with its name
    /// and UUIDs bounded, and ends normally.
    @Test func scanJSONDropsWhatItCannotRead() throws {
        device = Self.lyingDevice
        let (output, status) = try run(["scan", "--duration", "2", "--json"])
        #expect(status == 0, "\(output.prefix(2000))")
        let line = try #require(output.split(separator: "\n").first { $0.contains("C0:FF:EE:00:00:01") }.map(String.init),
                                "\(output.prefix(2000))")
        #expect(!line.contains("9223372036854775807") && !line.contains("\"rssi\":9"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["rssi"] == nil || json["rssi"] is NSNull)
        #expect(((json["name"] as? String)?.utf8.count ?? 0) <= 248)
        #expect(line.utf8.count < 64 * 1024, "a line of \(line.utf8.count) bytes")
    }

    /// A StartDiscovery error whose message is escape sequences: said on stderr, harmless.
    @Test func hostileErrorMessageReachesNoTerminal() throws {
        device = ["Address": .string("C0:FF:EE:00:00:01")]
        startDiscovery = .error(DBusError(name: "com.example.Error.Weird", message: Self.hostile))
        let (output, status) = try run(["scan", "--duration", "2"])
        #expect(status == 1, "\(output)")
        #expect(output.contains("pwned") && output.contains("red"), "\(output)")
        #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(output.debugDescription)")
    }

    /// The full-screen app draws the lying device (what crashed with SIGILL on its first
    /// frame), and quits when asked.
    @Test func fullScreenAppSurvivesTheLyingDevice() throws {
        device = Self.lyingDevice
        let t = try Tmux("lying", command: wrapped("--bus '\(bus.address)'"))
        var screen = ""
        let drawn = serve(until: {
            screen = (try? t.screen()) ?? ""
            return screen.contains("NNNNNNNN")
        }, timeout: 20)
        #expect(drawn, "\(screen)")
        try t.keys("q")
        #expect(serve(until: { ((try? t.screen()) ?? "").contains("EXIT=") }, timeout: 10))
        let end = try t.screen()
        #expect(end.contains("EXIT=0"), "\(end)")
    }

    /// GetManagedObjects never answered: the app is up, and quits at once when asked
    /// (the reply it waits for never blocks the UI). Then the reply comes, too late.
    @Test func snapshotThatNeverComesDoesNotHangTheUI() throws {
        snapshotHangs = true
        let t = try Tmux("hang", command: wrapped("--bus '\(bus.address)'"))
        #expect(serve(until: { !self.held.isEmpty }, timeout: 20), "\(members)")
        var screen = ""
        #expect(serve(until: {
            screen = (try? t.screen()) ?? ""
            return screen.contains("Scan")
        }, timeout: 10), "\(screen)")
        try t.keys("q")
        #expect(serve(until: { ((try? t.screen()) ?? "").contains("EXIT=") }, timeout: 5))
        let end = try t.screen()
        #expect(end.contains("EXIT=0"), "\(end)")
        for c in held { try? bluez.reply(to: c, with: .values([Self.tree([:])])) }   // after the caller gave up
    }

    /// A Connect that bluetoothd never answers: the app says it is connecting, Esc gives up
    /// at once (the list is back, keys answer), q quits at once; the reply then comes, late.
    @Test func connectThatNeverComesDoesNotHangTheUI() throws {
        connectHangs = true
        device = ["Address": .string("C0:FF:EE:00:00:01"), "Name": .string("Hang"), "RSSI": .int16(-50),
                  "Adapter": .objectPath("/org/bluez/hci0")]
        let t = try Tmux("hangconnect", command: wrapped("--bus '\(bus.address)'"))
        var screen = ""
        func shows(_ text: String, _ timeout: Double = 10) -> Bool {
            serve(until: { screen = (try? t.screen()) ?? ""; return screen.contains(text) }, timeout: timeout)
        }
        #expect(shows("Hang"), "\(screen)")
        try t.keys("Enter")
        #expect(serve(until: { self.held.contains { $0.member == "Connect" } }, timeout: 10), "\(members)")
        #expect(shows("Connecting to Hang"), "\(screen)")
        try t.keys("Escape")
        #expect(serve(until: {
            screen = (try? t.screen()) ?? ""
            return screen.contains("C0:FF:EE:00:00:01") && !screen.contains("Connecting to Hang")
        }, timeout: 10), "\(screen)")
        try t.keys("q")
        #expect(shows("EXIT=", 5), "\(screen)")
        #expect(screen.contains("EXIT=0"), "\(screen)")
        for c in held { try? bluez.reply(to: c, with: .values([])) }   // after the caller gave up
    }
}
