import TestSupport
import Foundation
import Testing

/// What the real binary's commands print with --json, against docs/output.schema.json,
/// and the same value from every door: the name a device's 0x2901 gives and the value its
/// 0x2904 formats, in `services`, `read`, `notify` and the recording alike.
@Suite("Command output, end to end")
struct OutputEndToEndTests {
    static let bike = "C8:2B:96:0E:51:3A"
    static let motor = "B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE"

    /// Runs the binary with stdout to a file; returns the status and what it printed there.
    static func stdout(_ args: [String], stdin: String? = nil) throws -> (Int32, String) {
        let path = tempPath("output")
        defer { unlink(path) }
        let quoted = ([Tmux.binary] + args).map { "'" + $0 + "'" }.joined(separator: " ")
        let (status, _) = try spawn("/bin/sh", ["-c", quoted + " > " + path + (stdin.map { " < '\($0)'" } ?? "")])
        return (status, (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }

    static func validate(_ kind: String, _ text: String) throws {
        let path = tempPath("output-\(kind)")
        defer { unlink(path) }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (status, out) = try spawn("/usr/bin/python3", [
            Tmux.packageRoot.appendingPathComponent("Tests/tools/validate_output.py").path,
            Tmux.packageRoot.appendingPathComponent("docs/output.schema.json").path, kind, path])
        #expect(status == 0, "\(kind) lines against the schema: \(out)")
    }

    static func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    @Test func everyCommandsJSONLinesMatchTheSchema() throws {
        var (code, out) = try Self.stdout(["--demo", "scan", "--duration", "2", "--json"])
        #expect(code == 0)
        try Self.validate("device", out)
        (code, out) = try Self.stdout(["--demo", "services", Self.bike, "--json"])
        #expect(code == 0)
        try Self.validate("service", out)
        (code, out) = try Self.stdout(["--demo", "notify", "E4:1C:22:5D:90:11", "2A37", "--count", "2", "--json"])
        #expect(code == 0)
        try Self.validate("value", out)
        let beats = try Self.objects(out)
        #expect(beats.allSatisfy { ($0["value"] as? [String: Any])?["bpm"] is Int })
        (code, out) = try Self.stdout(["--demo", "write", "FC:58:FA:1A:2B:3C", "2A06", "02", "--without-response", "--json"])
        #expect(code == 0)
        try Self.validate("write", out)
        (code, out) = try Self.stdout(["--demo", "notify", "5C:F3:70:8A:00:42", "08590F7E-DB05-467E-8757-72F6FAEB13D4",
                                       "--until", "EOM", "--json"])
        #expect(code == 0)
        try Self.validate("message", out)
        (code, out) = try Self.stdout(["--demo", "monitor", "--exit-after", "3", "--duration", "34", "--json"])
        #expect(code == 0)
        try Self.validate("region", out)
    }

    /// `decode` parses raw advertising data as the scan list would decode it: an iBeacon
    /// with its scan response, and a payload cut short.
    @Test func decodeParsesRawAdvertisingData() throws {
        let ad = "0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000640000c5", response = "0c0944656d6f20426561636f6e"
        var (code, out) = try Self.stdout(["decode", ad, response, "--json"])
        #expect(code == 0)
        try Self.validate("decoded", out)
        let line = try Self.objects(out)[0]
        #expect(line["localName"] as? String == "Demo Beacon")
        let frame = (line["frames"] as? [[String: Any]])?.first
        #expect(frame?["kind"] as? String == "ibeacon")
        #expect((frame?["value"] as? [String: Any])?["uuid"] as? String == "e2c56db5-dffb-48d2-b060-d0f5a71096e0")
        #expect((line["structures"] as? [[String: Any]])?.count == 3)
        (code, out) = try Self.stdout(["decode", "020106ff4c00"])
        #expect(code == 0)
        #expect(out.contains("malformed: structure at 3 needs 255 bytes, 2 left"))
        (code, _) = try Self.stdout(["decode", "zz"])
        #expect(code == 2)
    }

    /// The 135 advertisements of Tests/Fixtures/realdata (other projects' test suites) through
    /// the real binary, against what those suites assert. The floors are what this code
    /// reaches: a decoder that regresses fails here (Tests/tools/realdata.py prints why).
    @Test func theRealWorldsAdvertisementsDecodeAsTheirTestsAssert() throws {
        let (status, out) = try spawn("/usr/bin/python3", [
            Tmux.packageRoot.appendingPathComponent("Tests/tools/realdata.py").path, Tmux.binary,
            Tmux.packageRoot.appendingPathComponent("Tests/Fixtures/realdata/adverts.json").path,
            "--schema", Tmux.packageRoot.appendingPathComponent("docs/output.schema.json").path,
            "--floor", "generic=99", "--floor", "raw=100", "--floor", "beacon=100", "--floor", "bthome=100", "--floor", "decrypted=100",
            "--floor", "encrypted=100"])
        print(out)
        #expect(status == 0, "\(out)")
    }

    @Test func theDescriptorsNameAndFormatTheValueInEveryCommand() throws {
        var (code, out) = try Self.stdout(["--demo", "services", Self.bike])
        #expect(code == 0)
        #expect(out.contains("B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE  Motor temperature  [read, notify]  (sint16, exponent -2, °C)"))
        (code, out) = try Self.stdout(["--demo", "read", Self.bike, Self.motor, "--json"])
        #expect(code == 0)
        let value = try Self.objects(out).first
        #expect(value?["name"] as? String == "Motor temperature")
        #expect((value?["decoded"] as? String)?.hasSuffix(" °C") == true)
        #expect((value?["value"] as? [String: Any])?["unit"] as? String == "degree Celsius")
        (code, out) = try Self.stdout(["--demo", "read", Self.bike, Self.motor])
        #expect(code == 0 && out.hasSuffix(" °C\n"))
    }
}
