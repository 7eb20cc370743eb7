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
}
