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
    static let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31mred"

    let fake: LyingBlueZ
    var bus: PrivateBus { fake.bus }
    init() throws { fake = try LyingBlueZ() }
    func serve(until condition: () -> Bool, timeout: Double) -> Bool { fake.serve(until: condition, timeout: timeout) }
    func run(_ args: [String], timeout: Double = 20) throws -> (output: String, status: Int32?) { try fake.run(args, timeout: timeout) }

    static var lyingDevice: [String: DBusValue] {
        ["Address": .string("C0:FF:EE:00:00:01"), "RSSI": .int64(Int64.max), "TxPower": .int64(Int64.min),
         "Name": .string(String(repeating: "N", count: 64 * 1024)),
         "UUIDs": .array(element: "s", (0..<100_000).map { .string(String(format: "%08x-0000-1000-8000-00805f9b34fb", $0)) }),
         "Adapter": .objectPath("/org/bluez/hci0")]
    }

    /// `scan --json` prints the device without the RSSI it could not read, with its name
    /// and UUIDs bounded, and ends normally. It says what it could not read on stderr, once
    /// per property however often the device sends it (ten lying RSSIs a second here), and
    /// records it once.
    @Test func scanJSONDropsWhatItCannotRead() throws {
        fake.device = Self.lyingDevice
        let record = tempPath("lying-rec")
        defer { unlink(record) }
        var sent = 0
        let (output, status) = try fake.run(["scan", "--duration", "2", "--json", "--record", record]) {
            self.fake.changed(["RSSI": .int64(Int64.max - Int64(sent))])
            sent += 1
        }
        #expect(status == 0, "\(output.prefix(2000))")
        #expect(sent >= 10)
        let warnings = output.split(separator: "\n").filter { $0.hasPrefix("bleexplr: C0:FF:EE:00:00:01: bluetoothd sent") }
        #expect(warnings == ["bleexplr: C0:FF:EE:00:00:01: bluetoothd sent RSSI as int64 (x), not int16 (n); ignored",
                             "bleexplr: C0:FF:EE:00:00:01: bluetoothd sent TxPower as int64 (x), not int16 (n); ignored"],
                "\(output.prefix(3000))")
        let recorded = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").filter { $0.contains("\"type\":\"unreadable\"") }
        #expect(recorded.count == 2 && recorded.allSatisfy { $0.contains("\"sent\":\"x\",\"expected\":\"n\"") }, "\(recorded)")
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("{") && $0.contains("C0:FF:EE:00:00:01") }.map(String.init),
                                "\(output.prefix(2000))")
        #expect(!line.contains("9223372036854775807") && !line.contains("\"rssi\":9"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["rssi"] == nil || json["rssi"] is NSNull)
        #expect(((json["name"] as? String)?.utf8.count ?? 0) <= 248)
        #expect(line.utf8.count < 64 * 1024, "a line of \(line.utf8.count) bytes")
    }

    /// A StartDiscovery error whose message is escape sequences: said on stderr, harmless.
    @Test func hostileErrorMessageReachesNoTerminal() throws {
        fake.device = ["Address": .string("C0:FF:EE:00:00:01")]
        fake.replies["StartDiscovery"] = .error(DBusError(name: "com.example.Error.Weird", message: Self.hostile))
        let (output, status) = try run(["scan", "--duration", "2"])
        #expect(status == 1, "\(output)")
        #expect(output.contains("pwned") && output.contains("red"), "\(output)")
        #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(output.debugDescription)")
    }

    /// StopDiscovery failing with escape sequences in its message (`read` stops the scan once
    /// it has found the device), and a GetManagedObjects that fails so: said, harmless.
    @Test func hostileStopDiscoveryAndSnapshotErrorsReachNoTerminal() throws {
        fake.connectedDeviceWithGATT(name: "Target")
        fake.replies["StopDiscovery"] = .error(DBusError(name: "com.example.Error.Stop", message: Self.hostile))
        var (output, status) = try run(["read", "C0:FF:EE:00:00:01", "2a37"])
        #expect(fake.members.contains("StopDiscovery"), "\(fake.members)")
        #expect(status != nil && output.contains("Stop: ") && output.contains("pwned") && output.contains("red"), "\(output)")
        #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" }, "\(output.debugDescription)")

        fake.replies["GetManagedObjects"] = .error(DBusError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "\u{9B}2J" + Self.hostile))
        (output, status) = try run(["scan", "--duration", "1"])
        #expect(status == 1, "\(output)")
        #expect(output.contains("AccessDenied") && output.contains("pwned"), "\(output)")
        #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" }, "\(output.debugDescription)")
    }

    /// The full-screen app draws the lying device (what crashed with SIGILL on its first
    /// frame), says what it could not read (in its log, once, however often the device sends
    /// it), and quits when asked.
    @Test func fullScreenAppSurvivesTheLyingDevice() throws {
        fake.device = Self.lyingDevice
        let t = try Tmux("lying", width: 140, height: 40, command: wrapped("--bus '\(bus.address)'"))
        var screen = ""
        let drawn = serve(until: {
            screen = (try? t.screen()) ?? ""
            return screen.contains("NNNNNNNN")
        }, timeout: 20)
        #expect(drawn, "\(screen)")
        for i in 0..<30 { fake.changed(["RSSI": i % 2 == 0 ? .int64(Int64(i)) : .string("\u{1B}[2J")]) }
        fake.changed(["Name": .string("Still here")])
        #expect(serve(until: { screen = (try? t.screen()) ?? ""; return screen.contains("Still here") }, timeout: 10), "\(screen)")
        try t.keys("L")
        #expect(serve(until: { screen = (try? t.screen()) ?? ""; return screen.contains("Event log:") }, timeout: 10), "\(screen)")
        let said = screen.split(separator: "\n").filter { $0.contains("bluetoothd sent RSSI as") }
        #expect(said.count == 1 && said[0].contains("C0:FF:EE:00:00:01: bluetoothd sent RSSI as int64 (x), not int16 (n); ignored"),
                "\(screen)")
        #expect(screen.contains("bluetoothd sent TxPower as int64"), "\(screen)")
        try t.keys("q")
        #expect(serve(until: { ((try? t.screen()) ?? "").contains("EXIT=") }, timeout: 10))
        let end = try t.screen()
        #expect(end.contains("EXIT=0"), "\(end)")
    }

    /// GetManagedObjects never answered: the app is up, and quits at once when asked
    /// (the reply it waits for never blocks the UI). Then the reply comes, too late.
    @Test func snapshotThatNeverComesDoesNotHangTheUI() throws {
        fake.hangs = ["GetManagedObjects"]
        let t = try Tmux("hang", command: wrapped("--bus '\(bus.address)'"))
        #expect(serve(until: { !self.fake.held.isEmpty }, timeout: 20), "\(fake.members)")
        var screen = ""
        #expect(serve(until: {
            screen = (try? t.screen()) ?? ""
            return screen.contains("Scan")
        }, timeout: 10), "\(screen)")
        try t.keys("q")
        #expect(serve(until: { ((try? t.screen()) ?? "").contains("EXIT=") }, timeout: 5))
        let end = try t.screen()
        #expect(end.contains("EXIT=0"), "\(end)")
        fake.answerHeld { _ in .values([LyingBlueZ.tree([:])]) }   // after the caller gave up
    }

    /// A Connect that bluetoothd never answers: the app says it is connecting, Esc gives up
    /// at once (the list is back, keys answer), q quits at once; the reply then comes, late.
    @Test func connectThatNeverComesDoesNotHangTheUI() throws {
        fake.hangs = ["Connect"]
        fake.device = ["Address": .string("C0:FF:EE:00:00:01"), "Name": .string("Hang"), "RSSI": .int16(-50),
                  "Adapter": .objectPath("/org/bluez/hci0")]
        let t = try Tmux("hangconnect", command: wrapped("--bus '\(bus.address)'"))
        var screen = ""
        func shows(_ text: String, _ timeout: Double = 10) -> Bool {
            serve(until: { screen = (try? t.screen()) ?? ""; return screen.contains(text) }, timeout: timeout)
        }
        #expect(shows("Hang"), "\(screen)")
        try t.keys("Enter")
        #expect(serve(until: { self.fake.held.contains { $0.call.member == "Connect" } }, timeout: 10), "\(fake.members)")
        #expect(shows("Connecting to Hang"), "\(screen)")
        try t.keys("Escape")
        #expect(serve(until: {
            screen = (try? t.screen()) ?? ""
            return screen.contains("C0:FF:EE:00:00:01") && !screen.contains("Connecting to Hang")
        }, timeout: 10), "\(screen)")
        try t.keys("q")
        #expect(shows("EXIT=", 5), "\(screen)")
        #expect(screen.contains("EXIT=0"), "\(screen)")
        fake.answerHeld { _ in .values([]) }   // after the caller gave up
    }

    /// The device sends 100,000 UUIDs and a 64 KiB name again and again: the app shows each
    /// change (the name's start), and its memory stays flat from the 5th change to the 25th
    /// (each is a 4.6 MB message; kept whole, 20 of them would be 90 MiB).
    @Test func hundredThousandUUIDsAgainAndAgainKeepMemoryBounded() throws {
        fake.device = ["Address": .string("C0:FF:EE:00:00:01"), "Name": .string("Small"), "Adapter": .objectPath("/org/bluez/hci0")]
        let t = try fake.app("flood")
        var (ok, screen) = fake.shows(t, 20) { $0.contains("Small") }
        #expect(ok, "\(screen)")
        let pid = try #require(try t.appPID())
        let huge = Self.lyingDevice["UUIDs"]!
        func flood(_ range: Range<Int>) throws {
            for i in range {
                let name = "Flood\(i)." + String(repeating: "N", count: 64 * 1024)
                try fake.bluez.emitSignal(path: LyingBlueZ.dev, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                                          args: [.string("org.bluez.Device1"), .vardict(["UUIDs": huge, "Name": .string(name)]),
                                                 .array(element: "s", [])])
            }
            (ok, screen) = fake.shows(t, 60) { $0.contains("Flood\(range.upperBound - 1).") }
            #expect(ok, "\(screen)")
        }
        try flood(0..<5)
        let after5 = try #require(LyingBlueZ.residentKiB(pid))
        try flood(5..<25)
        let after25 = try #require(LyingBlueZ.residentKiB(pid))
        #expect(after25 - after5 < 4 * 1024, "RSS \(after5) KiB after 5 floods, \(after25) KiB after 25")
        #expect(after25 < 96 * 1024, "RSS \(after25) KiB")
        (ok, screen) = try fake.quits(t)
        #expect(ok, "\(screen)")
    }
}

