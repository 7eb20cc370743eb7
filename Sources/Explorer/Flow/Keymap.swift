/// The screens a key can apply to.
public enum KeyScope: String, CaseIterable, Sendable {
    case scan, details, device, characteristic, regions

    public init(_ route: Route) {
        switch route {
        case .scan: self = .scan
        case .details: self = .details
        case .device: self = .device
        case .characteristic: self = .characteristic
        case .regions: self = .regions
        }
    }
}

/// One key and what it does: where it applies, the action it sends, and its word on each
/// screen's hint line.
public struct KeyBinding: Sendable {
    public let keys: [Key]
    /// nil: on every screen.
    public let scopes: Set<KeyScope>?
    public let replayOnly: Bool
    public let action: Action
    /// Its word on the hint line of these screens ("Enter connect" on the scan list).
    public let hints: [KeyScope: String]

    init(_ keys: [Key], _ action: Action, on scopes: Set<KeyScope>? = nil, replayOnly: Bool = false,
         hints: [KeyScope: String] = [:]) {
        self.keys = keys; self.action = action; self.scopes = scopes; self.replayOnly = replayOnly; self.hints = hints
    }

    func applies(_ key: Key, _ s: AppState) -> Bool {
        keys.contains(key) && (!replayOnly || s.replay != nil) && (scopes?.contains(KeyScope(s.route)) ?? true)
    }
}

/// A row of the help (`?`) and of the README's key table: the keys as people write them,
/// what they do, and the bindings behind them.
public struct KeyRow: Sendable {
    public let label: String
    public let help: String
    public let bindings: [KeyBinding]
}

/// Every key the app knows, in one table: the keymap, the help overlay, the screens' hint
/// lines and the README's key table (checked by a test) all come from `Keymap.rows`.
/// While a prompt is open, or the help is shown, keys mean what `inputAction` and
/// `helpAction` say instead.
public enum Keymap {
    public static let rows: [KeyRow] = [
        KeyRow(label: "↑↓ j k PgUp PgDn g G", help: "move, page, top, bottom", bindings: [
            KeyBinding([.up, .char("k")], .cursorMoved(.up)),
            KeyBinding([.down, .char("j")], .cursorMoved(.down)),
            KeyBinding([.pageUp, .ctrl("b")], .cursorMoved(.pageUp)),
            KeyBinding([.pageDown, .ctrl("f"), .char(" ")], .cursorMoved(.pageDown)),
            KeyBinding([.home, .char("g")], .cursorMoved(.top)),
            KeyBinding([.end, .char("G")], .cursorMoved(.bottom)),
        ]),
        KeyRow(label: "Enter → l", help: "connect / open", bindings: [
            KeyBinding([.enter, .right, .char("l")], .rowActivated,
                       hints: [.scan: "Enter connect", .details: "Enter connect", .device: "Enter open"]),
        ]),
        KeyRow(label: "i", help: "advertisement details (Enter on a beacon too)", bindings: [
            KeyBinding([.char("i")], .detailsRequested, hints: [.scan: "i details"]),
        ]),
        KeyRow(label: "/", help: "filter by name, address, UUID, company", bindings: [
            KeyBinding([.char("/")], .filterStarted, hints: [.scan: "/ filter"]),
        ]),
        KeyRow(label: "o s", help: "sort (RSSI, name, last/first seen); scan on/off", bindings: [
            KeyBinding([.char("o")], .sortCycled, hints: [.scan: "o sort"]),
            KeyBinding([.char("s")], .scanToggled, hints: [.scan: "s scan"]),
        ]),
        KeyRow(label: "c u + -", help: "only connectable, hide unnamed, min RSSI ±5 dB", bindings: [
            KeyBinding([.char("c")], .connectableOnlyToggled),
            KeyBinding([.char("u")], .hideUnnamedToggled),
            KeyBinding([.char("+"), .char("=")], .minRSSIChanged(step: 5)),
            KeyBinding([.char("-")], .minRSSIChanged(step: -5)),
        ]),
        KeyRow(label: "d Tab", help: "disconnect; collapse/expand service", bindings: [
            KeyBinding([.char("d")], .disconnectRequested, hints: [.device: "d disconnect"]),
            KeyBinding([.tab], .collapseToggled, hints: [.device: "Tab fold"]),
        ]),
        KeyRow(label: "r w", help: "read; write hex (01 ff) or \"text\"", bindings: [
            KeyBinding([.char("r")], .readRequested, hints: [.characteristic: "r read"]),
            KeyBinding([.char("w")], .writeStarted, hints: [.characteristic: "w write"]),
        ]),
        KeyRow(label: "n f F", help: "notify on/off; format decoded/hex/text/ints/floats", bindings: [
            KeyBinding([.char("n")], .notifyToggled, hints: [.characteristic: "n notify"]),
            KeyBinding([.char("f")], .formatCycled(forward: true), hints: [.characteristic: "f format"]),
            KeyBinding([.char("F")], .formatCycled(forward: false)),
        ]),
        KeyRow(label: "m", help: "messages: notifications joined up to \"EOM\"", bindings: [
            KeyBinding([.char("m")], .messageViewToggled, hints: [.characteristic: "m messages"]),
        ]),
        KeyRow(label: "a", help: "hook on each value: exec CMD, post URL, off", bindings: [
            KeyBinding([.char("a")], .hookStarted, hints: [.characteristic: "a hook"]),
        ]),
        KeyRow(label: "b", help: "iBeacon regions: inside or out, beacons", bindings: [
            KeyBinding([.char("b")], .regionsRequested),
        ]),
        KeyRow(label: "e t B X", help: "pair; trust, block (on/off); forget (asks y/n)", bindings: [
            KeyBinding([.char("e")], .pairRequested, on: [.scan, .details, .device], hints: [.device: "e pair"]),
            KeyBinding([.char("t")], .trustToggled, on: [.scan, .details, .device]),
            KeyBinding([.char("B")], .blockToggled, on: [.scan, .details, .device]),
            KeyBinding([.char("X")], .forgetRequested, on: [.scan, .details, .device]),
        ]),
        KeyRow(label: "R P", help: "recording on/off; power the adapter on", bindings: [
            KeyBinding([.char("R")], .recordingToggled, hints: [.scan: "R rec"]),
            KeyBinding([.char("P")], .powerOnRequested),
        ]),
        KeyRow(label: "p x [ ] { }", help: "replay: pause, speed 1x/10x/max, seek ∓10 s/1 min", bindings: [
            KeyBinding([.char("p")], .replayControlled(.pauseToggled), replayOnly: true),
            KeyBinding([.char("x")], .replayControlled(.speedCycled), replayOnly: true),
            KeyBinding([.char("[")], .replayControlled(.seek(-10)), replayOnly: true),
            KeyBinding([.char("]")], .replayControlled(.seek(10)), replayOnly: true),
            KeyBinding([.char("{")], .replayControlled(.seek(-60)), replayOnly: true),
            KeyBinding([.char("}")], .replayControlled(.seek(60)), replayOnly: true),
        ]),
        KeyRow(label: "Esc ← h", help: "back (scan list: clear filter)", bindings: [
            KeyBinding([.escape, .left, .char("h"), .backspace], .backRequested,
                       hints: [.details: "Esc back", .device: "Esc back", .characteristic: "Esc back",
                               .regions: "b or Esc back"]),
        ]),
        KeyRow(label: "?", help: "this help", bindings: [
            KeyBinding([.char("?")], .helpToggled, hints: [.scan: "? help", .details: "? help", .device: "? help"]),
        ]),
        KeyRow(label: "q Ctrl-C", help: "quit", bindings: [
            KeyBinding([.char("q"), .ctrl("c")], .quitRequested, hints: [.scan: "q quit"]),
        ]),
    ]

    public static func action(for key: Key, in state: AppState) -> Action? {
        if let p = state.agentPrompt { return agentAction(key, p.request.kind) }
        if state.forgetAsked != nil { return key == .resize ? nil : .forgetAnswered(key == .char("y") || key == .char("Y")) }
        if state.input != nil { return inputAction(key) }
        if state.showHelp { return helpAction(key) }
        for row in rows {
            if let b = row.bindings.first(where: { $0.applies(key, state) }) { return b.action }
        }
        return nil
    }

    /// The hint line of a screen: its bindings' words, in the table's order.
    public static func hints(_ scope: KeyScope) -> String {
        rows.flatMap(\.bindings).compactMap { $0.hints[scope] }.joined(separator: " · ")
    }

    /// (keys, what they do) for the help overlay.
    public static var help: [(String, String)] { rows.map { ($0.label, $0.help) } }

    /// While the help is shown: q quits, any other key closes it.
    static func helpAction(_ key: Key) -> Action? {
        switch key {
        case .char("q"): return .quitRequested
        case .resize: return nil
        default: return .helpToggled
        }
    }

    /// While BlueZ's agent asks: digits for a passkey (Enter sends, Esc refuses), y or n
    /// for a question, Enter or Esc hides a passkey shown.
    static func agentAction(_ key: Key, _ kind: AgentRequestKind) -> Action? {
        switch kind {
        case .passkey, .pinCode:
            switch key {
            case .enter: return .agentPromptAnswered(true)
            case .escape, .ctrl("c"): return .agentPromptAnswered(false)
            case .backspace, .delete: return .agentPromptEdited(.deleteBackward)
            case .ctrl("u"): return .agentPromptEdited(.clear)
            case let .char(c): return .agentPromptEdited(.insert(String(c)))
            default: return nil
            }
        case .confirmation, .authorization, .service:
            switch key {
            case .char("y"), .char("Y"): return .agentPromptAnswered(true)
            case .char("n"), .char("N"), .escape, .ctrl("c"): return .agentPromptAnswered(false)
            default: return nil
            }
        case .displayPasskey, .displayPinCode:
            return key == .enter || key == .escape ? .agentPromptAnswered(true) : nil
        }
    }

    /// While a prompt is open (filter, write, hook): it edits the line.
    static func inputAction(_ key: Key) -> Action? {
        switch key {
        case .enter: return .inputSubmitted
        case .escape, .ctrl("c"): return .inputCancelled
        case .backspace, .delete: return .inputEdited(.deleteBackward)
        case .ctrl("u"): return .inputEdited(.clear)
        case let .char(c): return .inputEdited(.insert(String(c)))
        default: return nil
        }
    }

    /// The README's key table (Markdown), as `Keymap.rows` says it.
    public static var markdownTable: String {
        (["| key | does |", "|---|---|"] + rows.map { "| `\($0.label)` | \($0.help.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")) |" })
            .joined(separator: "\n")
    }
}
