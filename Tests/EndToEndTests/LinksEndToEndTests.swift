import TestSupport
import Foundation
import Testing

/// The real binary on --demo with two links: the iTag and the HRM connected at once, each
/// screen kept while the other is shown (`1`, `2`), the iTag's link lost behind the HRM's
/// screen and brought back from its own, and every notification of both recorded.
@Suite("End to end: several links at once", .serialized)
struct LinksEndToEndTests {
    @Test func twoLinksEachKeepTheirScreenAndAreBothRecorded() throws {
        let fifo = tempPath("ctl"), path = tempPath("links.jsonl"), state = tempPath("state")
        defer { unlink(fifo); try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: state) }
        let t = try Tmux("links", command: "export XDG_STATE_HOME=\(state); "
                         + wrapped("--demo --demo-control \(fifo) --record '\(path)'"))
        try t.waitFor(text: "Demo iTag")
        try t.filterScanList("iTag", "only the iTag") { !$0.contains("Demo HRM") }
        try t.keys("Enter")
        try t.waitFor(text: "Alert Level", timeout: 10)
        try t.keys("j", "Enter")
        try t.waitFor(text: "Scan › Demo iTag › iTag Button Press")
        try t.keys("n")
        try t.waitFor(text: "Notify on")
        let control = try #require(fopen(fifo, "w"))
        defer { fclose(control) }
        fputs("press\n", control); fflush(control)
        try t.waitFor(text: "  notify  ")
        // Back to the list (the filter cleared), and the HRM too: the iTag stays connected.
        try t.keys("Escape", "Escape", "Escape")
        let list = try t.waitFor("the list with the iTag's link in the top bar") { $0.contains("1 Demo iTag ●") && $0.contains("Demo HRM") }
        #expect(list.split(separator: "\n").first?.contains("2 Demo") == false, "\(list)")
        try t.filterScanList("HRM", "only the HRM") { !$0.contains("Demo Thermo") }
        try t.keys("Enter")
        try t.waitFor(text: "Scan › Demo HRM", timeout: 10)
        try t.keys("j", "Enter")
        try t.waitFor(text: "Scan › Demo HRM › Heart Rate Measurement")
        try t.keys("n")
        try t.waitFor(text: "Notify on")
        let both = try t.waitFor("both links in the top bar, a heart rate in") { s in
            s.contains("1 Demo iTag ●") && s.contains("2 Demo HRM ●") && s.contains("  notify  ")
        }
        #expect(both.split(separator: "\n").first?.contains("Heart Rate Measurement") == true, "\(both)")
        // A press of the iTag behind the HRM's screen, then its link drops there.
        fputs("press\n", control); fflush(control)
        fputs("drop\n", control); fflush(control)
        let lost = try t.waitFor("the iTag's link marked lost") { $0.contains("1 Demo iTag ○") }
        #expect(lost.contains("Scan › Demo HRM › Heart Rate Measurement"), "\(lost)")
        // 1: the iTag's screen as it was left (its tree, the button's row chosen, as Esc left
        // it), offering Enter; Enter brings it back, notifications on again.
        try t.keys("1")
        let kept = try t.waitFor("the iTag's screen, kept") { s in
            s.split(separator: "\n").first?.hasPrefix(" bleexplr │ Scan › Demo iTag   1 Demo iTag ○  2 Demo HRM ●") == true
                && s.contains("Enter reconnects")
        }
        #expect(kept.contains("● disconnected (remote device ended the connection)"), "\(kept)")
        try t.keys("Enter")
        try t.waitFor("the iTag back, its notifications on", timeout: 20) { $0.contains("1 Demo iTag ●") && $0.contains("● live") }
        try t.keys("Enter")
        try t.waitFor("the button, notifications on again") { s in
            s.contains("Scan › Demo iTag › iTag Button Press") && s.contains("Notify on") && s.contains("HISTORY")
        }
        try t.keys("2")
        try t.waitFor(text: "Scan › Demo HRM › Heart Rate Measurement")
        try t.keys("q")
        try t.waitFor(text: "EXIT=0")

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let notifications = lines.filter { $0.contains("\"type\":\"notification\"") }
        let itag = notifications.filter { $0.contains("FC:58:FA:1A:2B:3C") }.count
        let hrm = notifications.filter { $0.contains("E4:1C:22:5D:90:11") }.count
        // The demo's iTag is also pressed now and then by itself: at least the two presses sent.
        #expect(itag >= 2, "iTag notifications recorded: \(itag)")
        #expect(hrm >= 1, "HRM notifications recorded: \(hrm)")
        // The press behind the HRM's screen: after the HRM's first notification, before the iTag's link dropped.
        let firstHRM = try #require(lines.firstIndex { $0.contains("\"type\":\"notification\"") && $0.contains("E4:1C:22:5D:90:11") })
        let drop = try #require(lines.firstIndex { $0.contains("\"state\":\"disconnected\"") && $0.contains("FC:58:FA:1A:2B:3C") })
        try #require(firstHRM < drop, "the HRM notified only after the iTag dropped")
        #expect(lines[firstHRM..<drop].contains { $0.contains("\"type\":\"notification\"") && $0.contains("FC:58:FA:1A:2B:3C") })
    }

    /// Headless, `notify A UUID B UUID`: both devices found, connected and subscribed at
    /// once; each line says whose value it is; the command ends when both have given
    /// their count.
    @Test func notifyNamesTwoDevices() throws {
        let hrm = "E4:1C:22:5D:90:11", itag = "FC:58:FA:1A:2B:3C"
        var (code, out) = try spawn(Tmux.binary, ["--demo", "notify", hrm, "2A37", itag, "FFE1", "--count", "1"])
        let lines = out.split(separator: "\n")
        #expect(code == 0 && lines.count == 2, "\(out)")
        #expect(lines.contains { $0.hasPrefix("\(hrm) 2A37  ") && $0.contains(" bpm") }, "\(out)")
        #expect(lines.contains { $0.hasPrefix("\(itag) FFE1  01  press") }, "\(out)")
        (code, out) = try spawn(Tmux.binary, ["--demo", "notify", hrm, "2A37", itag, "FFE1", "--count", "1", "--json"])
        let json = out.split(separator: "\n")
        #expect(code == 0 && json.count == 2, "\(out)")
        #expect(json.contains { $0.contains("\"address\":\"\(hrm)\"") && $0.contains("\"bpm\":") }, "\(out)")
        #expect(json.contains { $0.contains("\"address\":\"\(itag)\"") && $0.contains("\"press\":true") }, "\(out)")
        (code, out) = try spawn(Tmux.binary, ["--demo", "notify", hrm, "2A37", itag, "FFE1", "--until", "EOM"])
        #expect(code == 2 && out.contains("--until"), "\(out)")
        (code, out) = try spawn(Tmux.binary, ["--demo", "notify", hrm, "2A37", itag])
        #expect(code == 2 && out.hasPrefix("bleexplr: usage: bleexplr notify ADDRESS UUID [ADDRESS UUID ...]"), "\(out)")
    }
}
