#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Wall-clock time in seconds since the Unix epoch. Every event carries one; the
/// simulated world uses an injected clock, so tests are deterministic.
public struct Timestamp: Hashable, Comparable, Sendable {
    public var seconds: Double
    public init(_ seconds: Double) { self.seconds = seconds }
    public static func < (a: Self, b: Self) -> Bool { a.seconds < b.seconds }
    public static func + (a: Self, d: Double) -> Self { Timestamp(a.seconds + d) }
    public static func - (a: Self, b: Self) -> Double { a.seconds - b.seconds }

    public static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9)
    }

    private func parts() -> (tm: tm, ms: Int) {
        var whole = Int(seconds.rounded(.down))
        var ms = Int(((seconds - Double(whole)) * 1000).rounded())
        if ms == 1000 { whole += 1; ms = 0 }
        var t = time_t(whole)
        var out = tm()
        gmtime_r(&t, &out)
        return (out, ms)
    }

    /// `2026-11-30T20:31:02.123Z`
    public var iso8601: String {
        let (t, ms) = parts()
        return "\(pad(Int(t.tm_year) + 1900, 4))-\(pad(Int(t.tm_mon) + 1))-\(pad(Int(t.tm_mday)))T"
            + "\(pad(Int(t.tm_hour))):\(pad(Int(t.tm_min))):\(pad(Int(t.tm_sec))).\(pad(ms, 3))Z"
    }

    /// `20:31:02.123` (UTC), for history columns.
    public var clockTime: String {
        let (t, ms) = parts()
        return "\(pad(Int(t.tm_hour))):\(pad(Int(t.tm_min))):\(pad(Int(t.tm_sec))).\(pad(ms, 3))"
    }

    /// `20261130-203102`, for default file names.
    public var compact: String {
        let (t, _) = parts()
        return "\(pad(Int(t.tm_year) + 1900, 4))\(pad(Int(t.tm_mon) + 1))\(pad(Int(t.tm_mday)))-"
            + "\(pad(Int(t.tm_hour)))\(pad(Int(t.tm_min)))\(pad(Int(t.tm_sec)))"
    }
}

private func pad(_ v: Int, _ width: Int = 2) -> String {
    let s = String(v)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}

/// Monotonic seconds, for timers and deadlines (never goes back).
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
