import TestSupport
import Foundation
import Testing

/// Demo Stream's flood (5,000 numbered notifications a second) into the real binary with
/// `--record`: every number the demo says it sent is in the recording, once, in order; the
/// control FIFO's `flood RATE` stops it and refuses what is not a rate.
@Suite("End to end: a notification flood, recording", .serialized)
struct FloodEndToEndTests {
    static let flood = "b1e5e1a0-0021-4c7a-9e3b-2d8f00c0ffee"

    /// The flood's numbers in a recording, in the order recorded.
    static func numbers(_ path: String) throws -> [Int] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard line.contains("\"type\":\"notification\""), line.contains(flood) else { return nil }
            let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let hex = Array((obj?["hex"] as? String ?? "").utf8)
            guard hex.count == 40 else { return -1 }
            let bytes = (0..<4).map { Int(String(decoding: hex[2 * $0..<2 * $0 + 2], as: UTF8.self), radix: 16) ?? 0 }
            return bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24
        }
    }

    static func historyCount(_ screen: String) -> Int? {
        guard let r = screen.range(of: "HISTORY ") else { return nil }
        return Int(screen[r.upperBound...].prefix { $0.isNumber })
    }

    @Test func theRecordingHoldsEveryNotificationTheDemoSent() throws {
        let fifo = tempPath("ctl"), path = tempPath("flood.jsonl"), err = tempPath("flood.err")
        defer { unlink(fifo); unlink(path); unlink(err) }
        let t = try Tmux("flood", command: wrapped("--demo --demo-control \(fifo) --record '\(path)' 2>'\(err)'"))
        try t.waitFor(text: "Demo Stream")
        try t.filterScanList("Demo Stream", "only the stream") { $0.contains("5C:F3:70:8A:00:42") && !$0.contains("Demo HRM") }
        try t.keys("Enter")
        try t.waitFor(text: "Flood (numbered, 5,000 a second)", timeout: 10)
        try t.keys("j", "j", "j", "j", "Enter")   // Data, Data in, the Flood service, Flood
        try t.waitFor(text: "Scan › Demo Stream › “Flood")
        try t.keys("n")
        try t.waitFor(text: "Notifications on:")
        usleep(1_500_000)
        let control = try #require(fopen(fifo, "w"))
        defer { fclose(control) }
        fputs("flood fast\n", control)
        fputs("flood 0\n", control)
        fflush(control)
        // Stopped: the history's count stays where it is.
        let stopped = try t.waitFor("the flood stopped") { s in
            guard let n = Self.historyCount(s) else { return false }
            usleep(300_000)
            return Self.historyCount((try? t.screen()) ?? "") == n
        }
        let paused = try #require(Self.historyCount(stopped))
        usleep(500_000)
        #expect(Self.historyCount(try t.screen()) == paused)
        fputs("flood 2000\n", control)
        fflush(control)
        try t.waitFor("the flood again") { (Self.historyCount($0) ?? 0) > paused }
        usleep(500_000)
        try t.keys("q")                                      // under the flood
        try t.waitFor(text: "EXIT=0")

        let said = try String(contentsOfFile: err, encoding: .utf8)
        #expect(said.contains("demo control: flood takes notifications a second, 0 to 100000 (not 'fast')"), "\(said)")
        let r = try #require(said.range(of: "flood sent "), "\(said)")
        let sent = try #require(Int(said[r.upperBound...].prefix { $0.isNumber }))
        #expect(sent > 5_000)                                // 1.5 s at 5,000 a second, then more at 2,000
        let recorded = try Self.numbers(path)
        #expect(recorded.count == sent)
        #expect(recorded == Array(1...sent))                 // none lost, none twice, in order
    }
}
