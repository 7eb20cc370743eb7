/// Keys to actions, per screen. Every key the app knows is here, and the help overlay
/// lists `Keymap.help`.
public enum Keymap {
    public static func action(for key: Key, in state: AppState) -> Action? {
        if state.input != nil { return inputAction(key) }
        if state.showHelp {
            switch key {
            case .char("q"): return .quitRequested
            case .resize: return nil
            default: return .helpToggled   // any key closes help
            }
        }
        switch key {
        case .up, .char("k"): return .cursorMoved(.up)
        case .down, .char("j"): return .cursorMoved(.down)
        case .pageUp, .ctrl("b"): return .cursorMoved(.pageUp)
        case .pageDown, .ctrl("f"), .char(" "): return .cursorMoved(.pageDown)
        case .home, .char("g"): return .cursorMoved(.top)
        case .end, .char("G"): return .cursorMoved(.bottom)
        case .enter, .right, .char("l"): return .rowActivated
        case .escape, .left, .char("h"), .backspace: return .backRequested
        case .char("q"), .ctrl("c"): return .quitRequested
        case .char("?"): return .helpToggled
        case .char("i"): return .detailsRequested
        case .char("a"): return .actionStarted
        case .char("b"): return .regionsRequested
        case .char("R"): return .recordingToggled
        case .char("P"): return .powerOnRequested
        case .char("s"): return .scanToggled
        case .char("/"): return .filterStarted
        case .char("o"): return .sortCycled
        case .char("c"): return .connectableOnlyToggled
        case .char("u"): return .hideUnnamedToggled
        case .char("+"), .char("="): return .minRSSIChanged(step: 5)
        case .char("-"): return .minRSSIChanged(step: -5)
        case .char("d"): return .disconnectRequested
        case .char("r"): return .readRequested
        case .char("w"): return .writeStarted
        case .char("n"): return .notifyToggled
        case .char("f"): return .formatCycled(forward: true)
        case .char("m"): return .messageViewToggled
        case .char("F"): return .formatCycled(forward: false)
        case .tab: return .collapseToggled
        case .char("p") where state.replay != nil: return .replayControlled(.pauseToggled)
        case .char("x") where state.replay != nil: return .replayControlled(.speedCycled)
        case .char("[") where state.replay != nil: return .replayControlled(.seek(-10))
        case .char("]") where state.replay != nil: return .replayControlled(.seek(10))
        case .char("{") where state.replay != nil: return .replayControlled(.seek(-60))
        case .char("}") where state.replay != nil: return .replayControlled(.seek(60))
        default: return nil
        }
    }

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

    /// (keys, what they do, where) for the help overlay.
    public static let help: [(String, String)] = [
        ("↑↓ j k PgUp PgDn g G", "move, page, top, bottom"),
        ("Enter → l", "connect / open"),
        ("Esc ← h", "back (scan list: clear filter)"),
        ("i", "advertisement details (Enter on a beacon too)"),
        ("/", "filter by name, address, UUID, company"),
        ("o s", "sort (RSSI, name, last/first seen); scan on/off"),
        ("c u + -", "only connectable, hide unnamed, min RSSI ±5 dB"),
        ("d Tab", "disconnect; collapse/expand service"),
        ("r w", "read; write hex (01 ff) or \"text\""),
        ("n", "notifications/indications on/off"),
        ("f F", "value format: decoded, hex, text, ints, floats"),
        ("m", "messages: notifications joined up to \"EOM\""),
        ("a", "action on each value: exec CMD, post URL, off"),
        ("b", "iBeacon regions: inside or out, beacons"),
        ("R P", "recording on/off; power the adapter on"),
        ("p x [ ] { }", "replay: pause, speed 1x/10x/max, seek ∓10 s/1 min"),
        ("?", "this help"),
        ("q Ctrl-C", "quit"),
    ]
}
