/// `serve --receive FILE --char UUID [--framing plain|seq]`: the receiving end of a
/// stream of writes (`bleexplr write --file`, a phone app, a test rig). Every write to UUID
/// is counted; without framing each write's bytes are appended to FILE as they come (a
/// UART-style sink); with framing the writes are put back together as `notify --until`
/// does (`StreamAssembly`: chunks, then "EOM"; seq puts frames back in place and says
/// what is missing) and each whole message replaces FILE. A read of UUID answers the
/// tally ("received N bytes in M writes"), so the sender can ask.
public struct StreamReceive: Equatable, Sendable {
    public static let maxMessage = 64 << 20
    public let char: BLEUUID
    public let path: String
    public let framing: StreamFraming?
    public var assembly: StreamAssembly?
    /// Writes to `char`, and their bytes as written (frame headers and markers included).
    public var writes = 0, bytes = 0
    public var firstAt: Timestamp?, lastAt: Timestamp?
    /// Whole messages (framed).
    public var messages = 0

    public init(char: BLEUUID, path: String, framing: StreamFraming?) {
        self.char = char; self.path = path; self.framing = framing
        assembly = framing.map { StreamAssembly(framing: $0, maxMessage: Self.maxMessage) }
    }

    /// What a read of the receiving characteristic answers.
    public static func tallyValue(_ bytes: Int, _ writes: Int) -> Bytes {
        Array("received \(bytes) bytes in \(writes) writes".utf8)
    }
}

enum ServeReceive {
    /// A write to the receiving characteristic: counted, kept, and its tally made the value
    /// reads return. nil when `c` is some other characteristic (its `write` line prints).
    static func written(_ s: inout ServeState, _ c: CharacteristicEvent, _ chunk: Bytes, at: Timestamp) -> [Effect]? {
        guard var r = s.receiving, c.uuid == r.char, !c.descriptor else { return nil }
        if let a = c.central { s.centrals[a] = at }
        r.writes += 1
        r.bytes += chunk.count
        if r.firstAt == nil { r.firstAt = at }
        r.lastAt = at
        var effects: [Effect] = [.serve(.set(r.char, StreamReceive.tallyValue(r.bytes, r.writes)))]
        if r.writes == 1 {
            effects += ServeReducer.say(&s, ServeLine("receive-start", [.init("uuid", r.char.canonical), .init("central", c.central),
                                                                       .init("framing", r.framing?.rawValue ?? "none"),
                                                                       .init("output", r.path)]), at: at)
        }
        guard var a = r.assembly else {
            s.receiving = r
            s.received = "\(r.writes) writes, \(r.bytes) bytes"
            return effects + [.serve(.save(chunk, append: true))]
        }
        // `a` alone holds the message, so the chunk is appended in place (shared with
        // s.receiving and r, every chunk copied the whole message).
        s.receiving?.assembly = nil
        r.assembly = nil
        let m = a.add(chunk, at: at)
        r.assembly = a
        if m != nil { r.messages += 1 }
        s.receiving = r
        s.received = "\(r.writes) writes, \(r.bytes) bytes" + (r.messages > 0 ? ", \(r.messages) whole message\(r.messages == 1 ? "" : "s")" : "")
        guard let m else { return effects }
        let seconds = max(0.001, m.at - (m.startedAt ?? m.at))
        var fields: [ServeLine.Field] = [.init("uuid", r.char.canonical), .init("bytes", String(m.bytes.count)),
                                         .init("chunks", String(m.chunks)), .init("seconds", String(ServeReducer.rounded3(seconds))),
                                         .init("kbitPerSecond", String(ServeReducer.rounded3(Double(m.bytes.count) * 8 / 1000 / seconds))),
                                         .init("framing", a.framing.rawValue), .init("output", r.path)]
        if a.framing == .seq {
            fields += [.init("reordered", String(m.reordered)), .init("duplicates", String(a.duplicates))]
        } else {
            fields.append(.init("outOfPlace", String(m.outOfPlace)))
        }
        if a.overflowed > 0 { fields.append(.init("cut", String(a.overflowed))) }
        return effects + [.serve(.save(m.bytes, append: false))] + ServeReducer.say(&s, ServeLine("receive-done", fields), at: at)
    }

    /// `receive-progress` (SIGUSR1) or `receive-total` (on the way out): every write so far,
    /// from the first to the latest, and for framed streams what waits and what is missing.
    static func tally(_ s: inout ServeState, _ event: String) -> [Effect] {
        guard let r = s.receiving else { return [] }
        let seconds = r.firstAt.flatMap { f in r.lastAt.map { max(0.001, $0 - f) } } ?? 0
        var fields: [ServeLine.Field] = [.init("uuid", r.char.canonical), .init("writes", String(r.writes)),
                                         .init("bytes", String(r.bytes)), .init("seconds", String(ServeReducer.rounded3(seconds))),
                                         .init("kbitPerSecond", String(seconds > 0 ? ServeReducer.rounded3(Double(r.bytes) * 8 / 1000 / seconds) : 0)),
                                         .init("output", r.path)]
        if let a = r.assembly {
            fields += [.init("messages", String(r.messages)), .init("partialBytes", String(a.partial.count))]
            if a.framing == .seq {
                fields += [.init("waiting", String(a.waiting)), .init("missing", String(a.missing)),
                           .init("duplicates", String(a.duplicates)), .init("malformed", String(a.malformed))]
            }
        }
        return ServeReducer.say(&s, ServeLine(event, fields), at: r.lastAt ?? Timestamp(0))
    }
}
