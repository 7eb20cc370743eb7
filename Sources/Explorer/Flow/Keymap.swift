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
    /// On a characteristic's screen, offered only when it has one of these properties
    /// (empty: always); the reducer says why when the key is pressed anyway.
    public let needs: CharacteristicProperties
    /// Its words in a replay, where they differ (nil: as live). What the past refuses
    /// (scan, connect, read, write, notify) has none.
    public let replayHints: [KeyScope: String]?

    init(_ keys: [Key], _ action: Action, on scopes: Set<KeyScope>? = nil, replayOnly: Bool = false,
         needs: CharacteristicProperties = [], hints: [KeyScope: String] = [:], replayHints: [KeyScope: String]? = nil) {
        self.keys = keys; self.action = action; self.scopes = scopes; self.replayOnly = replayOnly
        self.needs = needs; self.hints = hints; self.replayHints = replayHints
    }

    /// Its word on the hint line of this screen in this state, if the line offers it.
    func hint(_ scope: KeyScope, _ s: AppState) -> String? {
        if replayOnly && s.replay == nil { return nil }
        // A screen kept after a link loss: Enter connects again.
        if action == .rowActivated, s.replay == nil, scope == .device || scope == .characteristic,
           let id = s.route.peripheral, let p = s.peripherals[id], Reducer.linkDown(p) { return "Enter reconnect" }
        if !needs.isEmpty {
            // On the tree, only on a characteristic row that allows it.
            let target = scope == .device ? Reducer.targetCharacteristic(s) : Reducer.openCharacteristic(s)
            if let (_, c) = target, c.properties.intersection(needs).isEmpty { return nil }
            if target == nil, scope == .device { return nil }
        }
        // D only where there is a descriptor to read besides the CCCD (notify's).
        if action == .descriptorCycled,
           !(Reducer.openCharacteristic(s)?.1.descriptors.contains { !$0.isClientConfiguration } ?? false) { return nil }
        if action == .readAllRequested, let id = s.route.peripheral,
           !(s.peripherals[id]?.services ?? []).contains(where: { $0.characteristics.contains { $0.properties.contains(.read) } }) {
            return nil
        }
        return (s.replay == nil ? hints : replayHints ?? hints)[scope]
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
                       hints: [.scan: "Enter connect", .details: "Enter connect", .device: "Enter open"],
                       replayHints: [.scan: "Enter open", .device: "Enter open"]),
        ]),
        KeyRow(label: "i", help: "advertisement details (Enter on a beacon too)", bindings: [
            KeyBinding([.char("i")], .detailsRequested, hints: [.scan: "i details"], replayHints: [:]),
        ]),
        KeyRow(label: "/", help: "filter by name, address, UUID, company", bindings: [
            KeyBinding([.char("/")], .filterStarted, hints: [.scan: "/ filter"]),
        ]),
        KeyRow(label: "o s", help: "sort (RSSI, name, seen, interval); scan on/off", bindings: [
            KeyBinding([.char("o")], .sortCycled, hints: [.scan: "o sort"]),
            KeyBinding([.char("s")], .scanToggled, hints: [.scan: "s scan"], replayHints: [:]),
        ]),
        KeyRow(label: "c u + -", help: "only connectable, hide unnamed, min RSSI ±5 dB", bindings: [
            KeyBinding([.char("c")], .connectableOnlyToggled),
            KeyBinding([.char("u")], .hideUnnamedToggled),
            KeyBinding([.char("+"), .char("=")], .minRSSIChanged(step: 5)),
            KeyBinding([.char("-")], .minRSSIChanged(step: -5)),
        ]),
        KeyRow(label: "d Tab 1-9", help: "disconnect; fold service; go to link N (top bar)", bindings: [
            KeyBinding([.char("d")], .disconnectRequested, hints: [.device: "d disconnect"], replayHints: [:]),
            KeyBinding([.tab], .collapseToggled, hints: [.device: "Tab fold"]),
        ] + (1...9).map { n in KeyBinding([.char(Character(String(n)))], .linkSelected(n)) }),
        KeyRow(label: "r w W A D", help: "read; write, W its type; A read all; D descriptor", bindings: [
            KeyBinding([.char("r")], .readRequested, needs: .read, hints: [.device: "r read", .characteristic: "r read"],
                       replayHints: [:]),
            KeyBinding([.char("w")], .writeStarted, needs: [.write, .writeWithoutResponse], hints: [.characteristic: "w write"],
                       replayHints: [:]),
            KeyBinding([.char("A")], .readAllRequested, on: [.device], hints: [.device: "A read all"], replayHints: [:]),
            KeyBinding([.char("W")], .writeTypeCycled, on: [.characteristic], needs: [.write, .writeWithoutResponse, .reliableWrite],
                       hints: [.characteristic: "W type"], replayHints: [:]),
            KeyBinding([.char("D")], .descriptorCycled, on: [.characteristic], hints: [.characteristic: "D descriptor"],
                       replayHints: [:]),
        ]),
        KeyRow(label: "n f F", help: "notify on/off; format decoded/hex/text/ints/floats", bindings: [
            KeyBinding([.char("n")], .notifyToggled, needs: [.notify, .indicate], hints: [.device: "n notify", .characteristic: "n notify"],
                       replayHints: [:]),
            KeyBinding([.char("f")], .formatCycled(forward: true), hints: [.characteristic: "f format"]),
            KeyBinding([.char("F")], .formatCycled(forward: false)),
        ]),
        KeyRow(label: "m", help: "messages: notifications joined up to \"EOM\"", bindings: [
            KeyBinding([.char("m")], .messageViewToggled, needs: [.notify, .indicate], hints: [.characteristic: "m messages"]),
        ]),
        KeyRow(label: "a", help: "hook on each value: exec CMD, post URL, off", bindings: [
            KeyBinding([.char("a")], .hookStarted, needs: [.notify, .indicate], hints: [.characteristic: "a hook"]),
        ]),
        KeyRow(label: "b L N", help: "iBeacon regions; event log; name a device or UUID", bindings: [
            KeyBinding([.char("b")], .regionsRequested),
            KeyBinding([.char("L")], .logToggled),
            KeyBinding([.char("N")], .nameStarted, on: [.scan, .details, .device, .characteristic]),
        ]),
        KeyRow(label: "e t B X C", help: "pair; trust, block; forget, clear cache (ask y/n)", bindings: [
            KeyBinding([.char("e")], .pairRequested, on: [.scan, .details, .device], hints: [.device: "e pair"], replayHints: [:]),
            KeyBinding([.char("t")], .trustToggled, on: [.scan, .details, .device]),
            KeyBinding([.char("B")], .blockToggled, on: [.scan, .details, .device]),
            KeyBinding([.char("X")], .forgetRequested, on: [.scan, .details, .device]),
            KeyBinding([.char("C")], .cacheClearRequested, on: [.scan, .details, .device]),
        ]),
        KeyRow(label: "R P", help: "recording on/off; power the adapter on", bindings: [
            KeyBinding([.char("R")], .recordingToggled, hints: [.scan: "R rec"], replayHints: [:]),
            KeyBinding([.char("P")], .powerOnRequested),
        ]),
        KeyRow(label: "p x [ ] { }", help: "replay: pause, speed 1x/10x/max, seek ∓10 s/1 min", bindings: [
            KeyBinding([.char("p")], .replayControlled(.pauseToggled), replayOnly: true, hints: Self.everywhere("p pause")),
            KeyBinding([.char("x")], .replayControlled(.speedCycled), replayOnly: true, hints: Self.everywhere("x speed")),
            KeyBinding([.char("[")], .replayControlled(.seek(-10)), replayOnly: true, hints: Self.everywhere("[ ] seek")),
            KeyBinding([.char("]")], .replayControlled(.seek(10)), replayOnly: true),
            KeyBinding([.char("{")], .replayControlled(.seek(-60)), replayOnly: true),
            KeyBinding([.char("}")], .replayControlled(.seek(60)), replayOnly: true),
        ]),
        KeyRow(label: "Esc ← h", help: "back (scan list: clear filter)", bindings: [
            KeyBinding([.escape, .left, .char("h"), .backspace], .backRequested,
                       hints: [.details: "Esc back", .device: "Esc back", .characteristic: "Esc back",
                               .regions: "b or Esc back"]),
        ]),
        KeyRow(label: "? q Ctrl-C Ctrl-L", help: "help; quit (in a prompt Ctrl-C cancels it); repaint", bindings: [
            KeyBinding([.char("?")], .helpToggled, hints: [.scan: "? help", .details: "? help", .device: "? help"]),
            KeyBinding([.char("q"), .ctrl("c")], .quitRequested, hints: [.scan: "q quit"]),
            KeyBinding([.ctrl("l")], .repaintRequested),
        ]),
    ]

    public static func action(for key: Key, in state: AppState) -> Action? {
        if let p = state.agentPrompt { return agentAction(key, p.request.kind) }
        if state.forgetAsked != nil { return key == .resize ? nil : .forgetAnswered(key == .char("y") || key == .char("Y")) }
        if state.input != nil { return inputAction(key) }
        if state.showHelp { return helpAction(key) }
        if state.log.shown { return logAction(key) }
        for row in rows {
            if let b = row.bindings.first(where: { $0.applies(key, state) }) { return b.action }
        }
        return nil
    }

    /// The hint line of a screen: its bindings' words, in the table's order.
    public static func hints(_ scope: KeyScope) -> String {
        rows.flatMap(\.bindings).filter { !$0.replayOnly }.compactMap { $0.hints[scope] }.joined(separator: " · ")
    }

    /// The hint line as the state has it: only what applies (a characteristic that cannot
    /// be read offers no `r`; a replay offers its own keys, not scanning or connecting).
    public static func hints(for s: AppState) -> String {
        let scope = KeyScope(s.route)
        // Every frame draws this line: the bindings are read in place, not copied into one
        // array first (5 % of a scan list frame, callgrind).
        var hints: [String] = []
        for row in rows { for binding in row.bindings { if let h = binding.hint(scope, s) { hints.append(h) } } }
        return hints.joined(separator: " · ")
    }

    /// The same word on the scan list, details, device and characteristic screens.
    static func everywhere(_ word: String) -> [KeyScope: String] {
        [.scan: word, .details: word, .device: word, .characteristic: word]
    }

    /// (keys, what they do) for the help overlay.
    public static var help: [(String, String)] { rows.map { ($0.label, $0.help) } + [promptRow] }

    /// While the help is shown: q quits, the moving keys scroll it, any other key closes it.
    static func helpAction(_ key: Key) -> Action? {
        switch key {
        case .char("q"), .ctrl("c"): return .quitRequested
        case .ctrl("l"): return .repaintRequested
        case .resize: return nil
        default: return scrolled(key).map { .helpScrolled(by: $0) } ?? .helpToggled
        }
    }

    /// How far a moving key scrolls a panel (the help, the event log): a line, a page, or
    /// to either end (the reducer stops at the ends).
    static func scrolled(_ key: Key) -> Int? {
        switch key {
        case .up, .char("k"): return -1
        case .down, .char("j"): return 1
        case .pageUp, .ctrl("b"): return -Reducer.pageSize
        case .pageDown, .ctrl("f"), .char(" "): return Reducer.pageSize
        case .home, .char("g"): return -1_000_000
        case .end, .char("G"): return 1_000_000
        default: return nil
        }
    }

    /// While the event log is shown: the moving keys scroll it, e shows only problems,
    /// L or Esc closes it, q quits.
    static func logAction(_ key: Key) -> Action? {
        switch key {
        case .char("q"), .ctrl("c"): return .quitRequested
        case .ctrl("l"): return .repaintRequested
        case .char("L"), .escape, .left, .char("h"), .backspace: return .logToggled
        case .char("e"): return .logProblemsOnlyToggled
        default: return scrolled(key).map { .logScrolled(by: $0) }
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

    /// While a prompt is open (filter, write, hook): it edits the line, with readline's
    /// keys; ↑ ↓ go through the values written before (the write line's history).
    static func inputAction(_ key: Key) -> Action? {
        switch key {
        case .enter: return .inputSubmitted
        case .escape, .ctrl("c"): return .inputCancelled
        case .backspace, .ctrl("h"): return .inputEdited(.deleteBackward)
        case .delete, .ctrl("d"): return .inputEdited(.deleteForward)
        case .ctrl("w"): return .inputEdited(.deleteWordBackward)
        case .ctrl("u"): return .inputEdited(.deleteToStart)
        case .ctrl("k"): return .inputEdited(.deleteToEnd)
        case .left, .ctrl("b"): return .inputEdited(.left)
        case .right, .ctrl("f"): return .inputEdited(.right)
        case .home, .ctrl("a"): return .inputEdited(.home)
        case .end, .ctrl("e"): return .inputEdited(.end)
        case .up, .ctrl("p"): return .inputEdited(.recall(older: true))
        case .down, .ctrl("n"): return .inputEdited(.recall(older: false))
        case .ctrl("l"): return .repaintRequested
        case let .char(c): return .inputEdited(.insert(String(c)))
        default: return nil
        }
    }

    /// The prompts' keys (`inputAction`), a row of the help and the README's key table.
    public static let promptRow = (label: "← → ^A ^E ^W ^U ↑↓",
                                   help: "in a prompt: move, Home/End, cut word/line, history")

    /// The README's key table (Markdown), as `Keymap.rows` says it.
    public static var markdownTable: String {
        (["| key | does |", "|---|---|"] + help.map { "| `\($0.0)` | \($0.1.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")) |" })
            .joined(separator: "\n")
    }
}
