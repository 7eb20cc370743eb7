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

    /// The UTC calendar fields and the milliseconds. Worked out here rather than with
    /// gmtime_r, which went through the time zone code: 300 of a recorded line's
    /// instructions (callgrind, 2026-12-06). Days to a date by the proleptic Gregorian
    /// calendar, in 400-year eras of 146,097 days (as H. Hinnant's `civil_from_days`).
    private func parts() -> (tm: tm, ms: Int) {
        let (whole, ms) = wholeSecondsAndMilliseconds()
        let (days, secondOfDay) = Self.floorDivide(whole, 86_400)
        let z = days + 719_468                        // days since 0000-03-01
        let (era, dayOfEra) = Self.floorDivide(z, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)   // from March 1
        let m = (5 * dayOfYear + 2) / 153                                                // 0 is March
        let month = m < 10 ? m + 3 : m - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var out = tm()
        out.tm_year = Int32(truncatingIfNeeded: year - 1900)
        out.tm_mon = Int32(month - 1)
        out.tm_mday = Int32(dayOfYear - (153 * m + 2) / 5 + 1)
        out.tm_hour = Int32(secondOfDay / 3600)
        out.tm_min = Int32(secondOfDay / 60 % 60)
        out.tm_sec = Int32(secondOfDay % 60)
        return (out, ms)
    }

    /// The whole seconds and the milliseconds, rounded (.9996 is the next second).
    fileprivate func wholeSecondsAndMilliseconds() -> (Int, Int) {
        let whole = Int(seconds.rounded(.down))
        let ms = Int(((seconds - Double(whole)) * 1000).rounded())
        return ms == 1000 ? (whole + 1, 0) : (whole, ms)
    }

    /// Quotient rounded down, and a remainder that is never negative.
    private static func floorDivide(_ a: Int, _ b: Int) -> (Int, Int) {
        let r = a % b
        return r < 0 ? (a / b - 1, r + b) : (a / b, r)
    }

    /// `2026-11-30T20:31:02.123Z`
    public var iso8601: String {
        // Bytes, then one String: every printed and recorded line has a timestamp, and
        // interpolating padded pieces was 12 % of a recorded notification (perf).
        var b = Bytes()
        b.reserveCapacity(24)
        appendISO8601(to: &b)
        return String(decoding: b, as: UTF8.self)
    }

    /// `iso8601`'s characters, added to `b` (a recorded line's bytes: no String between).
    public func appendISO8601(to b: inout Bytes) {
        let (t, ms) = parts()
        let year = Int(t.tm_year) + 1900
        guard (0...9999).contains(year) else { return appendWideISO8601(to: &b, t, ms) }
        // The 24 characters in place, then one append: digit by digit through Array.append
        // was 1,700 instructions a recorded line (callgrind, 2026-12-06); this is about 500.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { p in
            let d = p.baseAddress!
            Self.put(d, year, 4); d[4] = 0x2D                       // -
            Self.put(d + 5, Int(t.tm_mon) + 1, 2); d[7] = 0x2D
            Self.put(d + 8, Int(t.tm_mday), 2); d[10] = 0x54        // T
            Self.put(d + 11, Int(t.tm_hour), 2); d[13] = 0x3A       // :
            Self.put(d + 14, Int(t.tm_min), 2); d[16] = 0x3A
            Self.put(d + 17, Int(t.tm_sec), 2); d[19] = 0x2E        // .
            Self.put(d + 20, ms, 3); d[23] = 0x5A                   // Z
            b.append(contentsOf: UnsafeBufferPointer(p))
        }
    }

    /// `v` (0 ..< 10^width) as `width` decimal digits at `d`.
    @inline(__always) private static func put(_ d: UnsafeMutablePointer<UInt8>, _ v: Int, _ width: Int) {
        var v = v
        var i = width
        while i > 0 {
            i &-= 1
            d[i] = 0x30 &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        }
    }

    /// A year past 9999 (or before 0), whole.
    private func appendWideISO8601(to b: inout Bytes, _ t: tm, _ ms: Int) {
        b.appendDecimal(Int(t.tm_year) + 1900, width: 4); b.append(0x2D)   // -
        b.appendDecimal(Int(t.tm_mon) + 1, width: 2); b.append(0x2D)
        b.appendDecimal(Int(t.tm_mday), width: 2); b.append(0x54)          // T
        Self.appendClock(&b, t, ms)
        b.append(0x5A)                                                     // Z
    }

    /// `20:31:02.123` (UTC), for history columns.
    public var clockTime: String {
        let (t, ms) = parts()
        var b = Bytes()
        b.reserveCapacity(12)
        Self.appendClock(&b, t, ms)
        return String(decoding: b, as: UTF8.self)
    }

    private static func appendClock(_ b: inout Bytes, _ t: tm, _ ms: Int) {
        b.appendDecimal(Int(t.tm_hour), width: 2); b.append(0x3A)          // :
        b.appendDecimal(Int(t.tm_min), width: 2); b.append(0x3A)
        b.appendDecimal(Int(t.tm_sec), width: 2); b.append(0x2E)           // .
        b.appendDecimal(ms, width: 3)
    }

    /// `20261130-203102`, for default file names.
    public var compact: String {
        let (t, _) = parts()
        var b = Bytes()
        b.reserveCapacity(15)
        b.appendDecimal(Int(t.tm_year) + 1900, width: 4)
        b.appendDecimal(Int(t.tm_mon) + 1, width: 2)
        b.appendDecimal(Int(t.tm_mday), width: 2); b.append(0x2D)          // -
        b.appendDecimal(Int(t.tm_hour), width: 2)
        b.appendDecimal(Int(t.tm_min), width: 2)
        b.appendDecimal(Int(t.tm_sec), width: 2)
        return String(decoding: b, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// `v` in decimal ASCII, zero-padded to `width` digits (a wider or negative value whole).
    mutating func appendDecimal(_ v: Int, width: Int) {
        var digits = width, limit = 1
        while digits > 0 { limit *= 10; digits -= 1 }
        guard v >= 0, v < limit else { append(contentsOf: String(v).utf8); return }
        var unit = limit / 10
        while unit > 0 {
            append(0x30 + UInt8(v / unit % 10))
            unit /= 10
        }
    }
}

/// `Timestamp.appendISO8601` for times in a row (the lines of a batch of notifications):
/// the date and the clock up to the second are worked out again only when the second
/// changes: about 400 instructions a time, against 500 without it (callgrind, 2026-12-06).
struct ISO8601Writer {
    private var second = Int.min
    private var upToSecond = Bytes()   // `2026-11-30T20:31:02.`

    mutating func append(_ t: Timestamp, to b: inout Bytes) {
        let (whole, ms) = t.wholeSecondsAndMilliseconds()
        if whole != second {
            var text = Bytes()
            Timestamp(Double(whole)).appendISO8601(to: &text)
            guard text.count == 24 else { return t.appendISO8601(to: &b) }   // a year past 9999
            upToSecond = Array(text[..<20])
            second = whole
        }
        b.append(contentsOf: upToSecond)
        b.append(0x30 &+ UInt8(truncatingIfNeeded: ms / 100))
        b.append(0x30 &+ UInt8(truncatingIfNeeded: ms / 10 % 10))
        b.append(0x30 &+ UInt8(truncatingIfNeeded: ms % 10))
        b.append(0x5A)   // Z
    }
}

/// Monotonic seconds, for timers and deadlines (never goes back).
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

extension Timestamp {
    /// Reads `2026-11-30T20:31:02.123Z` (the recording's form; fraction optional, UTC only).
    /// Nil for anything else: recordings are untrusted.
    public init?(iso8601 text: String) {
        let b = Array(text.utf8)
        func num(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var v = 0
            for c in b[from..<(from + count)] {
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            return v
        }
        guard b.count >= 20, b.count <= 40, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A,
              b.last == 0x5A,
              let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
              let s = num(17, 2), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var fraction = 0.0
        if b.count > 20 {
            // At most nanoseconds: 19 digits would overflow an Int (a recording's times are untrusted).
            guard b[19] == 0x2E, b.count > 21, b.count - 21 <= 9, let f = num(20, b.count - 21) else { return nil }
            fraction = Double(f) / pow10(b.count - 21)
        }
        // Days from the civil date (Howard Hinnant's algorithm).
        let yy = mo <= 2 ? y - 1 : y
        let era = yy / 400
        let yoe = yy - era * 400
        let doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        self.init(Double(days * 86_400 + h * 3600 + mi * 60 + s) + fraction)
    }
}

private func pow10(_ n: Int) -> Double {
    var v = 1.0
    for _ in 0..<n { v *= 10 }
    return v
}
