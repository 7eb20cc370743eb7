import TestSupport
import Foundation
import Testing
import DBus
import Explorer

/// The real binary against a bluetoothd that hangs, answers late, fails with error names
/// nobody knows, or changes hands in the middle of a snapshot (issue 20). The commands
/// time out and say so; the full-screen app stays live and quits when asked; a reply that
/// comes after its caller gave up changes nothing.
@MainActor
@Suite("End to end: bleexplr against a bluetoothd that hangs or answers late", .serialized)
final class LyingBlueZHangEndToEndTests {
    static let address = "C0:FF:EE:00:00:01"
    let fake: LyingBlueZ
    init() throws { fake = try LyingBlueZ() }

    func held(_ member: String) -> Bool { fake.held.contains { $0.call.member == member } }

    /// A device of its own at `n`'s path, for the snapshots of other owners.
    static func otherDevice(_ n: Int, name: String) -> (String, [String: [String: DBusValue]]) {
        ("/org/bluez/hci0/dev_C0_FF_EE_00_00_0\(n)", ["org.bluez.Device1": [
            "Address": .string("C0:FF:EE:00:00:0\(n)"), "Name": .string(name), "RSSI": .int16(-60),
            "Adapter": .objectPath(LyingBlueZ.adapter)]])
    }

    /// Another client's discovery starting at the same moment: bluetoothd answers the
    /// discovery filter InProgress once; the scan tries again and goes on (found in the lab:
    /// `watch` started beside the app exited with "scan failed: InProgress").
    @Test func aDiscoveryFilterInProgressIsTriedAgain() throws {
        fake.device = Self.otherDevice(1, name: "Busy").1["org.bluez.Device1"]!
        fake.repliesOnce["SetDiscoveryFilter"] = .error(DBusError(name: "org.bluez.Error.InProgress", message: "Operation already in progress"))
        let (output, status) = try fake.run(["scan", "--duration", "2"], timeout: 30)
        #expect(status == 0, "\(output)")
        #expect(!output.contains("scan failed"), "\(output)")
        #expect(fake.members.filter { $0 == "SetDiscoveryFilter" }.count == 2 && fake.members.contains("StartDiscovery"), "\(fake.members)")
    }

    /// `read` of a characteristic whose ReadValue never comes back: the command gives up
    /// with a message naming the device and exits 1 (it is not left waiting for D-Bus's own
    /// minute).
    @Test func readThatNeverComesTimesOut() throws {
        fake.connectedDeviceWithGATT(name: "Slow")
        fake.hangs = ["ReadValue"]
        let (output, status) = try fake.run(["read", Self.address, "2A37"], timeout: 60)
        #expect(held("ReadValue"), "\(fake.members)")
        #expect(status == 1, "\(output)")
        #expect(output.contains("no answer from \(Self.address)"), "\(output)")
    }

    /// `notify` whose StartNotify never comes back: the same, with its own message.
    @Test func startNotifyThatNeverComesTimesOut() throws {
        fake.connectedDeviceWithGATT(name: "Slow")
        fake.hangs = ["StartNotify"]
        let (output, status) = try fake.run(["notify", Self.address, "2A37"], timeout: 60)
        #expect(held("StartNotify"), "\(fake.members)")
        #expect(status == 1, "\(output)")
        #expect(output.contains("turning notifications on timed out"), "\(output)")
    }

    /// A ReadValue failing with an error name no BlueZ has, its message hostile: `read`
    /// says the name's message, harmless, and exits 1.
    @Test func readErrorWithAnUnknownName() throws {
        fake.connectedDeviceWithGATT(name: "Odd")
        fake.replies["ReadValue"] = .error(DBusError(name: "net.example.Error.NobodyKnowsThis",
                                                     message: "strange \u{1B}[2J\u{9B}31m failure"))
        let (output, status) = try fake.run(["read", Self.address, "2A37"], timeout: 60)
        #expect(status == 1, "\(output)")
        #expect(output.contains("strange") && output.contains("failure"), "\(output)")
        #expect(output.contains("NobodyKnowsThis"), "\(output)")
        #expect(!output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" }, "\(output.debugDescription)")
    }

    /// GetManagedObjects unanswered past D-Bus's timeout (the app gave up and said so),
    /// then answered: the late tree is dropped. The next owner's snapshot is what shows.
    @Test func snapshotAnsweredAfterTheCallerGaveUp() throws {
        fake.hangs = ["GetManagedObjects"]
        let t = try fake.app("latesnapshot")
        #expect(fake.serve(until: { self.held("GetManagedObjects") }, timeout: 20), "\(fake.members)")
        var (ok, screen) = fake.shows(t, 30) { $0.contains("did not receive a reply") || $0.contains("Did not receive a reply") }
        #expect(ok, "\(screen)")
        let (latePath, late) = Self.otherDevice(2, name: "Late")
        fake.answerHeld { _ in .values([LyingBlueZ.tree([latePath: late])]) }
        fake.hangs = []
        fake.device = Self.otherDevice(3, name: "Fresh").1["org.bluez.Device1"]!
        try fake.handOver()
        (ok, screen) = fake.shows(t, 20) { $0.contains("Fresh") }
        #expect(ok, "\(screen)")
        #expect(!screen.contains("Late") && !screen.contains("C0:FF:EE:00:00:02"), "\(screen)")
        (ok, screen) = try fake.quits(t)
        #expect(ok, "\(screen)")
    }

    /// bluetoothd changes hands while the first GetManagedObjects is on its way: the new
    /// owner's objects show; the old owner's reply, arriving after, is dropped (a device
    /// the new owner adds after that reply shows, the stale one never does).
    @Test func nameOwnerChangeInTheMiddleOfGetManagedObjects() throws {
        fake.hangs = ["GetManagedObjects"]
        let t = try fake.app("ownerchange")
        #expect(fake.serve(until: { self.held("GetManagedObjects") }, timeout: 20), "\(fake.members)")
        fake.hangs = []
        fake.device = Self.otherDevice(1, name: "Fresh").1["org.bluez.Device1"]!
        try fake.handOver()
        var (ok, screen) = fake.shows(t, 20) { $0.contains("Fresh") }
        #expect(ok, "\(screen)")
        let (stalePath, stale) = Self.otherDevice(2, name: "Stale")
        fake.answerHeld { _ in .values([LyingBlueZ.tree([stalePath: stale])]) }
        let (afterPath, after) = Self.otherDevice(3, name: "After")
        try fake.bluez.emitSignal(path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded", args: [
            .objectPath(afterPath), .dict(key: "s", value: "a{sv}", [DBusDictEntry(.string("org.bluez.Device1"), .vardict(after["org.bluez.Device1"]!))]),
        ])
        (ok, screen) = fake.shows(t, 20) { $0.contains("After") }
        #expect(ok, "\(screen)")
        #expect(screen.contains("Fresh") && !screen.contains("Stale"), "\(screen)")
        (ok, screen) = try fake.quits(t)
        #expect(ok, "\(screen)")
    }

    /// The full-screen app on a characteristic whose ReadValue and StartNotify never come
    /// back: it says what it waits for, every key still answers (back to the device screen,
    /// in again, the help), and q quits at once, the calls still unanswered.
    @Test func appStaysLiveWhileReadAndStartNotifyNeverAnswer() throws {
        fake.connectedDeviceWithGATT(name: "Slow")
        fake.hangs = ["ReadValue", "StartNotify"]
        let t = try fake.app("hangread")
        var (ok, screen) = fake.shows(t) { $0.contains("Slow") }
        #expect(ok, "\(screen)")
        try t.keys("Enter")
        (ok, screen) = fake.shows(t) { $0.contains("Heart Rate Measurement") }
        #expect(ok, "\(screen)")
        try t.keys("j", "Enter")
        (ok, screen) = fake.shows(t) { $0.contains("No value yet: r reads it") }
        #expect(ok, "\(screen)")
        try t.keys("r")
        #expect(fake.serve(until: { self.held("ReadValue") }, timeout: 10), "\(fake.members)")
        (ok, screen) = fake.shows(t) { $0.contains("Notify off   reading…") }
        #expect(ok, "\(screen)")
        try t.keys("n")
        #expect(fake.serve(until: { self.held("StartNotify") }, timeout: 10), "\(fake.members)")
        (ok, screen) = fake.shows(t) { $0.contains("Notify off   turning on…") }
        #expect(ok, "\(screen)")
        // Every key answers while both wait: back, the help, in again.
        try t.keys("Escape")
        (ok, screen) = fake.shows(t) { $0.contains("Enter open · d disconnect") }
        #expect(ok, "\(screen)")
        try t.keys("?")
        (ok, screen) = fake.shows(t) { $0.contains("any key closes") }
        #expect(ok, "\(screen)")
        try t.keys("Escape", "Enter")
        (ok, screen) = fake.shows(t) { $0.contains("Notify off   turning on…") }
        #expect(ok, "\(screen)")
        #expect(fake.held.count == 2, "\(fake.members)")
        (ok, screen) = try fake.quits(t)
        #expect(ok, "\(screen)")
    }
}
