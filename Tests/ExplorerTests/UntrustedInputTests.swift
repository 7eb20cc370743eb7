import Foundation
import Testing
@testable import Explorer

/// Property tests: seeded random bytes, and every truncation of valid examples, through
/// every parser. Each call returning is the "never traps, never loops" property; the
/// text it returns must be safe for a terminal.
@Suite("Untrusted input")
struct UntrustedInputTests {
    /// Valid examples of each format (the decoder tests' worked examples, beacons, a raw payload).
    static let examples: [Bytes] = [
        [0x1E, 0x48, 0x2C, 0x01, 0x00, 0x03, 0x33, 0x03],
        [0x06, 0x6C, 0x01, 0x00, 0xFF, 0xE8, 0x07, 0x03, 0x0F, 0x0A, 0x1E, 0x00, 0x02],
        [0xE8, 0x07, 0x03, 0x0F, 0x0A, 0x1E, 0x00, 0x05, 0x80, 0x09],
        [0x03, 0x23, 0x01, 0x00, 0x00, 0x00, 0x04, 0x10, 0x00, 0x00, 0x08],
        [0x07, 0x00, 0x03, 0xB4, 0x96, 0x00, 0x10, 0x27, 0x00, 0x00],
        [0x02, 0x15] + DemoCatalog.uuidBytes(DemoCatalog.iBeaconUUID) + [0x00, 0x01, 0x00, 0x2A, 0xC5],
        [0xBE, 0xAC] + DemoCatalog.uuidBytes(DemoCatalog.altBeaconID) + [0x00, 0x07, 0x00, 0x0C, 0xC4, 0x00],
        [0x00, 0xE7, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F],
        [0x10, 0xEB, 0x03] + Array("example".utf8) + [0x07],
        [0x20, 0x00, 0x0B, 0xB8, 0x15, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x01, 0x00],
        [0x30, 0xF0, 0x8B, 0x3D, 0x51, 0xE2, 0x07, 0xA4, 0xC9, 0x16],
        DemoCatalog.celsiusFormat + [0x29, 0x09],
        // Flags, complete 16-bit UUIDs 180D 180F, name "HRM", manufacturer 0x0059, service data FEAA.
        [0x02, 0x01, 0x06, 0x05, 0x03, 0x0D, 0x18, 0x0F, 0x18, 0x04, 0x09, 0x48, 0x52, 0x4D,
         0x05, 0xFF, 0x59, 0x00, 0x01, 0x02, 0x05, 0x16, 0xAA, 0xFE, 0x30, 0x00],
    ]

    static func expectSafe(_ texts: [String], _ input: Bytes, sourceLocation: SourceLocation = #_sourceLocation) {
        for t in texts where t.unicodeScalars.contains(where: TerminalSafe.isUnsafe) {
            Issue.record("unsafe text \(t.debugDescription) from \(hex(input))", sourceLocation: sourceLocation)
        }
    }

    @Test func randomBytes() {
        var rng = SeededRandom(seed: 0x5EED)
        // Kept small: this shares the process with timing tests (the D-Bus idle CPU check);
        // scripts/fuzz goes deep.
        for round in 0..<600 {
            let n = round < 590 ? Int(rng.next() % 48) : Int(rng.next() % 700)
            var b = Bytes((0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            // Half the time start like a real format so the deeper branches run.
            if round % 2 == 0, let example = Self.examples.randomElement(using: &rng) {
                b = Array(example.prefix(Int(rng.next() % UInt64(example.count + 1)))) + b
            }
            Self.expectSafe(UntrustedInput.texts(b), b)
        }
    }

    @Test func everyTruncationAndExtension() {
        for example in Self.examples {
            for n in 0...example.count {
                let cut = Array(example.prefix(n))
                Self.expectSafe(UntrustedInput.texts(cut), cut)
                Self.expectSafe(UntrustedInput.texts(cut + [0xFF, 0x1B, 0x00]), cut)
            }
        }
    }

    /// The fuzz corpus kept in the repo (seeds and what scripts/fuzz merged) stays clean.
    @Test func fuzzCorpusReplays() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/decoders")
        let files = try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
        #expect(files.count >= 18)
        for file in files {
            let b = Bytes(try Data(contentsOf: file))
            Self.expectSafe(UntrustedInput.texts(b), b)
        }
    }

    @Test func truncatedValuesAreMarkedMalformed() {
        // A flags byte asking for everything, and nothing after it.
        for uuid: BLEUUID in ["2A1C", "2A2B", "2A37", "2A53", "2A5B", "2A6D", "2A01", "2A19"] {
            #expect(ValueDecoder.decode(uuid, [])?.hasPrefix("malformed") == true, "\(uuid)")
        }
        #expect(ValueDecoder.decode("2A5B", [0x03])?.hasPrefix("malformed") == true)
        #expect(ValueDecoder.decode("2A53", [0x07, 0, 3, 180])?.hasPrefix("malformed") == true)
    }

    @Test func rawAdvertisingData() {
        let parsed = AdvertisingData.parse(Self.examples.last!)
        #expect(parsed.malformed == nil)
        #expect(parsed.advertisement == Advertisement(localName: "HRM", serviceUUIDs: ["180D", "180F"],
                                                      manufacturerData: [0x0059: [0x01, 0x02]],
                                                      serviceData: ["FEAA": [0x30, 0x00]], flags: 0x06))
        #expect(AdvertisingData.parse([0x02, 0x01, 0x06, 0x05, 0x09, 0x41]).malformed
                == "malformed: structure at 3 needs 5 bytes, 2 left")
        #expect(AdvertisingData.parse([0x02, 0x01, 0x06, 0x00, 0xFF, 0xFF]).advertisement.flags == 0x06)
        let uuid128 = AdvertisingData.parse([0x11, 0x07] + DemoCatalog.uuidBytes(DemoCatalog.flakyService).reversed())
        #expect(uuid128.advertisement.serviceUUIDs == [DemoCatalog.flakyService])
        // Text and bidi controls in a name never reach the screen raw.
        #expect(ValueDecoder.printableText(Array("a\u{202E}b".utf8)) == "a·b")
    }
}
