@preconcurrency import Glibc

/// What the terminal's locale lets it show. In a locale that is not UTF-8 (`LANG=C`,
/// POSIX, or unset) ncursesw cannot turn box drawing, bars or arrows into bytes: it drops
/// them and every column after them moves left. There the grid is drawn in ASCII.
public enum Charset: Sendable, Equatable {
    case utf8, ascii

    /// The locale the process runs in, once `setlocale(LC_ALL, "")` has read it.
    static func ofLocale() -> Charset {
        guard let codeset = nl_langinfo(nl_item(CODESET)) else { return .ascii }
        return Self.of(codeset: String(cString: codeset))
    }

    /// "UTF-8" (glibc's name; "utf8" from others) shows everything; any other codeset
    /// (ANSI_X3.4-1968 is glibc's C locale) gets ASCII, even a Latin-1 one: one rule.
    static func of(codeset: String) -> Charset {
        let name = codeset.lowercased().filter { $0 != "-" && $0 != "_" }
        return name == "utf8" ? .utf8 : .ascii
    }
}

extension CellGrid {
    /// The same grid in ASCII, every cell as wide as before, so that columns stay where
    /// they were: each symbol the screens draw has a look-alike (`│` `|`, `█` `#`, `…` `~`,
    /// `°` `o`, `·` `.`), accented Latin letters lose their accent, anything else
    /// (a CJK name, an emoji, a control character's picture) is `?` for each column.
    public func ascii() -> CellGrid {
        var g = self
        for i in g.cells.indices {
            let text = g.cells[i].text
            if text.isEmpty {
                g.cells[i].text = "?"          // the right half of a wide character
            } else if !text.unicodeScalars.allSatisfy({ $0.isASCII }) {
                g.cells[i].text = Self.asciiLookAlike(text)
            }
        }
        return g
    }

    /// One column of ASCII for a grapheme of one column.
    static func asciiLookAlike(_ text: String) -> String {
        guard let first = text.unicodeScalars.first else { return "?" }
        if first.isASCII { return String(first) }                    // a letter with a combining mark
        if let s = symbols[first] { return String(s) }
        if let i = latinLetters.firstIndex(of: Character(first)) { return String(latinBases[i]) }
        return "?"
    }

    /// Every non-ASCII symbol the screens draw, with the ASCII it becomes.
    static let symbols: [Unicode.Scalar: Character] = {
        let pairs: [(String, Character)] = [
            ("─━═", "-"), ("│┃║▏▕❚", "|"), ("┌┐└┘├┤┬┴┼╭╮╯╰", "+"),
            ("▶▸►›→", ">"), ("◀◂‹←", "<"), ("▾▼↓", "v"), ("▲▴↑", "^"), ("↕", "|"),
            ("…", "~"), ("·•∙", "."), ("—–‐‑−", "-"), ("“”„«»″", "\""), ("‘’′", "'"),
            ("█▇▆■", "#"), ("▅▄", "="), ("▃▂", "-"), ("▁", "_"), ("░▒▓", "."),
            ("●◉", "*"), ("○◌", "o"), ("✗✘×", "x"), ("✓✔", "v"), ("⌂", "@"), ("↯", "!"),
            ("°", "o"), ("µμ", "u"), ("±", "+"), ("∓", "-"), ("≥", ">"), ("≤", "<"), ("≈", "~"), ("§", "S"),
            ("¹", "1"), ("²", "2"), ("³", "3"), ("⁸", "8"), ("\u{00A0}", " "),
            ("␛␍␊␀␉�", "?"),
        ]
        var table: [Unicode.Scalar: Character] = [:]
        for (from, to) in pairs { for s in from.unicodeScalars { table[s] = to } }
        return table
    }()

    static let latinLetters = Array("ÀÁÂÃÄÅàáâãäåÇçÈÉÊËèéêëÌÍÎÏìíîïÑñÒÓÔÕÖØòóôõöøÙÚÛÜùúûüÝýÿßÆæŒœ")
    static let latinBases = Array("AAAAAAaaaaaaCcEEEEeeeeIIIIiiiiNnOOOOOOooooooUUUUuuuuYyysAaOo")
}
