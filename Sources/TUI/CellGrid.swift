import Explorer

public enum Color: UInt8, Sendable {
    case normal = 0, red, green, yellow, blue, magenta, cyan, gray
}

public struct Style: Hashable, Sendable {
    public var color: Color = .normal
    public var bold = false
    public var dim = false
    public var reverse = false
    public var underline = false
    public init(color: Color = .normal, bold: Bool = false, dim: Bool = false, reverse: Bool = false,
                underline: Bool = false) {
        self.color = color; self.bold = bold; self.dim = dim; self.reverse = reverse; self.underline = underline
    }
    public static let plain = Style()
    public static let title = Style(bold: true)
    public static let bar = Style(reverse: true)
    public static let selected = Style(reverse: true)
    public static let dimmed = Style(dim: true)
    public static let error = Style(color: .red, bold: true)
    public static let warning = Style(color: .yellow)
    public static let good = Style(color: .green)
    public static let accent = Style(color: .cyan)
}

public struct Cell: Equatable, Sendable {
    /// One grapheme; "" in the cell right of a double-width character.
    public var text: String
    public var style: Style
    public static let blank = Cell(text: " ", style: .plain)
}

/// What screens draw into: a grid of cells. Every piece of text goes through `put`, the
/// one place where untrusted text meets the terminal: control characters (C0, DEL, C1)
/// become visible symbols, so a device name can never move the cursor or clear the screen.
public struct CellGrid: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public internal(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell { cells[y * width + x] }

    /// Writes `text` at (x, y), clipped to `maxWidth` columns (and the grid). Returns the
    /// number of columns used.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, style: Style = .plain, maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < height, x < width else { return 0 }
        let limit = min(width, maxWidth.map { x + max(0, $0) } ?? width)
        var col = x
        Self.units(of: text) { shown, w in
            if col + w > limit { return false }
            if col >= 0 {
                cells[y * width + col] = Cell(text: shown, style: style)
                if w == 2 { cells[y * width + col + 1] = Cell(text: "", style: style) }
            }
            col += w
            return true
        }
        return col - x
    }

    /// Writes `text` in at most `width` columns: cut with "…" when it is wider. Returns the
    /// number of columns used.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, style: Style = .plain, fitting width: Int) -> Int {
        guard width > 0 else { return 0 }
        if Self.columns(of: text) <= width { return put(text, x: x, y: y, style: style) }
        let used = put(text, x: x, y: y, style: style, maxWidth: width - 1)
        return used + put("…", x: x + used, y: y, style: style)
    }

    /// Fills a row segment with a style (keeps text), e.g. a selection bar.
    public mutating func paint(y: Int, x: Int = 0, width w: Int? = nil, style: Style) {
        guard y >= 0, y < height else { return }
        let end = min(width, x + (w ?? width))
        for col in max(0, x)..<max(max(0, x), end) { cells[y * width + col].style = style }
    }

    /// Fills a rectangle with blanks in a style.
    public mutating func clear(x: Int, y: Int, width w: Int, height h: Int, style: Style = .plain) {
        for row in max(0, y)..<min(height, y + h) {
            for col in max(0, x)..<min(width, x + w) { cells[row * width + col] = Cell(text: " ", style: style) }
        }
    }

    /// A blank box with a frame and its title on the top edge, centred on the grid (the
    /// help and the pairing prompts): where it went, as its top-left corner.
    public mutating func box(width w: Int, height h: Int, title: String) -> (x: Int, y: Int) {
        let x0 = max(0, (width - w) / 2), y0 = max(1, (height - h) / 2)
        clear(x: x0, y: y0, width: w, height: h)
        put("┌" + String(repeating: "─", count: w - 2) + "┐", x: x0, y: y0, style: .accent)
        for y in (y0 + 1)..<(y0 + h - 1) {
            put("│", x: x0, y: y, style: .accent)
            put("│", x: x0 + w - 1, y: y, style: .accent)
        }
        put("└" + String(repeating: "─", count: w - 2) + "┘", x: x0, y: y0 + h - 1, style: .accent)
        put(" \(title) ", x: x0 + 2, y: y0, style: .title)
        return (x0, y0)
    }

    /// The grid as text lines, trailing spaces removed: what tests compare.
    public func lines() -> [String] {
        (0..<height).map { y in
            // Up to the last cell that shows something (a blank, or the right half of a
            // wide character, shows nothing): no trailing spaces to take off one by one.
            let row = cells[(y * width)..<(y * width + width)]
            guard let last = row.lastIndex(where: { !$0.text.isEmpty && $0.text != " " }) else { return "" }
            var s = ""
            s.reserveCapacity(last - row.startIndex + 1)
            for cell in row[...last] { s += cell.text }
            return s
        }
    }

    /// Walks `text` as the terminal will show it: `body` gets each unit (the text of a cell
    /// and its columns) until it returns false. Printable ASCII, most of what screens draw,
    /// goes a byte a cell without the cost of finding grapheme boundaries.
    @inline(__always)
    static func units(of text: String, _ body: (String, Int) -> Bool) {
        let ascii = Self.ascii   // once: a static in the loop is a swift_once call a byte
        let utf8 = text.utf8
        var i = utf8.startIndex
        while i != utf8.endIndex {
            let b = utf8[i]
            let next = utf8.index(after: i)
            // A byte followed by a non-ASCII one may begin a grapheme (e + U+0301), unless
            // what follows stands alone (the space before an RSSI bar).
            if b >= 0x20, b < 0x7F, next == utf8.endIndex || utf8[next] < 0x80
                || Self.standsAlone(text.unicodeScalars[next]) {
                guard body(ascii[Int(b) - 0x20], 1) else { return }
                i = next
                continue
            }
            // A scalar that stands alone whatever comes next (the bars, ▶, ·, … of every row),
            // followed by ASCII or another such: one cell, without the grapheme machinery.
            if b >= 0xC2 {
                let sc = text.unicodeScalars[i], after = text.unicodeScalars.index(after: i)
                if Self.standsAlone(sc), after == utf8.endIndex || utf8[after] < 0x80
                    || Self.standsAlone(text.unicodeScalars[after]) {
                    let w = columns(sc)
                    if w > 0 { guard body(String(sc), w) else { return } }
                    i = after
                    continue
                }
            }
            let end = text.index(after: i)   // the grapheme's end, found once
            let scalars = text.unicodeScalars[i..<end]
            if let sc = scalars.first, scalars.index(after: scalars.startIndex) == end, !TerminalSafe.isUnsafe(sc) {
                let w = columns(sc)
                if w > 0 { guard body(String(text[i..<end]), w) else { return } }
            } else {
                for (shown, w) in displayUnits(Character(String(text[i..<end]))) { guard body(shown, w) else { return } }
            }
            i = end
        }
    }

    /// Latin-1 and Latin Extended letters and signs, punctuation, arrows, mathematical and
    /// technical signs, box drawing, blocks, shapes, symbols and dingbats (U+00A0–U+02FF,
    /// U+2010–U+2027, U+2030–U+205F, U+2070–U+20CF, U+2100–U+2BFF): none joins the scalar
    /// after it into one grapheme (no prepend, no regional indicator, no Hangul jamo) nor
    /// joins the one before (no combining mark, joiner or selector); none is unsafe on a
    /// terminal. Two of them, or one before ASCII, are two graphemes.
    @inline(__always)
    static func standsAlone(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return (0xA0...0x2FF).contains(v) || (0x2010...0x2027).contains(v) || (0x2030...0x205F).contains(v)
            || (0x2070...0x20CF).contains(v) || (0x2100...0x2BFF).contains(v)
    }

    /// What a grapheme looks like on screen, as (text, columns) units, made safe by
    /// `TerminalSafe` (ESC -> ␛, CR LF -> ␍␊, C1 and bidi overrides -> �).
    static func displayUnits(_ ch: Character) -> [(String, Int)] {
        if ch.isASCII, let v = ch.asciiValue, v >= 0x20, v < 0x7F { return [(String(ch), 1)] }
        if !ch.unicodeScalars.contains(where: TerminalSafe.isUnsafe) {
            let w = columns(ch)
            return w == 0 ? [] : [(String(ch), w)]
        }
        return ch.unicodeScalars.compactMap { sc in
            if let r = TerminalSafe.replacement(sc) { return (r, 1) }
            let w = columns(Character(sc))
            return w == 0 ? nil : (String(sc), w)
        }
    }

    /// Terminal columns of a grapheme: 2 for East Asian wide and emoji, 0 for a lone
    /// combining mark, 1 otherwise. Locale-independent, so tests match the terminal.
    public static func columns(_ ch: Character) -> Int {
        ch.unicodeScalars.first.map(columns) ?? 0
    }

    /// Columns of a grapheme that begins with `scalar`.
    static func columns(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x300 { return 1 }
        if (0x300...0x36F).contains(v) || (0x200B...0x200D).contains(v) || v == 0xFE0F { return 0 }
        if (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1F64F).contains(v)
            || (0x1F900...0x1F9FF).contains(v) || (0x20000...0x3FFFD).contains(v)
            || (0x1F680...0x1F6FF).contains(v) || (0x1FA70...0x1FAFF).contains(v) || wideSymbols.contains(v) {
            return 2
        }
        return 1
    }

    /// Symbols below U+3000 that terminals draw as emoji, two columns wide (⌚ ⚡ ⛔ ✅ ❌ ⭐ ...),
    /// as in wcwidth: a device named with one must not shift the rest of its row.
    static let wideSymbols: Set<UInt32> = {
        let ranges: [ClosedRange<UInt32>] = [
            0x231A...0x231B, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3, 0x25FD...0x25FE, 0x2614...0x2615,
            0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693, 0x26A1...0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE,
            0x26C4...0x26C5, 0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA, 0x26F2...0x26F3, 0x26F5...0x26F5,
            0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B, 0x2728...0x2728, 0x274C...0x274C,
            0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797, 0x27B0...0x27B0, 0x27BF...0x27BF,
            0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
        ]
        return Set(ranges.flatMap { Array($0) })
    }()

    /// Columns a string takes once drawn.
    public static func columns(of s: String) -> Int {
        let ascii = s.utf8.withContiguousStorageIfAvailable { $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
        if ascii == true { return s.utf8.count }
        var total = 0
        units(of: s) { total += $1; return true }
        return total
    }

    /// The printable ASCII characters as one-cell strings, from " " (0x20) to "~".
    static let ascii: [String] = (0x20..<0x7F).map { String(UnicodeScalar(UInt8($0))) }
}
