import Foundation
import Testing
@testable import DBus

/// The dbus fuzz target's seeds (Tests/Fuzz/corpus/dbus) are messages libdbus accepts,
/// so the fuzzer starts from the inside of the parser rather than from its first
/// refusal; each reads back the same through a second message, and the raw body reader
/// walks each signal's body to its end.
@Suite("D-Bus fuzz seeds")
struct FuzzSeedTests {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus/dbus")

    @Test func everySeedIsAMessage() throws {
        let files = try FileManager.default.contentsOfDirectory(at: Self.dir, includingPropertiesForKeys: nil)
        #expect(files.count >= 8)
        var signals = 0
        for file in files {
            let w = try #require(DBusFuzz.wire(Array(try Data(contentsOf: file))), "\(file.lastPathComponent) is not a message")
            #expect(w.second == w.first, "\(file.lastPathComponent)")
            if let skipped = w.skipped { signals += 1; #expect(skipped, "\(file.lastPathComponent)") }
        }
        #expect(signals >= 5)
    }

    @Test func rawReaderStaysInsideUnvalidatedBytes() {
        // A signature then a body that lies about its lengths: never a read outside.
        let cases: [[UInt8]] = [
            [2] + Array("as".utf8) + [0xFF, 0xFF, 0xFF, 0x7F],
            [1] + Array("s".utf8) + [0xFE, 0xFF, 0xFF, 0xFF, 0x41],
            [1] + Array("v".utf8) + [0xFF] + Array("a{sv}".utf8),
            [5] + Array("a{sv}".utf8) + [8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x41, 0],
            [], [200],
        ]
        for c in cases { #expect(DBusFuzz.reader(c) == false, "\(c)") }
        #expect(DBusFuzz.reader([1] + Array("y".utf8) + [7]))
    }
}
