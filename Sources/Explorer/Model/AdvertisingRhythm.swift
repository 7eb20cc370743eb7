/// How a device advertises, from the reports the stack hands over: how many, and how far
/// apart the recent ones came (their median and spread). BlueZ reports a device when
/// something it sends changes (RSSI above all), so this is the rhythm of its reports, which
/// for a device in range is close to its advertising interval.
///
/// Kept in the peripheral itself, in a fixed ring of the last 16 intervals: a report writes
/// one number and allocates nothing (a thousand devices reporting tens of times a second
/// are the signal storm's load); the median is worked out when shown.
public struct AdvertisingRhythm: Sendable {
    public static let window = 16
    /// Reports heard, the first one included.
    public private(set) var reports = 0
    private var ring = InlineArray<16, Float>(repeating: 0)
    private var next = 0
    private var filled = 0

    public init() {}

    /// A report, `interval` seconds after the one before (nil for the first).
    mutating func heard(after interval: Double?) {
        reports += 1
        guard let interval, interval > 0 else { return }
        ring[next] = Float(interval)
        next = (next + 1) % Self.window
        filled = min(filled + 1, Self.window)
    }

    /// The recent intervals in seconds, oldest first.
    public var intervals: [Double] {
        let start = filled < Self.window ? 0 : next
        return (0..<filled).map { Double(ring[(start + $0) % Self.window]) }
    }

    /// The median of the recent intervals, seconds; nil before the second report.
    public var interval: Double? { Self.median(intervals) }

    /// Their spread: the median distance from that median, seconds (robust against the
    /// odd report lost to a busy radio).
    public var jitter: Double? {
        guard let m = interval else { return nil }
        return Self.median(intervals.map { abs($0 - m) })
    }

    /// Reports a second at that interval.
    public var perSecond: Double? { interval.flatMap { $0 > 0 ? 1 / $0 : nil } }

    static func median(_ v: [Double]) -> Double? {
        guard !v.isEmpty else { return nil }
        let s = v.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

extension AdvertisingRhythm: Equatable {
    public static func == (a: Self, b: Self) -> Bool { a.reports == b.reports && a.intervals == b.intervals }
}
