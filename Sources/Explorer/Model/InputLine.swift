/// What a key does to a prompt's line: readline's editing keys, and ↑ ↓ through the
/// values written before (the write line's history).
public enum LineEdit: Equatable, Sendable {
    case insert(String)
    /// Backspace; Delete (and Ctrl-D) the character under the cursor.
    case deleteBackward, deleteForward
    /// Ctrl-W: the word before the cursor (and the spaces after it).
    case deleteWordBackward
    /// Ctrl-U, Ctrl-K: to the start, to the end of the line.
    case deleteToStart, deleteToEnd
    case clear
    /// ← → Home End (Ctrl-B Ctrl-F Ctrl-A Ctrl-E).
    case left, right, home, end
    /// ↑ (older) and ↓ (newer) through `InputLine.history`; below the newest, the line being typed.
    case recall(older: Bool)
}

/// The one-line editor at the bottom of the screen: the text, the cursor in it, and the
/// earlier values ↑ and ↓ bring back.
public struct InputLine: Equatable, Sendable {
    public enum Purpose: Equatable, Sendable {
        case filter
        case write(PeripheralID, CharacteristicID)
        /// `w` with a descriptor selected (`D`): its new value.
        case writeDescriptor(PeripheralID, AttributeID)
        /// `a`: "exec CMD" or "post URL" to run on each notification; empty or "off" detaches.
        case hook(PeripheralID, CharacteristicID)
        /// `N`: a device's alias, a UUID's name (`NamingReducer`).
        case alias(PeripheralID)
        case uuidName(BLEUUID)
    }
    /// Characters a line holds at most.
    public static let limit = 512

    public var purpose: Purpose
    public var text: String { didSet { cursor = min(cursor, text.count) } }
    /// Characters before the cursor (0...text.count).
    public private(set) var cursor: Int
    /// Earlier values, oldest first.
    public var history: [String]
    /// The entry of `history` shown (nil: the line being typed), and that line meanwhile.
    public private(set) var recalled: Int?
    private var draft = ""

    public init(purpose: Purpose, text: String = "", history: [String] = []) {
        self.purpose = purpose; self.text = text; self.cursor = text.count; self.history = history
    }

    public mutating func apply(_ edit: LineEdit) {
        var chars = Array(text)
        switch edit {
        case let .insert(t):
            let room = Self.limit - chars.count
            guard room > 0 else { return }
            let piece = Array(t.filter { !$0.unicodeScalars.contains(where: TerminalSafe.isUnsafe) }.prefix(room))
            chars.insert(contentsOf: piece, at: cursor)
            set(chars, cursor: cursor + piece.count)
        case .deleteBackward:
            guard cursor > 0 else { return }
            chars.remove(at: cursor - 1)
            set(chars, cursor: cursor - 1)
        case .deleteForward:
            guard cursor < chars.count else { return }
            chars.remove(at: cursor)
            set(chars, cursor: cursor)
        case .deleteWordBackward:
            var start = cursor
            while start > 0, chars[start - 1] == " " { start -= 1 }
            while start > 0, chars[start - 1] != " " { start -= 1 }
            chars.removeSubrange(start..<cursor)
            set(chars, cursor: start)
        case .deleteToStart:
            chars.removeSubrange(0..<cursor)
            set(chars, cursor: 0)
        case .deleteToEnd:
            chars.removeSubrange(cursor...)
            set(chars, cursor: cursor)
        case .clear:
            set([], cursor: 0)
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(chars.count, cursor + 1)
        case .home: cursor = 0
        case .end: cursor = chars.count
        case let .recall(older):
            recall(older: older)
        }
    }

    /// An edit makes the line the user's own: ↓ past the newest value no longer brings the
    /// line typed before ↑ back.
    private mutating func set(_ chars: [Character], cursor: Int) {
        text = String(chars)
        self.cursor = cursor
        recalled = nil
    }

    private mutating func recall(older: Bool) {
        guard !history.isEmpty else { return }
        let next: Int?
        switch (recalled, older) {
        case (nil, true): draft = text; next = history.count - 1
        case (nil, false): return
        case let (i?, true): next = max(0, i - 1)
        case let (i?, false): next = i + 1 < history.count ? i + 1 : nil
        }
        text = next.map { history[$0] } ?? draft
        cursor = text.count
        recalled = next
    }
}
