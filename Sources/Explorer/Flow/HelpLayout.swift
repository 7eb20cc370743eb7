/// Where the help (`?`) goes on a screen of a given size: its box, its lines (each key's
/// text wrapped to the box rather than cut) and how far it can scroll. One layout for the
/// reducer, which keeps the scroll in range, and for the overlay that draws it.
public struct HelpLayout: Equatable, Sendable {
    /// One line of the box: the keys (on the first line of their row only) and text.
    public struct Line: Equatable, Sendable {
        public var keys: String
        public var text: String
    }

    public let boxWidth: Int, boxHeight: Int, keyWidth: Int
    public let lines: [Line]
    /// Lines shown at a time, and the last first line there is.
    public let visible: Int, maxTop: Int

    public init(width: Int, height: Int) {
        let rows = Keymap.help
        keyWidth = rows.map { $0.0.count }.max() ?? 0
        let textWidth = rows.map { $0.1.count }.max() ?? 0
        boxWidth = max(0, min(width - 2, keyWidth + textWidth + 7))
        let room = max(8, boxWidth - keyWidth - 6)
        lines = rows.flatMap { row in
            Self.wrap(row.1, room).enumerated().map { Line(keys: $0.offset == 0 ? row.0 : "", text: $0.element) }
        }
        boxHeight = max(4, min(height - 2, lines.count + 4))
        visible = boxHeight - 4
        maxTop = max(0, lines.count - visible)
    }

    /// Words onto lines of at most `width` characters (a longer word is cut).
    static func wrap(_ text: String, _ width: Int) -> [String] {
        var out: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty { line = String(word.prefix(width)) } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                out.append(line)
                line = String(word.prefix(width))
            }
        }
        return out + [line]
    }
}
