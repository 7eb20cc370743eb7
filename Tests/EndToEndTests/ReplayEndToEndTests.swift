import TestSupport
import Foundation
import Testing

/// `replay FILE` on a recording the real binary made: the devices, the connection and the
/// values come back; pause, speed and seek work from the keyboard.
@Suite("End to end: replay")
struct ReplayEndToEndTests {
    @Test func recordADemoSessionThenReplayIt() throws {
        let path = tempPath("replay.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let t = try Tmux("rec4replay", command: wrapped("--demo --seed 5 --record '\(path)'"))
        try t.waitFor(text: "● REC")
        try t.filterScanList("Demo HRM", "only the HRM") { $0.contains("E4:1C:22:5D:90:11") && !$0.contains("Demo iTag") }
        try t.keys("Enter")
        try t.waitFor(text: "Scan › Demo HRM")
        try t.waitFor(text: "Heart Rate Measurement")
        usleep(1_500_000)
        try t.keys("q")
        try t.waitFor(text: "EXIT=0")

        // Replayed as fast as possible: the connection and the GATT tree as recorded.
        let r = try Tmux("replay", command: wrapped("replay '\(path)' --speed max"))
        let end = try r.waitFor(text: "replay ■ max")
        #expect(end.contains("Demo HRM"))
        try r.filterScanList("Demo HRM", "filtered") { !$0.contains("Demo iTag") }
        try r.keys("Enter")   // connected in the recording: opens its device screen
        try r.waitFor(text: "Heart Rate Measurement")
        try r.keys("r")       // there is no reading the past
        try r.keys("Escape")
        // At 1x, back to the start (p at the end plays again), then paused: the world is
        // rebuilt from the recording's first lines.
        try r.keys("x")
        try r.waitFor(text: "replay ■ 1x")
        try r.keys("p")
        try r.waitFor(text: "replay ▶ 1x 0:0")
        try r.keys("p")
        try r.waitFor(text: "replay ❚❚ 1x 0:0")
        try r.keys("]")   // ten seconds on, or the end of a shorter recording
        try r.waitFor("seeked") { $0.contains("❚❚ 1x 0:10/") || $0.contains("■ 1x") }
        try r.keys("q")
        try r.waitFor(text: "EXIT=0")

        // Not a recording: one clear line, status 2.
        let bad = tempPath("not-a-recording.txt")
        try "hello\n".write(toFile: bad, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: bad) }
        let b = try Tmux("replaybad", command: wrapped("replay '\(bad)'"))
        let s = try b.waitFor(text: "EXIT=2")
        #expect(s.contains("is not a bleexplr recording"))
    }

    @Test func theDemoPlaysSomeonesRecordingInALoop() throws {
        let path = tempPath("demo-recording.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (code, _) = try spawn(Tmux.binary, ["--demo", "--record", path, "read", "E4:1C:22:5D:90:11", "2A38"])
        #expect(code == 0)
        let t = try Tmux("demorec", command: wrapped("--demo --demo-recording '\(path)'"))
        let s = try t.waitFor(text: "Demo HRM")
        #expect(s.contains("replay "))
        try t.waitFor(text: "replay ■")                    // the end of the recording…
        try t.waitFor(text: "replay ▶", timeout: 15)       // …and it plays again
        try t.keys("q")
        try t.waitFor(text: "EXIT=0")
    }
}
