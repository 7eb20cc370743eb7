import Testing
@testable import Explorer
@testable import TUI

/// The prompt line: the cursor (▏) before the character it is on, and a line wider than
/// the screen scrolled around it.
@Suite("Screens: prompts that edit")
struct PromptScreenTests {
    typealias T = ScreenTests
    static let prompt = "write (hex 01 ff, or \"text\"): "

    static func writing() -> AppState {
        var s = T.connected()
        s.peripherals[T.hrm]!.services![0].characteristics[0].properties = [.write, .notify]
        s.route = .characteristic(T.hrm, T.hrmChar)
        _ = Reducer.reduce(&s, .writeStarted)
        return s
    }

    static func keys(_ s: inout AppState, _ keys: [Key]) {
        for k in keys { if let a = Keymap.action(for: k, in: s) { _ = Reducer.reduce(&s, a) } }
    }

    @Test func theCursorMovesThroughTheLine() {
        var s = Self.writing()
        Self.keys(&s, Array("01 ff").map { .char($0) } + [.left, .left])
        #expect(T.render(s)[22] == Self.prompt + "01 ▏ff")
        Self.keys(&s, [.char("e")])
        #expect(T.render(s)[22] == Self.prompt + "01 e▏ff")
        Self.keys(&s, [.ctrl("a")])
        #expect(T.render(s)[22] == Self.prompt + "▏01 eff")
        Self.keys(&s, [.delete, .ctrl("e"), .ctrl("w")])
        #expect(T.render(s)[22] == Self.prompt + "1 ▏")
        // ↑ brings back a value written before, cursor at its end.
        _ = Reducer.reduce(&s, .writeHistoryLoaded(key: "E41C225D9011-2a37", ["02 03"]))
        Self.keys(&s, [.up])
        #expect(T.render(s)[22] == Self.prompt + "02 03▏")
        Self.keys(&s, [.down])
        #expect(T.render(s)[22] == Self.prompt + "1 ▏")
    }

    @Test func aLongLineScrollsWithTheCursor() {
        var s = Self.writing()
        let text = (0..<40).map { b in String(b, radix: 16).count == 1 ? "0" + String(b, radix: 16) : String(b, radix: 16) }
            .joined(separator: " ")
        #expect(text.count == 119)
        _ = Reducer.reduce(&s, .inputEdited(.insert(text)))
        let chars = Array(text)
        // 49 columns for the line at 80: its end, and a … where the rest is.
        #expect(T.render(s)[22] == Self.prompt + "…" + String(chars[73...]) + "▏")
        Self.keys(&s, [.home])
        #expect(T.render(s)[22] == Self.prompt + "▏" + String(chars[..<46]) + "…")
        for _ in 0..<60 { Self.keys(&s, [.right]) }
        #expect(T.render(s)[22] == Self.prompt + "…" + String(chars[26..<60]) + "▏" + String(chars[60..<72]) + "…")
        #expect(CellGrid.columns(of: T.render(s)[22]) == 79)
    }
}
