import TestSupport
import Foundation
import Testing

/// `scan` without `--duration`, the real binary on --demo: lines as things happen, each
/// flushed (stdout is a file here, not a terminal), until SIGINT or SIGTERM (status 0).
@Suite("End to end: live scan", .serialized)
struct LiveScanEndToEndTests {
    @Test(arguments: [SIGINT, SIGTERM])
    func linesComeAsDevicesAreHeardUntilStopped(signal: Int32) throws {
        let scan = try Background(Tmux.binary, ["--demo", "scan"])
        // Before it is stopped: what it printed is already there.
        try scan.waitFor("the HRM heard, then changing", timeout: 15) { out in
            out.contains("  NEW  E4:1C:22:5D:90:11  ") && out.contains("  CHG  E4:1C:22:5D:90:11  ")
        }
        let early = scan.output.split(separator: "\n").count
        try scan.waitFor("more lines as it goes on", timeout: 10) { $0.split(separator: "\n").count > early }
        #expect(scan.stop(signal) == 0)
        let lines = scan.output.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.firstMatch(of: #/^\d\d:\d\d:\d\d\.\d{3}  (NEW|CHG|DEL)  [0-9A-F:]{17}  /#) != nil })
        #expect(lines.filter { $0.contains("NEW  E4:1C:22:5D:90:11") }.count == 1)   // new once, then changes
        #expect(!scan.output.unicodeScalars.contains { $0.value == 0x1B })          // the evil name made harmless
    }

    @Test func jsonLinesOneObjectAnEvent() throws {
        let scan = try Background(Tmux.binary, ["--demo", "scan", "--json"])
        try scan.waitFor("a new and a change", timeout: 15) { out in
            out.contains(#""event":"new""#) && out.contains(#""event":"change""#)
        }
        #expect(scan.stop(SIGINT) == 0)
        let text = scan.output
        let objects = try OutputEndToEndTests.objects(text)
        #expect(objects.allSatisfy { ["new", "change", "gone"].contains($0["event"] as? String) && $0["t"] is String })
        #expect(objects.filter { $0["event"] as? String == "change" }.allSatisfy { !(($0["changed"] as? [String]) ?? []).isEmpty })
        #expect(objects.contains { $0["name"] as? String == "Demo HRM" && $0["event"] as? String == "new" })
        try OutputEndToEndTests.validate("device", text)
    }
}
