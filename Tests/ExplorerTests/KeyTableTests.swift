import Foundation
import Testing
@testable import Explorer

@Suite("One key table")
struct KeyTableTests {
    /// The README's key table is `Keymap.rows`, word for word (between its markers).
    @Test func theReadmeKeyTableIsTheKeymaps() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = "<!-- keys: made from Keymap.rows (Sources/Explorer/Flow/Keymap.swift) -->\n", end = "\n<!-- /keys -->"
        let table = readme.components(separatedBy: start).dropFirst().first?.components(separatedBy: end).first
        #expect(table == Keymap.markdownTable, "README.md's key table should read:\n\(Keymap.markdownTable)")
    }

    @Test func everyBindingIsInTheHelpAndNoKeyIsBoundTwiceOnAScreen() {
        for scope in KeyScope.allCases {
            var seen: [Key] = []
            for b in Keymap.rows.flatMap(\.bindings) where !b.replayOnly && (b.scopes?.contains(scope) ?? true) {
                for k in b.keys {
                    #expect(!seen.contains(k), "\(k) is bound twice on \(scope)")
                    seen.append(k)
                }
            }
        }
        // Ctrl-C cancels a prompt and quits elsewhere; Ctrl-L repaints everywhere.
        var s = AppState(now: Timestamp(0))
        #expect(Keymap.action(for: .ctrl("c"), in: s) == .quitRequested)
        #expect(Keymap.action(for: .ctrl("l"), in: s) == .repaintRequested)
        s.input = InputLine(purpose: .filter, text: "x")
        #expect(Keymap.action(for: .ctrl("c"), in: s) == .inputCancelled)
        #expect(Keymap.action(for: .ctrl("l"), in: s) == .repaintRequested)
        s.input = nil
        s.showHelp = true
        #expect(Keymap.action(for: .ctrl("c"), in: s) == .quitRequested)
        #expect(Keymap.hints(.scan) == "Enter connect · i details · / filter · o sort · s scan · R rec · ? help · q quit")
    }
}
