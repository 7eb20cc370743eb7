import TestSupport
import Foundation
import Testing

/// Descriptors and write types through the real binary on `--demo`: the iTag's settings
/// note (read, write, reliable write; 280 bytes, longer than one PDU at MTU 247) with a
/// writable 0x2901 label and a 0x2900, and its Alert Level (without response only).
@Suite("End to end: descriptors and write types", .serialized)
struct DescriptorWriteEndToEndTests {
    static let itag = "FC:58:FA:1A:2B:3C"
    static let note = "B1E5E1A0-0011-4C7A-9E3B-2D8F00C0FFEE"

    static func run(_ args: [String]) throws -> (Int32, String) { try spawn(Tmux.binary, ["--demo"] + args) }

    static func object(_ line: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
    }

    @Test func writeTypesAreCheckedAgainstTheProperties() throws {
        var (code, out) = try Self.run(["write", Self.itag, Self.note, "01", "--type", "reliable", "--json"])
        #expect(code == 0)
        #expect(try Self.object(out)["writeType"] as? String == "reliable")
        (code, out) = try Self.run(["write", Self.itag, Self.note, "01", "--type", "command"])
        #expect(code == 1)
        #expect(out == "bleexplr: \(Self.note) on \(Self.itag) does not take a write of type command (it takes --type request, reliable)\n")
        (code, out) = try Self.run(["write", Self.itag, "2A06", "01", "--type", "request"])
        #expect(code == 1 && out.contains("does not take a write of type request (it takes --type command)"))
        (code, out) = try Self.run(["write", Self.itag, "2A06", "01", "--type", "command"])
        #expect(code == 0 && out == "wrote 1 byte\n")
        (code, out) = try Self.run(["write", Self.itag, "2A06", "01", "--type", "sideways"])
        #expect(code == 2 && out == "bleexplr: --type takes request, command or reliable\n")
        let long = "\"" + String(repeating: "n", count: 300) + "\""
        (code, out) = try Self.run(["write", Self.itag, Self.note, long])
        #expect(code == 0 && out == "wrote 300 bytes (long write)\n")
    }

    @Test func descriptorsReadAndWriteButNeverTheCCCD() throws {
        var (code, out) = try Self.run(["read", Self.itag, Self.note, "--descriptor", "2900", "--json"])
        #expect(code == 0)
        var obj = try Self.object(out)
        #expect(obj["handle"] as? String == "0x0017" && obj["decoded"] as? String == "reliable write, writable auxiliaries")
        (code, out) = try Self.run(["write", Self.itag, Self.note, "\"Door\"", "--descriptor", "2901", "--json"])
        #expect(code == 0)
        obj = try Self.object(out)
        #expect(obj["descriptor"] as? String == "00002901-0000-1000-8000-00805f9b34fb" && obj["hex"] as? String == "446f6f72")
        (code, out) = try Self.run(["write", Self.itag, Self.note, "01", "--descriptor", "2900"])
        #expect(code == 1 && out.contains("cannot be written (its flags do not allow a write)"))
        (code, out) = try Self.run(["write", Self.itag, "2A19", "0100", "--descriptor", "2902"])
        #expect(code == 1 && out.contains("the CCCD (0x2902) is notify's"))
        (code, out) = try Self.run(["read", Self.itag, Self.note, "--descriptor", "2904"])
        #expect(code == 1 && out.contains("has no descriptor 2904"))
        (code, out) = try Self.run(["read", Self.itag, Self.note, "--descriptor", "2901", "--offset", "2"])
        #expect(code == 2 && out.contains("--offset goes with read of a characteristic"))
        (code, out) = try Self.run(["services", Self.itag, "--json"])
        #expect(code == 0 && out.contains(#""handle":"0x0016","writable":true,"hex":"4e6f7465","decoded":"“Note”""#))
    }

    @Test func theAppWritesADescriptorAndAReliableWrite() throws {
        let t = try Tmux("gatt", command: wrapped("--demo --seed 7"))
        try t.waitFor(text: "Demo iTag")
        _ = try t.filterScanList("Demo iTag", "only Demo iTag listed") { $0.contains("Demo iTag") && !$0.contains("Demo HRM") }
        try t.keys("Enter")
        try t.waitFor(text: "Unknown Service")
        try t.keys("G", "Enter")
        var screen = try t.waitFor(text: "0x0016 Characteristic User Description “Note” (writable)")
        #expect(screen.contains("0x0017 Characteristic Extended Properties"))
        try t.keys("D")
        try t.waitFor(text: "[0x0016 Characteristic User Description “Note” (writable)]")
        try t.keys("w")
        try t.waitFor(text: "write descriptor 0x0016")
        try t.literal("\"Spare key\"")
        try t.keys("Enter")
        screen = try t.waitFor(text: "Wrote 9 bytes to Characteristic User Description")
        // The label is the characteristic's name: the new one shows at once.
        #expect(screen.contains("Scan › Demo iTag › “Spare key”"))
        try t.keys("D", "D")
        try t.waitFor(text: "No descriptor selected")
        try t.keys("W")
        try t.waitFor(text: "with reliable write")
        try t.keys("w")
        try t.waitFor(text: "reliable write (hex 01 ff")
        try t.literal("0102")
        try t.keys("Enter")
        try t.waitFor(text: "Wrote 2 bytes to \(Self.note) (reliable write)")
        try t.keys("q")
        try t.waitFor(text: "EXIT=0")
    }
}
