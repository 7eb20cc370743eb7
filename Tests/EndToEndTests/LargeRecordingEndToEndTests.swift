import TestSupport
import Foundation
import Testing

/// A large recording opened by the real binary (issue 20, "recordings from anywhere"): its
/// peak memory, never its time. Reading held the file's bytes, its text, an array of its lines and the events at once:
/// 4.7 times the file (a 100 MB recording of the crowd: 473 MiB); now the file streams past
/// a line at a time, and what the events repeat is kept once.
@MainActor
@Suite("End to end: a large recording's memory", .serialized)
struct LargeRecordingEndToEndTests {
    /// A recording of `megabytes` MB: a crowd of 1,000 advertising (each device's data the
    /// same every time, as the demo's crowd), a notification every tenth line, and a bad line
    /// every 10,000th. Written to a temporary file the caller removes.
    static func generate(megabytes: Int) throws -> (path: String, bytes: Int, bad: Int) {
        let path = tempPath("large-recording.jsonl")
        guard let f = fopen(path, "w") else { throw E2EError("cannot write \(path)") }
        defer { fclose(f) }
        var written = 0, bad = 0, i = 0
        func put(_ line: String) {
            fputs(line + "\n", f)
            written += line.utf8.count + 1
        }
        put(#"{"type":"header","format":1,"bleexplr":"0.1.0","started":"2026-12-05T21:00:00.000Z","backend":"simulated","adapter":"sim0"}"#)
        // The device `serve --clone` clones: heard, connected, its GATT tree.
        let hrm = "/sim/dev_E4_1C_22_5D_90_11/service000b"
        put(#"{"t":"2026-12-05T21:00:00.000Z","type":"advertisement","address":"E4:1C:22:5D:90:11","name":"Demo HRM","rssi":-50,"#
            + #""connectable":true,"serviceUUIDs":["0000180d-0000-1000-8000-00805f9b34fb"]}"#)
        put(#"{"t":"2026-12-05T21:00:00.000Z","type":"services","address":"E4:1C:22:5D:90:11","services":[{"uuid":"0000180d-0000-1000-8000-00805f9b34fb","#
            + #""path":"\#(hrm)","primary":true,"characteristics":[{"uuid":"00002a37-0000-1000-8000-00805f9b34fb","path":"\#(hrm)/char000c","#
            + #""properties":["notify"],"descriptors":[]}]}]}"#)
        while written < megabytes * 1_000_000 {
            i += 1
            let t = String(format: "2026-12-05T%02d:%02d:%02d.%03dZ", 21 + i / 3_600_000 % 3, i / 60_000 % 60, i / 1000 % 60, i % 1000)
            let n = i % 1000
            let address = String(format: "02:00:00:00:%02X:%02X", n >> 8, n & 0xFF)
            if i % 10_000 == 0 {
                put(#"{"t":"\#(t)","type":"advertisement","#)   // cut short: skipped
                bad += 1
            } else if i % 10 == 0 {
                put(#"{"t":"\#(t)","type":"notification","address":"E4:1C:22:5D:90:11","uuid":"00002a37-0000-1000-8000-00805f9b34fb","#
                    + #""name":"Heart Rate Measurement","path":"/sim/dev_E4_1C_22_5D_90_11/service000b/char000c","hex":"00\#(String(format: "%02x", 60 + i % 40))","decoded":"\#(60 + i % 40) bpm"}"#)
            } else {
                put(#"{"t":"\#(t)","type":"advertisement","address":"\#(address)","name":"Sensor \#(n)","rssi":-\#(50 + i % 40),"#
                    + #""connectable":true,"manufacturerData":{"\#(String(format: "%04x", n % 64))":"\#(String(format: "%02x", n & 0xFF))01"}}"#)
            }
        }
        return (path, written, bad)
    }

    /// A running process's peak resident memory (VmHWM: of its own memory since its exec;
    /// getrusage's ru_maxrss is no use here, as a child spawned the vfork way counts the
    /// test runner's memory as its own).
    static func peakKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// The app replaying `path` (paused, so that nothing after the reading counts): its peak RSS in KiB.
    static func replayPeak(_ path: String, _ name: String) throws -> Int {
        let t = try Tmux(name, command: wrapped("replay '\(path)' --paused"))
        try t.waitFor(text: "replay ❚❚", timeout: 120)
        let pid = try #require(try t.appPID())
        let kib = try #require(peakKiB(pid))
        try t.keys("q")
        try t.waitFor(text: "EXIT=0")
        return kib
    }

    @Test func aLargeRecordingIsReadInMemoryAboutItsSize() throws {
        let (path, bytes, bad) = try Self.generate(megabytes: 32)
        defer { unlink(path) }
        let small = try Self.generate(megabytes: 1)
        defer { unlink(small.path) }
        // The app's own memory, on a small recording of the same kind.
        let base = try Self.replayPeak(small.path, "replay-small")
        let big = try Self.replayPeak(path, "replay-large")
        let grew = big - base
        print("replay of \(bytes / 1_000_000) MB: peak RSS \(big / 1024) MiB (\(base / 1024) MiB for 1 MB), "
              + "growth \(String(format: "%.2f", Double(grew * 1024) / Double(bytes))) times the file")
        // Every event is kept for the replay (seeking back plays it again from the start):
        // memory grows with the file, but by no more than its size and a half (was 4.7 times).
        #expect(grew * 1024 < bytes * 3 / 2, "peak RSS \(big) KiB for \(bytes) bytes (\(base) KiB for 1 MB)")

        // `serve --clone` keeps only what the clone needs: flat, whatever the file's size. It
        // says what it skipped, then serves (on the fake bluetoothd, which says yes to all).
        let fake = try LyingBlueZ()
        let out = tempPath("clone-out")
        defer { unlink(out) }
        let pid = try startProcess(Tmux.binary, ["serve", "--clone", path, "E4:1C:22:5D:90:11"], output: out,
                                   env: ["PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8", "DBUS_SYSTEM_BUS_ADDRESS=\(fake.bus.address)"])
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        var output = ""
        #expect(fake.serve(until: {
            output = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            return output.contains("advertising") || output.contains("error")
        }, timeout: 120), "\(output)")
        let clone = try #require(Self.peakKiB(pid), "serve ended: \(output)")
        let skipped = "bleexplr: warning: skipped \(bad) bad lines of \(path) (not JSON, or not an event this bleexplr reads)"
        #expect(output.contains(skipped), "\(output)")
        print("serve --clone of \(bytes / 1_000_000) MB: peak RSS \(clone / 1024) MiB")
        #expect(clone < base + 16 * 1024, "serve --clone: peak RSS \(clone) KiB, the replay of 1 MB \(base) KiB")
    }
}
