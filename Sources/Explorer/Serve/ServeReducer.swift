/// What `serve` asks its GATT server to do; results come back as actions.
public enum ServeCommand: Equatable, Sendable {
    /// Set the value and notify subscribed centrals (`.serveNotified` says whether it went).
    case notify(BLEUUID, Bytes)
    /// The stream's next chunks, in order, stopping at the first that does not go out; with
    /// `end`, the end frame after them ("EOM", or seq's last frame). `.serveWindowSent` says
    /// how many went; then, unless it was the last or one failed, a drain (`.serveDrained`).
    case streamWindow(BLEUUID, [Bytes], generation: Int, end: Bytes?)
    case set(BLEUUID, Bytes)
    /// `--receive`: write what a central sent to the file, after what is there (a raw
    /// stream) or in its place (a whole message).
    case save(Bytes, append: Bool)
    /// Unregister and stop advertising (`.serveStopped` when done).
    case stop
}

/// One line `serve` prints: an event and its fields, in order (nil fields are left out).
public struct ServeLine: Equatable, Sendable {
    public struct Field: Equatable, Sendable {
        public var key: String
        public var value: String?
        public init(_ key: String, _ value: String?) { self.key = key; self.value = value }
    }
    public var event: String
    public var fields: [Field]
    public init(_ event: String, _ fields: [Field] = []) { self.event = event; self.fields = fields }

    public func field(_ key: String) -> String? { fields.first { $0.key == key }?.value }
}

/// `serve --stream`: the file as notifications of (MTU - 3) bytes, then "EOM", from the
/// moment a central subscribes; with `--framing seq`, each behind a sequence number
/// (`StreamFraming`). Pacing: at most `window` notifications are sent before
/// bluetoothd has taken them all (a Peer.Ping round trip, answered in order after them):
/// the flow control a bus without fd passing leaves (docs/serve.md).
public struct StreamSend: Equatable, Sendable {
    public static let window = 8
    public static let marker = Array("EOM".utf8)
    /// ATT's longest attribute value (Core Vol 3 Part F 3.2.9).
    public static let longestValue = 512
    public let bytes: Bytes
    public let char: BLEUUID
    public let framing: StreamFraming
    public var offset = 0, chunk = 20, chunks = 0
    /// File bytes in each notification: the chunk, less seq's header.
    public var payload: Int { framing == .seq ? chunk - 2 : chunk }
    /// Bumped at each start and stop: a drain answered for an older run is ignored.
    public var generation = 0
    public var running = false
    public var startedAt = Timestamp(0)

    public init(bytes: Bytes, char: BLEUUID, framing: StreamFraming = .plain) {
        self.bytes = bytes; self.char = char; self.framing = framing
    }
}

/// `serve` as a reducer: what centrals do (ServeEvents) goes into the screen's state and
/// into lines to print; stdin's control lines and the stream become server commands.
enum ServeReducer {
    static func reduce(_ s: inout ServeState, _ action: Action) -> [Effect] {
        switch action {
        case let .served(event, mtu, at):
            // A write to `--receive`'s characteristic is counted, not printed.
            if case let .written(c, bytes, _, offset) = event,
               let out = ServeReceive.written(&s, c, Array(bytes.dropFirst(offset)), at: at) { return out }
            s.apply(event, at: at)
            var effects = say(&s, line(event, s), at: at)
            if case .registered = event { s.everRegistered = true }
            if case .registrationFailed = event, !s.everRegistered { effects += stop(&s, exitCode: 1) }
            effects += streamHeard(&s, event, mtu: mtu, at: at)
            return effects
        case let .serveControl(text, at):
            return control(&s, text, at: at)
        case let .serveWindowSent(generation, sent, at):
            return windowSent(&s, generation: generation, sent: sent, at: at)
        case let .serveNotified(uuid, bytes, sent, at):
            return say(&s, ServeLine("notify", [.init("uuid", uuid.canonical), .init("hex", hex(bytes, separator: "")),
                                                .init("sent", sent ? "yes" : "no")]), at: at, noted: true)
        case let .serveDrained(generation, ok, at):
            guard let st = s.sending, st.running, st.generation == generation else { return [] }
            return ok ? pump(&s, at: at) : finishStream(&s, "stream-stopped", at: at)
        case .serveStopped:
            return [.finish(exitCode: s.exitCode)]
        case .serveTallyAsked:
            return ServeReceive.tally(&s, "receive-progress")
        case .interrupted, .quitRequested:
            return (s.stopping ? [] : ServeReceive.tally(&s, "receive-total")) + stop(&s, exitCode: 0)
        default:
            return []
        }
    }

    static func stop(_ s: inout ServeState, exitCode: Int32) -> [Effect] {
        guard !s.stopping else { return [] }
        s.stopping = true
        s.exitCode = exitCode
        if s.sending != nil { s.sending?.running = false; s.sending?.generation += 1 }
        return [.serve(.stop)]
    }

    /// `notify UUID VALUE` sets a characteristic's value and notifies subscribed centrals;
    /// `set UUID VALUE` only sets it. VALUE as for `write`: hex or "text".
    static func control(_ s: inout ServeState, _ text: String, at: Timestamp) -> [Effect] {
        let parts = text.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[0] == "notify" || parts[0] == "set", let uuid = BLEUUID(parts[1]) else {
            if text.isEmpty { return [] }
            return say(&s, ServeLine("error", [.init("message", "control: 'notify UUID VALUE' or 'set UUID VALUE', not '\(text)'")]),
                       at: at, noted: true)
        }
        guard s.services.contains(where: { $0.characteristics.contains { $0.uuid == uuid } }) else {
            return say(&s, ServeLine("error", [.init("message", "no characteristic \(uuid)")]), at: at, noted: true)
        }
        switch WriteValue.parse(parts[2]) {
        case let .success(bytes):
            return [.serve(parts[0] == "set" ? .set(uuid, bytes) : .notify(uuid, bytes))]
        case let .failure(e):
            return say(&s, ServeLine("error", [.init("message", e.message)]), at: at, noted: true)
        }
    }

    // MARK: The stream

    static func streamHeard(_ s: inout ServeState, _ e: ServeEvent, mtu: Int?, at: Timestamp) -> [Effect] {
        guard var st = s.sending else { return [] }
        switch e {
        case let .subscribed(c) where c.uuid == st.char && !c.descriptor,
             let .acquired(c, _) where c.uuid == st.char:
            st.generation += 1
            st.offset = 0
            st.chunks = 0
            // (MTU - 3), and never more than ATT's longest value: bluetoothd cuts a longer
            // notification to 512 bytes (seen in the lab at MTU 517, 514-byte chunks).
            var mtu = mtu
            if case let .acquired(_, m) = e { mtu = m }   // this link's, not the largest seen
            st.chunk = min(StreamSend.longestValue, max(20, (mtu ?? 23) - 3))
            st.running = true
            st.startedAt = at
            s.sending = st
            return say(&s, ServeLine("stream-start", [.init("bytes", String(st.bytes.count)), .init("chunk", String(st.chunk)),
                                                      .init("framing", st.framing.rawValue), .init("uuid", st.char.canonical)]),
                       at: at) + pump(&s, at: at)
        case let .unsubscribed(c) where c.uuid == st.char && !c.descriptor && st.running:
            return finishStream(&s, "stream-stopped", at: at)
        case .bluezGone where st.running:
            return finishStream(&s, "stream-stopped", at: at)
        default:
            return []
        }
    }

    /// The next window of chunks (the marker after the file's last one).
    static func pump(_ s: inout ServeState, at: Timestamp) -> [Effect] {
        guard let st = s.sending, st.running else { return [] }
        var chunks: [Bytes] = []
        var offset = st.offset
        var index = st.chunks
        func framed(_ b: ArraySlice<UInt8>, last: Bool = false) -> Bytes {
            st.framing == .seq ? StreamFraming.header(index, last: last) + b : Array(b)
        }
        while chunks.count < StreamSend.window, offset < st.bytes.count {
            let end = min(st.bytes.count, offset + st.payload)
            chunks.append(framed(st.bytes[offset..<end]))
            offset = end
            index += 1
        }
        let last = offset >= st.bytes.count
        return [.serve(.streamWindow(st.char, chunks, generation: st.generation,
                                     end: last ? framed(StreamSend.marker[...], last: true) : nil))]
    }

    /// `sent` chunks of the window went out: the offset moves by them. All of the last
    /// window: done; fewer than asked: stopped; otherwise the drain that follows decides.
    static func windowSent(_ s: inout ServeState, generation: Int, sent: Int, at: Timestamp) -> [Effect] {
        guard var st = s.sending, st.running, st.generation == generation else { return [] }
        let asked = min(StreamSend.window, (st.bytes.count - st.offset + st.payload - 1) / st.payload)
        st.offset = min(st.bytes.count, st.offset + sent * st.payload)
        st.chunks += sent
        s.sending = st
        if sent < asked { return finishStream(&s, "stream-stopped", at: at) }
        if st.offset >= st.bytes.count { return finishStream(&s, "stream-done", at: at) }
        return []
    }

    static func finishStream(_ s: inout ServeState, _ event: String, at: Timestamp) -> [Effect] {
        guard var st = s.sending, st.running else { return [] }
        st.running = false
        st.generation += 1
        s.sending = st
        let seconds = max(0.001, at - st.startedAt)
        return say(&s, ServeLine(event, [.init("bytes", String(st.offset)), .init("chunks", String(st.chunks)),
                                         .init("seconds", String(rounded3(seconds))),
                                         .init("kbitPerSecond", String(rounded3(Double(st.offset) * 8 / 1000 / seconds)))]), at: at)
    }

    static func rounded3(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }

    // MARK: Lines

    /// Prints a line. A stream's progress is kept for the screen, and so is a line that
    /// no ServeEvent stands for (`noted`: a control line's notification or error).
    static func say(_ s: inout ServeState, _ l: ServeLine, at: Timestamp, noted: Bool = false) -> [Effect] {
        if l.event.hasPrefix("stream") {
            s.stream = "\(l.event.dropFirst(7)): " + ["bytes", "chunks", "chunk", "seconds", "kbitPerSecond"]
                .compactMap { k in l.field(k).map { "\(k) \($0)" } }.joined(separator: ", ")
        } else if noted {
            var bytes: Bytes?
            if let h = l.field("hex"), case let .success(b) = WriteValue.parse(h) { bytes = b }
            s.note(l.event + (l.field("message").map { ": " + $0 } ?? ""), uuid: l.field("uuid").flatMap(BLEUUID.init),
                   bytes: bytes, at: at)
        }
        return [.output(.serve(l))]
    }

    /// The line for what a central (or bluetoothd) did.
    static func line(_ e: ServeEvent, _ s: ServeState) -> ServeLine {
        func attr(_ c: CharacteristicEvent) -> [ServeLine.Field] {
            [.init("uuid", c.uuid.canonical), .init("name", AssignedNumbers.characteristicName(c.uuid)),
             .init("descriptor", c.descriptor ? "yes" : nil), .init("central", c.central)]
        }
        switch e {
        case let .registered(adapter):
            return ServeLine("advertising", [.init("adapter", adapter), .init("name", s.name), .init("source", s.source),
                                             .init("services", s.services.map(\.uuid.description).joined(separator: ","))])
        case let .registrationFailed(message): return ServeLine("error", [.init("message", message)])
        case .bluezGone: return ServeLine("bluez-gone", [.init("message", "bluetoothd went away; will register again when it returns")])
        case .bluezReturned: return ServeLine("bluez-back", [.init("message", "bluetoothd is back; registering again")])
        case .advertisementReleased: return ServeLine("advertisement-released")
        case let .read(c, offset, bytes):
            return ServeLine("read", attr(c) + [.init("offset", offset > 0 ? String(offset) : nil), .init("hex", hex(bytes, separator: ""))])
        case let .written(c, bytes, type, _): return ServeLine("write", attr(c) + [.init("type", type), .init("hex", hex(bytes, separator: ""))])
        case let .subscribed(c): return ServeLine("subscribed", attr(c))
        case let .acquired(c, mtu): return ServeLine("subscribed", attr(c) + [.init("via", "socket"), .init("mtu", String(mtu))])
        case let .unsubscribed(c): return ServeLine("unsubscribed", attr(c))
        case let .confirmed(c): return ServeLine("confirmed", attr(c))
        case .unregistered: return ServeLine("unregistered", [.init("adapter", s.adapter)])
        }
    }
}
