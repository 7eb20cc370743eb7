import TestSupport
import Foundation
import Testing

/// Every fuzz target's seeds (Tests/Fuzz/corpus/<target>) through the FuzzDecoders
/// replayer of the normal build: the same entry point libFuzzer drives, so a crash that
/// `scripts/fuzz` found and whose input was kept in the corpus stays fixed in `swift test`.
@Suite("Fuzz corpora replay")
struct FuzzCorpusEndToEndTests {
    static let targets = ["decoders", "decode", "recording", "serve", "dbus", "bluez", "hooks", "secrets", "config"]

    @Test(arguments: targets)
    func corpusReplays(_ target: String) throws {
        let bin = URL(fileURLWithPath: Tmux.binary).deletingLastPathComponent().appendingPathComponent("FuzzDecoders").path
        let dir = Tmux.packageRoot.appendingPathComponent("Tests/Fuzz/corpus/\(target)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted().map { dir.appendingPathComponent($0).path }
        #expect(!files.isEmpty, "no seeds for \(target)")
        let out = tempPath("fuzz-\(target)")
        defer { unlink(out) }
        let pid = try startProcess(bin, files, output: out, env: ["FUZZ_TARGET=\(target)", "PATH=/usr/bin:/bin"])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(shellExitCode(status) == 0, "\(text.suffix(2000))")
        #expect(text.contains("replayed \(files.count) input"), "\(text.suffix(2000))")
    }

    /// The bluez target's seeds for the lying org.bluez (written by Tests/Fuzz/bluez-seeds.py
    /// in the byte script FuzzBlueZ.swift reads) make the backend meet what each is named
    /// after, so that the fuzzer starts from the lies, not from random bytes alone.
    @Test func lyingBlueZSeedsEncodeTheirScenarios() throws {
        let bin = URL(fileURLWithPath: Tmux.binary).deletingLastPathComponent().appendingPathComponent("FuzzDecoders").path
        let dir = Tmux.packageRoot.appendingPathComponent("Tests/Fuzz/corpus/bluez")
        func events(_ seed: String) throws -> [String] {
            let out = tempPath("fuzz-events")
            defer { unlink(out) }
            let pid = try startProcess(bin, [dir.appendingPathComponent(seed).path], output: out,
                                       env: ["FUZZ_TARGET=bluez", "FUZZ_SHOW_EVENTS=1", "PATH=/usr/bin:/bin"])
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            #expect(shellExitCode(status) == 0, "\(seed)")
            return ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.hasPrefix("event: ") }.map(String.init)
        }
        func count(_ lines: [String], _ text: String) -> Int { lines.filter { $0.contains(text) }.count }
        let said: [String: [String]] = [
            "lying-wrong-types": ["sent RSSI as int64 (x)", "sent TxPower as int64 (x)", "sent UUIDs as uint32 (u)",
                                  "sent Connected as string (s)", "sent Name as object path (o)",
                                  "sent ManufacturerData as array (ay)", "sent Paired as int32 (i)"],
            "lying-missing-mandatory": ["dev_C0_FF_EE_00_00_01: bluetoothd sent no Address", "service000a: bluetoothd sent no UUID"],
            "lying-appear-vanish": ["rssi: Optional(-50)", "rssi: Optional(-51)"],
            "lying-hostile-errors": ["failure(Unknown: HRM ␛[2J)", "scanFailed(NoReply: ␛]0;pwned␇)", "connecting(E4:1C:22:5D:90:11"],
            "lying-owner-change": ["name: \"hci1\"", "bluetoothd is not running"],
            "lying-late-replies": ["bluetoothd went away", "connectFailed(E4:1C:22:5D:90:11, �31mlate)"],
            "lying-stray-paths": ["name: \"hci0\""],
        ]
        for (seed, texts) in said {
            let lines = try events(seed)
            for text in texts { #expect(count(lines, text) == 1, "\(seed): \(text) said \(count(lines, text)) times in \(lines)") }
        }
        // A lie told eight times is said once; strays and the stale snapshot's device are no devices.
        #expect(count(try events("lying-wrong-types"), "advertisementReceived") >= 9)
        #expect(count(try events("lying-stray-paths"), "advertisement") == 0)
        #expect(count(try events("lying-owner-change"), "E4:1C:22:5D:90:11") == 0)
        // Appeared and vanished twice; the change after it left is nobody's.
        let vanishing = try events("lying-appear-vanish")
        #expect(count(vanishing, "peripheralRemoved(E4:1C:22:5D:90:11)") == 2 && count(vanishing, "-52") == 0)
    }
}
