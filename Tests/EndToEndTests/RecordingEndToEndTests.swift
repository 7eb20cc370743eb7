import TestSupport
import Foundation
import Testing

/// `--record` from the real binary: the file survives kill -9 and matches the schema.
@Suite("End to end: recording")
struct RecordingEndToEndTests {
    static func lines(_ path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    @Test func killMinus9LeavesEveryLineParseable() throws {
        let path = tempPath("kill9.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let t = try Tmux("kill9", command: wrapped("--demo --seed 11 --record '\(path)'"))
        try t.waitFor(text: "● REC")
        try t.waitFor(text: "Demo Stream")
        try t.filterScanList("Demo Stream", "only the stream") { $0.contains("5C:F3:70:8A:00:42") && !$0.contains("Demo HRM") }
        try t.keys("Enter")
        try t.waitFor(text: "Scan › Demo Stream")
        try t.keys("j", "Enter", "n")   // open the stream characteristic, notifications on: 50 lines a second
        try t.waitFor(text: "Notifications on:")
        usleep(UInt32.random(in: 500_000...1_500_000))
        let pid = try #require(try t.appPID())
        kill(pid, SIGKILL)
        try t.waitFor(text: "EXIT=137")

        let all = try String(contentsOfFile: path, encoding: .utf8)
        let lines = all.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count > 30)
        // Every complete line parses; only a last line without its newline may be cut.
        for (i, line) in lines.enumerated() where !(i == lines.count - 1 && !all.hasSuffix("\n")) {
            if line.isEmpty { continue }
            let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(obj?["type"] != nil, "line \(i + 1)")
        }
        #expect(lines.contains { $0.contains("\"type\":\"notification\"") })
        #expect(lines.contains { $0.contains("\"type\":\"services\"") })
        #expect(lines.contains { $0.contains("\"state\":\"connected\"") })
        try Self.validate(path)
    }

    @Test func recordingToggleAndUnwritablePath() throws {
        let dir = tempPath("dir")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let t = try Tmux("rtoggle", command: "cd '\(dir)' && " + wrapped("--demo --record /nonexistent/x.jsonl"))
        // The path is unwritable: a clear error, and the app keeps running.
        try t.waitFor(text: "Recording stopped: cannot write /nonexistent/x.jsonl")
        try t.waitFor(text: "Demo HRM")
        try t.keys("q")
        try t.waitFor(text: "EXIT=0")

        let t2 = try Tmux("rtoggle2", command: "cd '\(dir)' && " + wrapped("--demo"))
        try t2.waitFor(text: "Demo HRM")
        try t2.keys("R")
        let on = try t2.waitFor(text: "● REC bleexplr-")
        #expect(on.contains("Recording to bleexplr-"))
        usleep(1_500_000)
        try t2.keys("R")
        try t2.waitFor(text: "Recording saved")
        try t2.keys("q")
        try t2.waitFor(text: "EXIT=0")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".jsonl") }
        #expect(files.count == 1)
        let path = dir + "/" + files[0]
        let lines = try Self.lines(path)
        #expect(lines.count > 5)
        #expect(lines[0].contains("\"type\":\"header\""))
        try Self.validate(path)
    }

    /// `R` in a replay is named from the replay's clock: the file being replayed. It gets a
    /// new name instead; `--record` on a taken name is refused before anything starts.
    @Test func recordingNeverOverwritesAFile() throws {
        let dir = tempPath("noclobber")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let t = try Tmux("noclob1", command: "cd '\(dir)' && " + wrapped("--demo"))
        try t.waitFor(text: "Demo HRM")
        try t.keys("R")
        try t.waitFor(text: "● REC bleexplr-")
        usleep(1_200_000)
        try t.keys("R")
        try t.waitFor(text: "Recording saved")
        try t.keys("q")
        try t.waitFor(text: "EXIT=0")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: dir).first { $0.hasSuffix(".jsonl") })
        let original = try String(contentsOfFile: dir + "/" + name, encoding: .utf8)

        let r = try Tmux("noclob2", command: "cd '\(dir)' && " + wrapped("replay '\(name)' --paused"))
        try r.waitFor(text: "replay ❚❚")
        try r.keys("R")
        let numbered = String(name.dropLast(6)) + "-2.jsonl"
        try r.waitFor(text: "Recording to \(numbered) (\(name) exists)")
        try r.keys("q")
        try r.waitFor(text: "EXIT=0")
        #expect(try String(contentsOfFile: dir + "/" + name, encoding: .utf8) == original)
        #expect(FileManager.default.fileExists(atPath: dir + "/" + numbered))

        let (code, out) = try spawn(Tmux.binary, ["--demo", "--record", dir + "/" + name, "read", "E4:1C:22:5D:90:11", "2A38"])
        #expect(code == 2)
        #expect(out == "bleexplr: \(dir)/\(name) exists: a recording never overwrites a file (choose another name)\n")
        #expect(try String(contentsOfFile: dir + "/" + name, encoding: .utf8) == original)
    }

    /// Validates a recording against docs/recording.schema.json with python3-jsonschema.
    static func validate(_ path: String) throws {
        let (status, out) = try spawn("/usr/bin/python3", [
            Tmux.packageRoot.appendingPathComponent("Tests/tools/validate_recording.py").path,
            Tmux.packageRoot.appendingPathComponent("docs/recording.schema.json").path, path])
        #expect(status == 0, "schema validation: \(out)")
    }
}
