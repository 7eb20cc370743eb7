import TestSupport
import Foundation
import Testing
import DBus
import Explorer

/// `write --file` against a fake bluetoothd on a private bus (a Unix socket bus: file
/// descriptors pass). Through AcquireWrite the fake makes the socket pair, keeps its end and
/// reads it slowly, a few packets every 20 ms, with a small buffer: the command meets EAGAIN
/// and must wait for POLLOUT. Without WriteAcquired, refused, or with BLEEXPLR_WRITE=value,
/// the file goes in WriteValue calls of type "command". Either way the bytes arrive whole and
/// in order, and the closing read comes after the last of them.
@MainActor
@Suite("End to end: write --file through AcquireWrite and WriteValue", .serialized)
final class WriteStreamEndToEndTests {
    static let address = "C0:FF:EE:00:00:01"
    static let uart = "6E400002-B5A3-F393-E0A9-E50E24DCCA9E"
    static let file: [UInt8] = (0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ ($0 >> 8) &* 7) }
    let fake: LyingBlueZ
    let path: String
    /// Our end of the socket handed out; the packets read from it; what WriteValue carried.
    var end: Int32 = -1
    var packets: [[UInt8]] = []
    var calls: [(bytes: [UInt8], type: String?)] = []
    /// How many packets had been read when ReadValue came (the closing read).
    var readAt: Int?

    init() throws {
        fake = try LyingBlueZ()
        fake.connectedDeviceWithGATT(name: "UART")
        var chrc = fake.objects[LyingBlueZ.characteristic]?["org.bluez.GattCharacteristic1"] ?? [:]
        chrc["UUID"] = .string(Self.uart.lowercased())
        chrc["Flags"] = .array(element: "s", [.string("read"), .string("write"), .string("write-without-response")])
        chrc["WriteAcquired"] = .bool(false)
        chrc["MTU"] = .uint16(185)
        fake.objects[LyingBlueZ.characteristic]?["org.bluez.GattCharacteristic1"] = chrc
        path = tempPath("stream.bin")
        try Data(Self.file).write(to: URL(fileURLWithPath: path))
        fake.handlers["AcquireWrite"] = { [unowned self] _ in
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0 else {
                return .error(DBusError(name: "org.bluez.Error.Failed", message: "no socket pair"))
            }
            var small: Int32 = 4096   // a few packets: the writer meets EAGAIN
            setsockopt(pair[1], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            end = pair[0]
            return .values([.unixFD(DBusFD(owning: pair[1])), .uint16(185)])
        }
        fake.handlers["WriteValue"] = { [unowned self] call in
            calls.append((call.args.first?.bytes ?? [], call.args.dropFirst().first?.stringKeyed?["type"]?.string))
            return .values([])
        }
        fake.handlers["ReadValue"] = { [unowned self] _ in
            readAt = packets.count + calls.count
            return .values([.bytes(Array("ok".utf8))])
        }
    }
    deinit {
        if end >= 0 { close(end) }
        unlink(path)
    }

    /// Reads up to `n` packets from our end of the socket; true once it is closed.
    func drain(_ n: Int) -> Bool {
        guard end >= 0 else { return false }
        var buf = [UInt8](repeating: 0, count: 1024)
        for _ in 0..<n {
            let got = buf.withUnsafeMutableBytes { recv(end, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if got > 0 { packets.append(Array(buf[0..<got])); continue }
            return got == 0
        }
        return false
    }

    /// The command, run while the fake reads its socket slowly; its output, status and CPU time.
    func run(_ args: [String], env: [String] = []) throws -> (output: String, status: Int32?, cpu: Double, closed: Bool) {
        let out = tempPath("write-stream")
        defer { unlink(out) }
        let base = ["DBUS_SYSTEM_BUS_ADDRESS=\(fake.bus.address)", "PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"]
        let pid = try startProcess(Tmux.binary, args, output: out, env: base + env)
        var status: Int32 = 0, done = false, closed = false, cpu = 0.0
        let tick = sysconf(Int32(_SC_CLK_TCK))
        var reader: EventLoop.TimerID?
        func read() { reader = fake.loop.schedule(after: 0.02) { [unowned self] in closed = closed || drain(4); read() } }
        read()
        _ = fake.serve(until: {
            // Its CPU time so far (utime + stime, fields 14 and 15 of /proc/PID/stat).
            if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
               let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 13,
               let u = Double(fields[11]), let s = Double(fields[12]) { cpu = (u + s) / Double(tick) }
            if !done { done = waitpid(pid, &status, WNOHANG) == pid }
            return done
        }, timeout: 60)
        reader.map(fake.loop.cancel)
        if !done { kill(pid, SIGKILL); _ = waitpid(pid, &status, 0) }
        closed = closed || drain(1 << 20)
        return ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "", done ? shellExitCode(status) : nil, cpu, closed)
    }

    /// 64 KiB through the socket: 361 packets of at most 182 bytes (MTU 185 - 3), whole and
    /// in order; the socket closed before the read that closes the stream; and the wait
    /// for POLLOUT is a wait (the command's CPU time is a fraction of the ~2 s it takes).
    @Test func theFileGoesThroughTheSocketWhole() throws {
        let (output, status, cpu, closed) = try run(["write", Self.address, Self.uart, "--file", path, "--json"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("writes through a socket (AcquireWrite), MTU 185, 182 bytes a write"), "\(output)")
        #expect(packets.count == 361 && packets.allSatisfy { $0.count <= 182 }, "\(packets.count) packets")
        #expect(Array(packets.joined()) == Self.file)
        #expect(calls.isEmpty && closed, "WriteValue calls: \(calls.count); socket closed: \(closed)")
        #expect(readAt == 361, "the closing read came after \(String(describing: readAt)) packets")
        let line = output.split(separator: "\n").first { $0.hasPrefix("{") }.map(String.init) ?? ""
        #expect(line.contains(#""path":"AcquireWrite""#) && line.contains(#""chunks":361"#) && line.contains(#""confirmed":true"#), "\(line)")
        #expect(cpu < 0.8, "CPU \(cpu) s: waiting for POLLOUT must not spin")
    }

    /// Framed (seq) through the socket: what arrives goes back together with the receiver's
    /// own code.
    @Test func aSeqStreamThroughTheSocketReassembles() throws {
        let (output, status, _, _) = try run(["write", Self.address, Self.uart, "--file", path, "--framing", "seq"])
        #expect(status == 0, "\(output)")
        var a = StreamAssembly(framing: .seq, maxMessage: 1 << 20)
        let messages = packets.compactMap { a.add($0, at: Timestamp(0)) }
        #expect(messages.map(\.bytes) == [Self.file], "\(packets.count) packets")
        #expect(output.contains("framing seq") && output.contains("AcquireWrite"), "\(output)")
    }

    /// No WriteAcquired (BlueZ omits it without write-without-response, or an older one):
    /// WriteValue, type command, the reason said. The MTU is asked for then: bluetoothd 5.66
    /// exports a cached characteristic without one and does not say it when the link is up.
    @Test func withoutWriteAcquiredItIsWriteValue() throws {
        fake.objects[LyingBlueZ.characteristic]?["org.bluez.GattCharacteristic1"]?["WriteAcquired"] = nil
        fake.objects[LyingBlueZ.characteristic]?["org.bluez.GattCharacteristic1"]?["MTU"] = nil
        fake.handlers["Get"] = { call in
            call.args.count == 2 && call.args[1].string == "MTU" ? .values([.variant(.uint16(185))])
                : .error(DBusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "No such property"))
        }
        let (output, status, _, _) = try run(["write", Self.address, Self.uart, "--file", path])
        #expect(status == 0, "\(output)")
        #expect(output.contains("writes through WriteValue (type command), MTU 185, 182 bytes a write: bluetoothd offers no socket"), "\(output)")
        #expect(!fake.members.contains("AcquireWrite"))
        #expect(calls.count == 361 && calls.allSatisfy { $0.type == "command" } && Array(calls.map(\.bytes).joined()) == Self.file)
        #expect(readAt == 361)
    }

    @Test func refusedOrForcedItIsWriteValue() throws {
        fake.handlers["AcquireWrite"] = { _ in .error(DBusError(name: "org.bluez.Error.NotPermitted", message: "Write acquired")) }
        var (output, status, _, _) = try run(["write", Self.address, Self.uart, "--file", path])
        #expect(status == 0, "\(output)")
        #expect(output.contains("AcquireWrite refused: NotPermitted: Write acquired"), "\(output)")
        #expect(Array(calls.map(\.bytes).joined()) == Self.file)
        calls = []
        fake.members = []
        (output, status, _, _) = try run(["write", Self.address, Self.uart, "--file", path], env: ["BLEEXPLR_WRITE=value"])
        #expect(status == 0 && output.contains(": BLEEXPLR_WRITE=value"), "\(output)")
        #expect(!fake.members.contains("AcquireWrite") && Array(calls.map(\.bytes).joined()) == Self.file)
    }
}

/// The demo's Demo Stream has a sink ("Data in") that takes writes without response and
/// counts them: `write --file` runs there as on a device, through WriteValue.
@Suite("End to end: write --file on the demo")
struct WriteStreamDemoEndToEndTests {
    static let stream = "5C:F3:70:8A:00:42"
    static let sink = "08590F7F-DB05-467E-8757-72F6FAEB13D4"

    @Test func theDemoTakesAFileAndSaysHowFast() throws {
        let path = tempPath("demo-stream.bin")
        defer { unlink(path) }
        try Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) }).write(to: URL(fileURLWithPath: path))
        var (code, out) = try OutputEndToEndTests.stdout(["--demo", "write", Self.stream, Self.sink, "--file", path, "--json"])
        #expect(code == 0, "\(out)")
        try OutputEndToEndTests.validate("streamWritten", out)
        let line = try #require(try OutputEndToEndTests.objects(out).first)
        #expect(line["bytes"] as? Int == 10_000 && line["chunks"] as? Int == 41 && line["chunkSize"] as? Int == 244)
        #expect(line["path"] as? String == "WriteValue" && line["confirmed"] as? Bool == true && line["framing"] as? String == "none")
        // From standard input, framed.
        (code, out) = try OutputEndToEndTests.stdout(["--demo", "write", Self.stream, Self.sink, "--file", "-", "--framing", "seq"],
                                                     stdin: path)
        #expect(code == 0 && out.hasPrefix("wrote 10000 bytes in 43 writes of up to 244 bytes"), "\(out)")
        // A file and a characteristic that takes no write without response.
        (code, out) = try OutputEndToEndTests.stdout(["--demo", "write", Self.stream, "08590F7E-DB05-467E-8757-72F6FAEB13D4", "--file", path])
        #expect(code == 1)
        (code, _) = try OutputEndToEndTests.stdout(["--demo", "write", Self.stream, Self.sink, "--file", "/dev/null"])
        #expect(code == 2)
    }
}
