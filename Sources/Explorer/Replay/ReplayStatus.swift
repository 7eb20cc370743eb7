public enum ReplaySpeed: Equatable, Sendable, CustomStringConvertible {
    case one, ten, max

    public var next: ReplaySpeed {
        switch self {
        case .one: return .ten
        case .ten: return .max
        case .max: return .one
        }
    }

    /// Recording seconds per wall-clock second (nil: as fast as possible).
    public var factor: Double? {
        switch self {
        case .one: return 1
        case .ten: return 10
        case .max: return nil
        }
    }

    public var description: String {
        switch self {
        case .one: return "1x"
        case .ten: return "10x"
        case .max: return "max"
        }
    }

    public init?(_ text: String) {
        switch text {
        case "1", "1x": self = .one
        case "10", "10x": self = .ten
        case "max": self = .max
        default: return nil
        }
    }
}

/// What the user asks of a replay (keys p, x, [ and ]).
public enum ReplayControl: Equatable, Sendable {
    case pauseToggled
    case speedCycled
    /// Seconds of recording time, forward or (negative) back.
    case seek(Double)
}

/// Where a replay is, for the status bar.
public struct ReplayStatus: Equatable, Sendable {
    public var start: Timestamp
    public var end: Timestamp
    public var position: Timestamp
    public var speed: ReplaySpeed
    public var paused: Bool
    public var finished: Bool
    /// Lines of the file that could not be read as events.
    public var skipped: Int

    public init(start: Timestamp, end: Timestamp, position: Timestamp, speed: ReplaySpeed, paused: Bool,
                finished: Bool, skipped: Int) {
        self.start = start; self.end = end; self.position = position; self.speed = speed
        self.paused = paused; self.finished = finished; self.skipped = skipped
    }

    /// `replay ▶ 10x 0:12/1:03`, `replay ❚❚ 1x 0:12/1:03 paused`, `replay ■ 1x 1:03/1:03 end`
    public var summary: String {
        let state = finished ? "■" : paused ? "❚❚" : "▶"
        let word = finished ? " end" : paused ? " paused" : ""
        let skippedText = skipped > 0 ? " (\(skipped) bad line\(skipped == 1 ? "" : "s") skipped)" : ""
        return "replay \(state) \(speed) \(clock(position - start))/\(clock(end - start))\(word)" + skippedText
    }

    func clock(_ seconds: Double) -> String {
        let s = Swift.max(0, Int(seconds))
        let ss = s % 60
        return s >= 3600 ? "\(s / 3600):\(pad2((s / 60) % 60)):\(pad2(ss))" : "\(s / 60):\(pad2(ss))"
    }

    private func pad2(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}

extension AppState {
    /// Before a replay plays again from its start: forget everything the recording told,
    /// keep what the user chose (filters, sort, formats, recording).
    mutating func forgetRecordedWorld(now: Timestamp) {
        self.now = now
        adapter = AdapterStatus(name: adapter.name, power: .absent, discovering: false)
        peripherals = [:]
        route = .scan
        scan.cursor = nil
        device = DeviceScreenState()
        historyOffset = 0
        pendingConnection = nil
        links = Links()
        linkLoss = [:]
        values = [:]
        subscriptions = []
        descriptorValues = [:]
        for (k, a) in streams { streams[k] = StreamAssembly(marker: streamMarker, framing: a.framing) }
        input = nil
        alert = nil
        lastError = nil
        scanStartedAt = nil
        regionWatch = RegionWatch(regions: regionWatch.regions.map(\.region), config: regionWatch.config)
    }
}
