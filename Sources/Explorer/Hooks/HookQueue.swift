#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Fired events waiting for delivery, in order, kept in a JSON Lines file so that a
/// crash or a restart loses none. Each event is a line `{"seq":…}` written (and fsynced)
/// before delivery starts; each outcome appends `{"done":seq,"outcome":…}`. Loading keeps
/// the events without an outcome. A cut last line (a crash mid-write) is skipped and
/// counted. The queue is bounded: when full, the oldest event is dropped and the drop is
/// reported, never silent. Whenever nothing is owed the file is started afresh with one
/// line, `{"next":N}`, so that numbers go on across runs instead of starting again at 1.
/// Without a path it lives in memory (the app's session actions).
public final class HookQueue {
    public let path: String?
    public let capacity: Int
    public private(set) var pending: [FiredEvent] = []
    public private(set) var nextSeq = 1
    /// Lines of the file that could not be read (reported once at start).
    public private(set) var skippedLines = 0
    private var fd: Int32 = -1

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public init(path: String?, capacity: Int = 1000) throws(Failure) {
        self.path = path
        self.capacity = max(1, capacity)
        guard let path else { return }
        fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot open the queue \(path): \(String(cString: strerror(errno)))") }
        // One process per queue: a second watch on the same file would deliver twice.
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw Failure(description: "the queue \(path) is in use by another bleexplr")
        }
        load()
        if pending.isEmpty { try restart() }
    }

    deinit { if fd >= 0 { close(fd) } }

    private func load() {
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        _ = lseek(fd, 0, SEEK_SET)
        while true {
            let n = read(fd, &buf, buf.count)
            if n <= 0 { break }
            data += buf[0..<n]
        }
        var done = Set<Int>()
        var events: [FiredEvent] = []
        for line in data.split(separator: 0x0A) where !line.isEmpty {
            guard let v = try? JSONValue.parse(String(decoding: line, as: UTF8.self)) else { skippedLines += 1; continue }
            if let seq = v["done"]?.int {
                done.insert(seq)
            } else if let next = v["next"]?.int, next >= 1 {
                nextSeq = max(nextSeq, next)
            } else if let e = FiredEvent(json: v) {
                events.append(e)
                nextSeq = max(nextSeq, e.seq + 1)
            } else {
                skippedLines += 1
            }
        }
        pending = events.filter { !done.contains($0.seq) }
    }

    /// Numbers and stores the event. Returns the event as queued and the one dropped to
    /// make room, if any.
    public func enqueue(_ draft: FiredEvent) throws(Failure) -> (queued: FiredEvent, dropped: FiredEvent?) {
        var e = draft
        e.seq = nextSeq
        nextSeq += 1
        var dropped: FiredEvent?
        if pending.count >= capacity {
            dropped = pending.removeFirst()
            try append("{\"done\":\(dropped!.seq),\"outcome\":\"dropped\"}")
        }
        try append(e.json)
        pending.append(e)
        return (e, dropped)
    }

    /// Records the outcome of the oldest event (delivered, rejected).
    public func complete(_ seq: Int, outcome: String) throws(Failure) {
        pending.removeAll { $0.seq == seq }
        var j = JSONLine()
        j.int("done", seq); j.string("outcome", outcome)
        try append(j.finish())
        if pending.isEmpty { try restart() }
    }

    /// Nothing owed: the file is emptied and keeps only the next number. (A crash between
    /// the two loses the number: the next run starts again at 1, as it did before.)
    private func restart() throws(Failure) {
        guard fd >= 0 else { return }
        _ = ftruncate(fd, 0)
        try append("{\"next\":\(nextSeq)}")
    }

    private func append(_ line: String) throws(Failure) {
        guard fd >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot write the queue \(path ?? ""): \(String(cString: strerror(errno)))")
            }
            off += n
        }
        _ = fsync(fd)
    }
}

/// Waits between attempts: 1 s, 2 s, 4 s … up to `limit`.
public struct Backoff: Equatable, Sendable {
    public var initial: Double
    public var limit: Double
    public init(initial: Double = 1, limit: Double = 60) { self.initial = initial; self.limit = limit }
    public func delay(afterAttempt n: Int) -> Double {
        min(limit, initial * Double(1 << min(max(n - 1, 0), 20)))
    }
}

extension HookQueue {

    /// `watch`'s queue when none is named: `$XDG_STATE_HOME/bleexplr/watch-AABBCCDDEEFF-ffe1.jsonl`
    /// (or ~/.local/state/…), the folders made private.
    public static func defaultPath(address: String, uuid: BLEUUID) -> String {
        let dir = StateDirectory.path(create: true) ?? {
            StateDirectory.make("/tmp/bleexplr")   // no home at all (a bare service)
            return "/tmp/bleexplr"
        }()
        // ffe1 for 16-bit SIG UUIDs, 8 digits for 32-bit ones, the whole UUID otherwise.
        let short = uuid.shortValue != nil ? uuid.description.lowercased() : uuid.canonical
        return dir + "/watch-" + address.filter { $0 != ":" } + "-" + short + ".jsonl"
    }
}
