import Testing
@testable import TUI

/// `CellGrid.units` takes shortcuts (printable ASCII, and scalars that stand alone, a cell
/// each without finding grapheme boundaries): it must cut every string into the cells that
/// walking its Characters gives.
@Suite("Cells of a string")
struct CellUnitsTests {
    static func byCharacters(_ s: String) -> [String] {
        s.flatMap { CellGrid.displayUnits($0).map { "\($0.0)/\($0.1)" } }
    }

    static func byUnits(_ s: String) -> [String] {
        var out: [String] = []
        CellGrid.units(of: s) { shown, w in out.append("\(shown)/\(w)"); return true }
        return out
    }

    @Test(arguments: [
        "-57 ████░", "▶ Demo HRM", "Nokia · 0x0001 · tx -4 dBm", "“Flood (numbered, 5,000 a second)”", "a…",
        "e\u{301}·", "·e\u{301}", " \u{301}", "█\u{301}", "x\u{200D}y", "❤\u{FE0F}", "❤ ", "☝\u{1F3FB}!", "☝ ☝",
        "🇫🇷🇩🇪", "한국어", "\u{1100}\u{1161}\u{11A8}", "a\u{0600}b", "\u{0600}·", "Ω\u{20DD}", "→\u{20D7}x",
        "Evil\u{1B}[2J\u{9B}31m\u{7F}", "\u{202E}abc", "«é»", "a\r\nb", "\u{00AD}x", "Ⅻ ⌚ ⚡ ✅",
    ])
    func theSameCellsAsByCharacters(_ s: String) {
        #expect(Self.byUnits(s) == Self.byCharacters(s))
        #expect(CellGrid.columns(of: s) == Self.byCharacters(s).reduce(0) { $0 + Int($1.split(separator: "/").last!)! })
    }
}
