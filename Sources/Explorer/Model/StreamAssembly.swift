/// How a stream's chunks are framed.
/// - `plain`: the chunks as they are, then the end marker ("EOM"): Apple's BTLE Transfer
///   sample and the streams built on it. Safe only where notifications arrive in the order
///   they were sent: one ATT bearer. With EATT (several bearers, BlueZ >= 5.62 when both
///   sides have it) a server spreads notifications over them and they can arrive out of
///   place; `plain` then detects only some of it (a short chunk before the end, chunks
///   after the marker) and cannot put anything back.
/// - `seq`: every chunk starts with two bytes, little endian: a sequence number (0 to
///   32767, wrapping) and, in the top bit, "last"; the last frame carries the marker. The
///   receiver puts chunks back in place. docs/serve.md.
public enum StreamFraming: String, Equatable, Sendable, CaseIterable {
    case plain, seq

    /// What a characteristic's user description (0x2901) says about its stream: `serve
    /// --framing seq` writes "bleexplr stream, framing seq".
    public static func announced(in description: String?) -> StreamFraming? {
        guard let d = description, d.contains("framing seq") else { return nil }
        return .seq
    }
    public static let seqDescription = "bleexplr stream, framing seq"

    /// The two header bytes of a `seq` frame.
    public static func header(_ index: Int, last: Bool) -> Bytes {
        let v = UInt16(index & 0x7FFF) | (last ? 0x8000 : 0)
        return [UInt8(v & 0xFF), UInt8(v >> 8)]
    }
}

/// Reassembles a characteristic's notifications into whole messages, each ending with
/// an end marker ("EOM" by default), plain or framed (`StreamFraming`). Bounded: a stream
/// that never sends its marker cannot eat memory, nor can one that skips a sequence number.
public struct StreamAssembly: Equatable, Sendable {
    public struct Message: Equatable, Sendable {
        public var at: Timestamp
        public var bytes: Bytes
        public var chunks: Int
        /// When its first chunk came.
        public var startedAt: Timestamp? = nil
        /// `seq`: chunks that came before one sent earlier, put back in place.
        public var reordered = 0
        /// `plain`: chunks shorter than the others that were not the last: out of place.
        public var outOfPlace = 0
    }

    public static let maxMessage = 1 << 20
    public static let keptMessages = 32
    /// `seq`: frames held waiting for an earlier one, at most.
    public static let maxPending = 8192

    public var marker: Bytes
    public let framing: StreamFraming
    public let maxMessage: Int
    public private(set) var partial: Bytes = []
    public private(set) var partialChunks = 0
    public private(set) var partialStartedAt: Timestamp?
    public private(set) var messages: [Message] = []   // oldest first
    public private(set) var completed = 0
    /// Bytes dropped because a message grew past `maxMessage` without its marker.
    public private(set) var overflowed = 0
    /// `seq`: frames too short for a header, and frames that came twice (or from long ago).
    public private(set) var malformed = 0, duplicates = 0

    /// `seq`: frames held for an earlier one that has not come.
    public var waiting: Int { pending.count }
    /// `seq`: sequence numbers not seen between the next one expected and the furthest
    /// frame held: lost, or late.
    public var missing: Int {
        guard let far = pending.keys.map({ ($0 - next) & 0x7FFF }).max() else { return 0 }
        return far + 1 - pending.count
    }

    // `plain`: the largest chunk of the message, the latest chunk's size, and how many
    // chunks before the latest were shorter than the largest.
    private var largest = 0, latest = 0, short = 0
    // `seq`: the sequence number expected next, frames that came early, how many did.
    private var next = 0, reordered = 0
    private var pending: [Int: Frame] = [:]
    private struct Frame: Equatable, Sendable { var payload: Bytes; var last: Bool }

    public init(marker: Bytes = Array("EOM".utf8), framing: StreamFraming = .plain, maxMessage: Int = Self.maxMessage) {
        self.marker = marker
        self.framing = framing
        self.maxMessage = maxMessage
    }

    /// Adds a notification; the message it completed, if it did.
    @discardableResult
    public mutating func add(_ chunk: Bytes, at: Timestamp) -> Message? {
        switch framing {
        case .plain: return addPlain(chunk, at: at)
        case .seq: return addFramed(chunk, at: at)
        }
    }

    private mutating func addPlain(_ chunk: Bytes, at: Timestamp) -> Message? {
        if !marker.isEmpty, chunk == marker { return finish(at: at) }
        if !marker.isEmpty, chunk.count > marker.count, chunk.suffix(marker.count).elementsEqual(marker) {
            append(chunk.dropLast(marker.count), at: at)
            return finish(at: at)
        }
        append(chunk[...], at: at)
        return nil
    }

    private mutating func addFramed(_ frame: Bytes, at: Timestamp) -> Message? {
        guard frame.count >= 2 else { malformed += 1; return nil }
        let v = Int(frame[0]) | Int(frame[1]) << 8
        let seq = v & 0x7FFF, last = v & 0x8000 != 0
        let ahead = (seq - next) & 0x7FFF
        if ahead >= 0x4000 || pending[seq] != nil { duplicates += 1; return nil }   // behind: seen, or from long ago
        let f = Frame(payload: Array(frame.dropFirst(2)), last: last)
        if ahead > 0 {
            guard pending.count < Self.maxPending else { overflowed += f.payload.count; return nil }
            pending[seq] = f
            reordered += 1
            if partialStartedAt == nil { partialStartedAt = at }
            return nil
        }
        var f0: Frame? = f
        while let f = f0 {
            next = (next + 1) & 0x7FFF
            if f.last {
                if partialStartedAt == nil { partialStartedAt = at }
                let m = finish(at: at)
                next = 0
                pending.removeAll()
                return m
            }
            append(f.payload[...], at: at)
            f0 = pending.removeValue(forKey: next)
        }
        return nil
    }

    private mutating func append(_ bytes: ArraySlice<UInt8>, at: Timestamp) {
        if partialStartedAt == nil { partialStartedAt = at }
        if framing == .plain {
            if bytes.count > largest {
                short = partialChunks   // every chunk before this one was shorter
                largest = bytes.count
            } else if partialChunks > 0, latest < largest {
                short += 1
            }
            latest = bytes.count
        }
        partialChunks += 1
        let room = maxMessage - partial.count
        if bytes.count > room {
            overflowed += bytes.count - room
            partial += bytes.prefix(room)
        } else {
            partial += bytes
        }
    }

    private mutating func finish(at: Timestamp) -> Message {
        if messages.count == Self.keptMessages { messages.removeFirst() }
        let m = Message(at: at, bytes: partial, chunks: partialChunks, startedAt: partialStartedAt,
                        reordered: reordered, outOfPlace: short)
        messages.append(m)
        completed += 1
        partial = []
        partialChunks = 0
        partialStartedAt = nil
        largest = 0; latest = 0; short = 0; reordered = 0
        return m
    }
}
