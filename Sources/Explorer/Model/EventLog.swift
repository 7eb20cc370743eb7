/// What happened, with its time, for the log panel (`L`): connections, GATT operations
/// and their results, hooks, regions, the adapter and bluetoothd. The message line shows
/// each for a moment; the log keeps them (a bounded ring) across screens.
public struct EventLog: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public var at: Timestamp
        public var text: String
        public var problem: Bool
    }

    public static let capacity = 2000
    /// Oldest first.
    public private(set) var entries: [Entry] = []
    /// Every entry ever logged (those dropped from the front included).
    public private(set) var total = 0
    /// The panel: shown, its first line (0: the newest), only problems.
    public var shown = false
    public var top = 0
    public var problemsOnly = false

    public init() {}

    /// Entries the panel shows at once on a terminal `height` rows high.
    public static func visibleRows(height: Int) -> Int { max(1, height - 6) }

    public mutating func append(_ text: String, problem: Bool = false, at: Timestamp) {
        if entries.count == Self.capacity { entries.removeFirst(Self.capacity / 4) }
        entries.append(Entry(at: at, text: TerminalSafe.text(text), problem: problem))
        total += 1
    }

    /// Newest first, as the panel lists them.
    public var listed: [Entry] { problemsOnly ? entries.reversed().filter(\.problem) : Array(entries.reversed()) }

    /// What the log needs from the state before an action, to tell what the action changed.
    struct Mark {
        let alert: Alert?
        let adapter: AdapterStatus
        let lastTransition: RegionTransition?
        /// Three fields, not the state: passing the whole state copied it on every action.
        init(alert: Alert?, adapter: AdapterStatus, lastTransition: RegionTransition?) {
            self.alert = alert
            self.adapter = adapter
            self.lastTransition = lastTransition
        }
    }

    /// The entries an action made: every new message (the reducer says what happened to
    /// the user there: connections, writes, subscriptions, hooks, pairing, errors), plus
    /// what has no message of its own: values read, region changes, the adapter.
    static func note(_ action: Action, since m: Mark, in s: inout AppState) {
        let now = s.now
        if case let .backend(.readCompleted(cid, .success(bytes)), at) = action {
            s.log.append("Read \(bytes.count) byte\(bytes.count == 1 ? "" : "s") from \(BackendReducer.label(s, cid)): \(hex(bytes))", at: at)
        }
        if let a = s.alert, a != m.alert {
            s.log.append(a.message, problem: a.level != .info, at: a.at)
        }
        if s.adapter.power != m.adapter.power || s.adapter.name != m.adapter.name {
            let name = s.adapter.name.isEmpty ? "adapter" : "adapter \(s.adapter.name)"
            switch s.adapter.power {
            case .absent: s.log.append("No adapter (bluetoothd gone, or no controller)", problem: true, at: now)
            case .poweredOff: s.log.append("\(name) powered off", problem: true, at: now)
            case .on: s.log.append("\(name) on", at: now)
            }
        }
        if s.adapter.discovering != m.adapter.discovering {
            s.log.append(s.adapter.discovering ? "Scanning" : "Scan stopped", at: now)
        }
        let transitions = s.regionWatch.log
        if transitions.last != m.lastTransition {
            let start = m.lastTransition.flatMap { last in transitions.lastIndex(of: last).map { $0 + 1 } } ?? 0
            for t in transitions[start...] {
                let by = t.beacon.map { " (\($0.address) \($0.major)/\($0.minor)" + ($0.rssi.map { " \($0) dBm" } ?? "") + ")" } ?? ""
                s.log.append("Region \(t.region): \(t.kind == .enter ? "entered" : "left")\(by)", at: t.at)
            }
        }
    }
}
