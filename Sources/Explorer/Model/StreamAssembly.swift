/// Reassembles a characteristic's notifications into whole messages, each ending with
/// an end marker ("EOM" by default: Apple's BTLE Transfer sample and the streams people
/// build on it send data in MTU-sized chunks, then "EOM"). Bounded: a stream that never
/// sends its marker cannot eat memory.
public struct StreamAssembly: Equatable, Sendable {
    public struct Message: Equatable, Sendable {
        public var at: Timestamp
        public var bytes: Bytes
        public var chunks: Int
    }

    public static let maxMessage = 1 << 20
    public static let keptMessages = 32

    public var marker: Bytes
    public private(set) var partial: Bytes = []
    public private(set) var partialChunks = 0
    public private(set) var messages: [Message] = []   // oldest first
    public private(set) var completed = 0
    /// Bytes dropped because a message grew past `maxMessage` without its marker.
    public private(set) var overflowed = 0

    public init(marker: Bytes = Array("EOM".utf8)) { self.marker = marker }

    public mutating func add(_ chunk: Bytes, at: Timestamp) {
        if !marker.isEmpty, chunk == marker {
            finish(at: at)
            return
        }
        if !marker.isEmpty, chunk.count > marker.count, chunk.suffix(marker.count).elementsEqual(marker) {
            append(chunk.dropLast(marker.count))
            finish(at: at)
            return
        }
        append(chunk[...])
    }

    private mutating func append(_ bytes: ArraySlice<UInt8>) {
        partialChunks += 1
        let room = Self.maxMessage - partial.count
        if bytes.count > room {
            overflowed += bytes.count - room
            partial += bytes.prefix(room)
        } else {
            partial += bytes
        }
    }

    private mutating func finish(at: Timestamp) {
        if messages.count == Self.keptMessages { messages.removeFirst() }
        messages.append(Message(at: at, bytes: partial, chunks: partialChunks))
        completed += 1
        partial = []
        partialChunks = 0
    }
}
