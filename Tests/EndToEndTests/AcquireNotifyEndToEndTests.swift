import TestSupport
import Foundation
import Testing
import DBus
import Explorer

/// Notifications through BlueZ's AcquireNotify: bluetoothd hands a SOCK_SEQPACKET socket
/// and the MTU over the bus (a Unix socket bus passes file descriptors), and every packet
/// on it is one notification. Here a fake bluetoothd on a private bus makes the socket
/// pair, keeps its end and writes the notifications into it.
@MainActor
@Suite("End to end: notifications through AcquireNotify's socket", .serialized)
final class AcquireNotifyEndToEndTests {
    static let address = "C0:FF:EE:00:00:01"
    let fake: LyingBlueZ
    /// Our end of each socket handed out, in order.
    var ends: [Int32] = []
    init() throws {
        fake = try LyingBlueZ()
        fake.connectedDeviceWithGATT(name: "Fast")
        fake.objects[LyingBlueZ.characteristic]?["org.bluez.GattCharacteristic1"]?["NotifyAcquired"] = .bool(false)
        fake.acquireNotify = { [unowned self] _ in
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0 else {
                return .error(DBusError(name: "org.bluez.Error.Failed", message: "no socket pair"))
            }
            ends.append(pair[0])
            return .values([.unixFD(DBusFD(owning: pair[1])), .uint16(185)])
        }
    }
    deinit { for fd in ends { close(fd) } }

    func notify(_ bytes: [UInt8], on fd: Int32) -> Bool {
        bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Whether bluetoothd's end saw ours closed (the subscription let go), within `timeout`.
    func closed(_ fd: Int32, timeout: Double = 5) -> Bool {
        fake.serve(until: {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 0) == 1 else { return false }
            var b: UInt8 = 0
            return recv(fd, &b, 1, Int32(MSG_DONTWAIT)) == 0
        }, timeout: timeout)
    }

    /// `notify --count 3`: the values written into the socket, in order, and the path said;
    /// no StartNotify; the socket let go when the command ends.
    @Test func notifyReadsTheSocket() throws {
        let out = tempPath("acquire")
        defer { unlink(out) }
        let env = ["DBUS_SYSTEM_BUS_ADDRESS=\(fake.bus.address)", "PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"]
        let pid = try startProcess(Tmux.binary, ["notify", Self.address, "2A37", "--count", "3"], output: out, env: env)
        #expect(fake.serve(until: { !self.ends.isEmpty }, timeout: 20), "\(fake.members)")
        guard let fd = ends.first else { kill(pid, SIGKILL); return }
        var sent = 0
        var status: Int32 = 0
        var done = false
        _ = fake.serve(until: {
            // One value a tick until three went; the command exits after the third.
            if sent < 3, self.notify([0x00, UInt8(60 + sent)], on: fd) { sent += 1 }
            if !done { done = waitpid(pid, &status, WNOHANG) == pid }
            return done
        }, timeout: 20)
        if !done { kill(pid, SIGKILL); _ = waitpid(pid, &status, 0) }
        let output = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(done && shellExitCode(status) == 0, "\(output)")
        #expect(output.contains("notifications through a socket (AcquireNotify), MTU 185"), "\(output)")
        let bpm = output.split(separator: "\n").filter { $0.contains("bpm") }
        #expect(bpm.count == 3 && bpm[0].contains("60") && bpm[2].contains("62"), "\(output)")
        #expect(!fake.members.contains("StartNotify"), "\(fake.members)")
        #expect(closed(fd), "the socket was not let go")
    }

    /// `notify ADDRESS 2A37 ARGS --json`, stopped (SIGSTOP) once it holds the socket (it
    /// asks the kernel for the times then); nil if it never did. Its output goes to `out`.
    func stoppedHoldingTheSocket(_ args: [String], output out: String) throws -> (pid: Int32, fd: Int32)? {
        let env = ["DBUS_SYSTEM_BUS_ADDRESS=\(fake.bus.address)", "PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"]
        let pid = try startProcess(Tmux.binary, ["notify", Self.address, "2A37"] + args + ["--json"], output: out, env: env)
        #expect(fake.serve(until: { !self.ends.isEmpty }, timeout: 20), "\(fake.members)")
        let holds = fake.serve(until: {
            ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains("through a socket (AcquireNotify)")
        }, timeout: 20)
        guard let fd = ends.first, holds else {
            Issue.record("no AcquireNotify: \((try? String(contentsOfFile: out, encoding: .utf8)) ?? "")")
            kill(pid, SIGKILL); _ = waitpid(pid, nil, 0)
            return nil
        }
        kill(pid, SIGSTOP)
        return (pid, fd)
    }

    /// Continues a stopped command and waits for its end: whether it ended within 20 s, its
    /// exit code, and its output.
    func continued(_ pid: Int32, output out: String) -> (done: Bool, code: Int32, output: String) {
        kill(pid, SIGCONT)
        var status: Int32 = 0
        var done = false
        _ = fake.serve(until: {
            if !done { done = waitpid(pid, &status, WNOHANG) == pid }
            return done
        }, timeout: 20)
        if !done { kill(pid, SIGKILL); _ = waitpid(pid, &status, 0) }
        return (done, shellExitCode(status), (try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
    }

    /// Values that waited in the socket (here the command is stopped meanwhile; in a flood
    /// it rests between reads) come whole and in order, each with the time the kernel queued
    /// it, not the time it was read: two bursts 300 ms apart, read in one go, stay 300 ms apart.
    @Test func valuesThatWaitedKeepTheirOwnTimes() throws {
        let out = tempPath("acquire-times")
        defer { unlink(out) }
        guard let (pid, fd) = try stoppedHoldingTheSocket(["--count", "40"], output: out) else { return }
        var sent = 0
        for i in 0..<40 {
            if i == 20 { usleep(300_000) }
            if notify([0x00, UInt8(40 + i)], on: fd) { sent += 1 }
        }
        let (done, code, output) = continued(pid, output: out)
        #expect(sent == 40 && done && code == 0, "\(output)")
        let lines = output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let hex = lines.compactMap { $0["hex"] as? String }
        #expect(hex == (0..<40).map { String(format: "00%02x", 40 + $0) }, "\(output)")
        let times = lines.compactMap { ($0["t"] as? String).flatMap { Timestamp(iso8601: $0) } }
        guard times.count == 40 else { Issue.record("times: \(output)"); return }
        #expect(times[20] - times[19] >= 0.25, "the second burst's time is its own: \(times[19]) \(times[20])")
        #expect(times[19] - times[0] < 0.2 && times[39] - times[20] < 0.2, "each burst's values close together")
    }

    /// The link drops with values still in the socket (a command resting between two reads of
    /// a flood; here it is stopped while the values and then Connected=false come): they are
    /// read before the socket goes with the link, so `--count 5` gets its five and exits 0.
    @Test func valuesBeforeTheLinkDroppedAreRead() throws {
        let out = tempPath("acquire-drop")
        defer { unlink(out) }
        guard let (pid, fd) = try stoppedHoldingTheSocket(["--count", "5"], output: out) else { return }
        let sent = (0..<5).filter { notify([0x00, UInt8(70 + $0)], on: fd) }.count
        fake.changed(["Connected": .bool(false)])
        _ = fake.serve(until: { false }, timeout: 0.3)   // the signal on its way to the stopped command
        let (done, code, output) = continued(pid, output: out)
        #expect(sent == 5 && done && code == 0, "\(output)")
        let bpm = output.split(separator: "\n").filter { $0.contains("bpm") }
        #expect(bpm.count == 5 && bpm[0].contains("70 bpm") && bpm[4].contains("74 bpm"), "\(output)")
    }

    /// The app: the characteristic screen says the socket and its MTU, shows what comes
    /// through it, and `n` lets it go (no StopNotify: closing is BlueZ's way to stop).
    @Test func appShowsTheSocketAndLetsItGo() throws {
        let t = try fake.app("acquire")
        var (ok, screen) = fake.shows(t) { $0.contains("Fast") }
        #expect(ok, "\(screen)")
        try t.keys("Enter")
        (ok, screen) = fake.shows(t) { $0.contains("Heart Rate Measurement") }
        try t.keys("j", "Enter", "n")
        (ok, screen) = fake.shows(t) { $0.contains("Notify on (socket, MTU 185)") }
        #expect(ok, "\(screen)")
        guard let fd = ends.first else { return }
        #expect(notify([0x00, 77], on: fd))
        (ok, screen) = fake.shows(t) { $0.contains("77 bpm") }
        #expect(ok, "\(screen)")
        try t.keys("n")
        (ok, screen) = fake.shows(t) { $0.contains("Notify off") }
        #expect(ok, "\(screen)")
        #expect(closed(fd), "the socket was not let go")
        #expect(!fake.members.contains("StopNotify") && !fake.members.contains("StartNotify"), "\(fake.members)")
        (ok, screen) = try fake.quits(t)
        #expect(ok, "\(screen)")
    }

    /// AcquireNotify refused: StartNotify, the way it always went.
    @Test func refusedFallsBackToStartNotify() throws {
        fake.acquireNotify = { _ in .error(DBusError(name: "org.bluez.Error.NotSupported", message: "Operation is not supported")) }
        let (output, status) = try fake.run(["notify", Self.address, "2A37", "--duration", "1"], timeout: 30)
        #expect(status == 0, "\(output)")
        #expect(fake.members.contains("AcquireNotify") && fake.members.contains("StartNotify"), "\(fake.members)")
        #expect(!output.contains("AcquireNotify"), "\(output)")
    }
}
