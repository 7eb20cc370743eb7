import TestSupport
import Foundation
import Testing

/// The demo's Demo Lock, which pairs only with its passkey: in the app (tmux) and headless.
@Suite("End to end: pairing the demo's lock", .serialized)
struct PairingEndToEndTests {
    static let lock = "C4:7A:0E:51:3B:D9"

    @Test func pairTrustAndForgetInTheApp() throws {
        let record = tempPath("pair-rec")
        defer { unlink(record) }
        let t = try Tmux("pair", command: wrapped("--demo --record \(record)"))
        try t.waitFor(text: "Demo Lock")
        try t.filterScanList("Demo Lock", "only Demo Lock") { $0.contains("Demo Lock") && !$0.contains("Demo HRM") }
        try t.keys("e")
        try t.waitFor(text: "asks for a passkey")
        try t.literal("246810")
        try t.waitFor(text: "2 4 6 8 1 0")
        try t.keys("Enter")
        try t.waitFor(text: "Paired with Demo Lock")
        // Pair left the link up (as BlueZ's does): Enter opens its screen once ready.
        try t.keys("Enter")
        try t.waitFor(text: "Scan › Demo Lock")
        try t.waitFor(text: "Bolt (needs encryption)")
        try t.keys("Escape")
        try t.waitFor(text: "● connected · paired")
        try t.keys("t")
        try t.waitFor(text: "paired·bonded·trus")   // the row's end is cut at 100 columns
        try t.keys("X")
        try t.waitFor(text: "Forget Demo Lock")
        try t.keys("y")
        try t.waitFor(text: "Forgetting Demo Lock")
        try t.keys("q")
        try DemoEndToEndTests.expectRestored(t, exit: 0)
        let recording = try String(contentsOfFile: record, encoding: .utf8)
        #expect(recording.contains(#""request":"passkey""#))
        #expect(recording.contains(#""answer":"passkey-entered""#))
        #expect(!recording.contains("246810"))
    }

    @Test func pairOnATerminalAsksThere() throws {
        let t = try Tmux("pairtty", command: wrapped("--demo pair \(Self.lock)"))
        try t.waitFor(text: "asks for a passkey: type the six digits it shows, then Enter")
        try t.literal("246810")
        try t.keys("Enter")
        let done = try t.waitFor(text: "EXIT=")
        #expect(done.contains("paired with \(Self.lock)"))
        #expect(done.contains("EXIT=0"))
    }

    @Test func headlessPairExitsZeroWithThePasskeyAndRejectsWithout() throws {
        let (ok, okText) = try spawn(Tmux.binary, ["--demo", "pair", Self.lock, "--passkey", "246810"])
        #expect(ok == 0, "\(okText)")
        #expect(okText.contains("paired with \(Self.lock)"))
        let (wrong, wrongText) = try spawn(Tmux.binary, ["--demo", "pair", Self.lock, "--passkey", "111111"])
        #expect(wrong == 1)
        #expect(wrongText.contains("AuthenticationFailed"))
        let (none, noneText) = try spawn(Tmux.binary, ["--demo", "pair", Self.lock])
        #expect(none == 1)
        #expect(noneText.contains("no terminal to ask on: give --passkey N"))
        let (bad, badText) = try spawn(Tmux.binary, ["--demo", "--agent", "telepathy", "pair", Self.lock])
        #expect(bad == 2)
        #expect(badText.contains("--agent takes keyboard-display"))
        // forget, headless: the device removed from the (demo) bluetoothd, exit 0.
        let (forgot, forgotText) = try spawn(Tmux.binary, ["--demo", "forget", Self.lock])
        #expect(forgot == 0 && forgotText.contains("forgot \(Self.lock): unpaired and removed from bluetoothd"), "\(forgotText)")
    }

    /// Encryption on demand: reading the lock's bolt (2A56, which needs an encrypted link)
    /// pairs first, then shows the value.
    @Test func aReadThatNeedsEncryptionPairsThenShowsTheValueInTheApp() throws {
        let t = try Tmux("pairread", command: wrapped("--demo"))
        try t.waitFor(text: "Demo Lock")
        try t.filterScanList("Demo Lock", "only Demo Lock") { $0.contains("Demo Lock") && !$0.contains("Demo HRM") }
        try t.keys("Enter")
        try t.waitFor(text: "Connected to Demo Lock", timeout: 15)
        try t.waitFor(text: "Bolt (needs encryption)")   // its user description (0x2901)
        try t.keys("Down")   // from the service to its characteristic, the bolt
        try t.keys("Enter")
        try t.waitFor(text: "No value yet: r reads it")
        try t.keys("r")
        try t.waitFor(text: "asks for a passkey")
        let asked = try t.waitFor(text: "pairing with Demo Lock")
        #expect(asked.contains("2A56 needs encryption: pairing with Demo Lock…"))
        try t.literal("246810")
        try t.waitFor(text: "2 4 6 8 1 0")
        try t.keys("Enter")
        let read = try t.waitFor("the value read after pairing") {
            $0.contains("1 byte, read at") && $0.contains("Paired with Demo Lock: read of 2A56 sent again")
        }
        #expect(!read.contains("failed"))
        try t.keys("q")
        try DemoEndToEndTests.expectRestored(t, exit: 0)
    }

    @Test func headlessReadAndWriteThatNeedEncryptionPairOnce() throws {
        let (ok, okText) = try spawn(Tmux.binary, ["--demo", "read", Self.lock, "2A56", "--passkey", "246810", "--json"])
        #expect(ok == 0, "\(okText)")
        #expect(okText.contains("\(Self.lock) refused the read for want of encryption: pairing…"))
        #expect(okText.contains("paired with \(Self.lock); sent again"))
        #expect(okText.contains(#""hex":"00""#))
        let (wrong, wrongText) = try spawn(Tmux.binary, ["--demo", "write", Self.lock, "2A56", "01", "--passkey", "111111"])
        #expect(wrong == 1)
        #expect(wrongText.contains("pairing with \(Self.lock) failed: AuthenticationFailed: Authentication Failed"))
        let (none, noneText) = try spawn(Tmux.binary, ["--demo", "read", Self.lock, "2A56"])
        #expect(none == 1)
        #expect(noneText.contains("no terminal to ask on: give --passkey N"))
        #expect(noneText.contains("AuthenticationRejected"))
    }
}
