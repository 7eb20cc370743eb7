import Foundation
import Testing
@testable import Explorer

@Suite("Recording")
struct RecordingTests {
    static func parse(_ line: String) throws -> [String: Any] {
        let obj = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(obj as? [String: Any])
    }

    @Test func controlCharactersAreEscapedAndTheLineStaysOneLine() throws {
        var j = JSONLine()
        j.string("name", DemoCatalog.evilName)
        j.string("quote", "a\"b\\c\u{2028}")
        let line = j.finish()
        #expect(!line.contains("\n") && !line.contains("\r") && !line.contains("\u{1B}"))
        #expect(line.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F && !(0x80..<0xA0).contains($0.value) })
        let obj = try Self.parse(line)
        #expect(obj["name"] as? String == DemoCatalog.evilName)
        #expect(obj["quote"] as? String == "a\"b\\c\u{2028}")
    }

    @Test func everyEventKindMakesAParseableLine() throws {
        var s = Fixture.connectedHRM()
        let events: [BackendEvent] = [
            .adapterChanged(AdapterStatus(name: "sim0", power: .on, discovering: true)),
            Fixture.report(Fixture.hrm, name: "Demo HRM", rssi: -50,
                           adv: Advertisement(serviceUUIDs: ["180D"], manufacturerData: [0x0059: [1, 2]],
                                              serviceData: ["FEAA": [0x10, 0, 3, 0x41]], txPower: -4)),
            .rssiLost(Fixture.hrm), .peripheralRemoved(Fixture.itag),
            .connecting(Fixture.hrm, attempt: 2), .connected(Fixture.hrm),
            .servicesResolved(Fixture.hrm, Fixture.hrmServices, mtu: 247),
            .connectFailed(Fixture.hrm, .failed("x")), .disconnected(Fixture.hrm, .remote),
            .readCompleted(Fixture.bslChar, .success([1])),
            .readCompleted(Fixture.hrmChar, .failure(.notPermitted("Read not permitted"))),
            .writeCompleted(Fixture.bslChar, [1, 2], .command, nil),
            .writeCompleted(Fixture.bslChar, [1], .request, .notPermitted("Write not permitted")),
            .notificationsAcquired(Fixture.hrmChar, mtu: 185),
            .notifyChanged(Fixture.hrmChar, enabled: true, nil),
            .valueNotified(Fixture.hrmChar, [0x06, 72]),
            .descriptorRead(AttributeID(Fixture.hrmChar.path + "/desc000d"), .success([1, 0])),
            .descriptorRead(AttributeID(Fixture.hrmChar.path + "/desc000d"), .failure(.notPermitted("x"))),
            .scanFailed(.inProgress("Operation already in progress")), .failure(.failed("boom")),
        ]
        var types: [String] = []
        for e in events {
            let line = try #require(RecordingFormat.line(for: .backend(e, at: Fixture.t0 + 1.5), state: s))
            let obj = try Self.parse(line)
            #expect(obj["t"] as? String == "2026-05-28T20:26:41.500Z")
            types.append(try #require(obj["type"] as? String))
        }
        #expect(types == ["adapter", "advertisement", "rssi-lost", "removed", "connection", "connection", "services",
                          "connection", "connection", "read", "read", "write", "write", "notify-acquired", "notify-state", "notification",
                          "descriptor-read", "descriptor-read", "error", "error"])
        let n = try Self.parse(RecordingFormat.line(for: .backend(.valueNotified(Fixture.hrmChar, [0x06, 72]), at: Fixture.t0), state: s)!)
        #expect(n["decoded"] as? String == "72 bpm, contact")
        #expect(n["uuid"] as? String == "00002a37-0000-1000-8000-00805f9b34fb")
        #expect(n["address"] as? String == Fixture.hrm.rawValue)
        #expect(n["hex"] as? String == "0648")
        // Key presses are not recorded.
        #expect(RecordingFormat.line(for: .cursorMoved(.down), state: s) == nil)
        _ = Reducer.reduce(&s, .tick(Fixture.t0))
    }

    /// Descriptor writes, reliable writes and writable descriptors come back from a recording as they went in.
    @Test func descriptorWritesAndReliableWritesRoundTrip() throws {
        let s = Fixture.connectedHRM()
        let did = AttributeID(Fixture.bslChar.path + "/desc000f")
        let services = [GATTService(id: AttributeID("/sim/s"), uuid: "180D", characteristics: [
            GATTCharacteristic(id: Fixture.bslChar, uuid: "2A38", properties: [.read, .write, .reliableWrite],
                               descriptors: [GATTDescriptor(id: did, uuid: "2901", writable: true),
                                             GATTDescriptor(id: AttributeID(did.path + "x"), uuid: "2900")])])]
        let events: [BackendEvent] = [
            .servicesResolved(Fixture.hrm, services, mtu: 247),
            .writeCompleted(Fixture.bslChar, [1, 2], .reliable, nil),
            .descriptorWritten(did, [0x4B], nil),
            .descriptorWritten(did, [0x4C], .notPermitted("Write not permitted")),
        ]
        for e in events {
            let line = try #require(RecordingFormat.line(for: .backend(e, at: Fixture.t0), state: s))
            let v = try JSONValue.parse(line)
            #expect(RecordedEvent.event(try #require(v["type"]?.string), v) == e, "\(line)")
        }
    }

    @Test func recorderWritesHeaderAndLines() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bx-rec-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try Recorder(path: path, header: .init(started: Fixture.t0, backend: "simulated", adapter: "sim0", seed: 7))
        for i in 0..<1000 { r.append(#"{"t":"x","type":"error","n":\#(i)}"#) }
        try r.flush()
        try r.close()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1001)
        let header = try Self.parse(String(lines[0]))
        #expect(header["type"] as? String == "header")
        #expect(header["format"] as? Int == 1)
        #expect(header["backend"] as? String == "simulated")
        #expect(header["seed"] as? String == "7")
    }

    @Test func unwritablePathIsAClearError() {
        #expect(throws: RecorderError(description: "cannot write /nonexistent-dir/x.jsonl: No such file or directory")) {
            _ = try Recorder(path: "/nonexistent-dir/x.jsonl",
                             header: .init(started: Fixture.t0, backend: "simulated", adapter: "sim0", seed: nil))
        }
    }

    @Test func fullDiskStopsRecordingButKeepsTheApp() throws {
        // /dev/full answers every write with ENOSPC.
        let r = try? Recorder(path: "/dev/full", header: .init(started: Fixture.t0, backend: "simulated", adapter: "sim0", seed: nil))
        #expect(r == nil)
        var s = Fixture.scanning()
        _ = Reducer.reduce(&s, .recordingStarted(path: "a.jsonl"))
        _ = Reducer.reduce(&s, .recordingFailed("writing a.jsonl failed: No space left on device"))
        #expect(s.recording == .off)
        #expect(s.lastError == "Recording stopped: writing a.jsonl failed: No space left on device")
    }

    /// A recording never replaces a file: `--record` refuses a taken name, `R` numbers it.
    @Test func aTakenNameIsRefusedOrNumberedNeverTruncated() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bx-rec-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let taken = dir + "/session.jsonl"
        try "precious\n".write(toFile: taken, atomically: true, encoding: .utf8)
        let header = RecordingFormat.Header(started: Fixture.t0, backend: "simulated", adapter: "sim0", seed: nil)
        #expect(Recorder.isTaken(taken))
        #expect(throws: RecorderError(description: "\(taken) exists: a recording never overwrites a file (choose another name)")) {
            _ = try Recorder(path: taken, header: header)
        }
        let r = try Recorder(path: taken, header: header, renameIfTaken: true)
        #expect(r.path == dir + "/session-2.jsonl")
        let r3 = try Recorder(path: taken, header: header, renameIfTaken: true)
        #expect(r3.path == dir + "/session-3.jsonl")
        #expect(try String(contentsOfFile: taken, encoding: .utf8) == "precious\n")
        #expect(Recorder.numbered("a.b/rec", 2) == "a.b/rec-2")
        #expect(Recorder.numbered("./.hidden", 4) == "./.hidden-4")
    }

    @Test func rNumbersATakenNameAndSaysWhich() {
        var s = Fixture.scanning()
        #expect(Reducer.reduce(&s, .recordingToggled)
                == [.startRecording(path: "bleexplr-\(s.now.compact).jsonl", renameIfTaken: true)])
        // The command line's --record is checked before the app starts, and not renamed.
        #expect(Reducer.reduce(&s, .appStarted(recordTo: "x.jsonl")).contains(.startRecording(path: "x.jsonl")))
        _ = Reducer.reduce(&s, .recordingStarted(path: "s-2.jsonl", instead: "s.jsonl"))
        #expect(s.alert?.message == "Recording to s-2.jsonl (s.jsonl exists)")
        #expect(s.recording == .on(path: "s-2.jsonl"))
    }
}
