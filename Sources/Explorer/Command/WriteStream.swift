/// `write ADDRESS UUID --file PATH`: a file sent as a stream of writes, the way a firmware
/// image or a UART-style characteristic takes one. Each write carries (MTU - 3) bytes
/// (510 at most: `longestValue`), without response where the characteristic allows it.
///
/// How the writes go is the backend's answer to `acquireWrite`: through a socket of their
/// own (BlueZ's AcquireWrite, a Unix socket bus and a characteristic with WriteAcquired),
/// or one WriteValue call each. Back-pressure: at most `window` writes are handed over and
/// not yet answered (for the socket, the backend writes them when poll says it can).
///
/// Neither path says when a write without response has left the radio: bluetoothd answers
/// WriteValue and reads the socket as soon as it has queued the write in its ATT layer.
/// So the end is a fence: once every write is in bluetoothd's hands (`flushWrites`), one
/// read of an attribute of the device. bluetoothd sends a request only after the writes
/// queued before it (its ATT layer takes queued writes first), and the device answers it
/// after handling them, so the read's answer is the moment the whole file was on the air.
/// Without anything readable the figures stop at the hand-over and say so.
public struct WriteStream: Equatable, Sendable {
    public enum Path: String, Equatable, Sendable {
        case acquireWrite = "AcquireWrite", writeValue = "WriteValue"
    }

    /// What the closing read reads: the written characteristic when readable, else another
    /// characteristic, else a descriptor of the device.
    public enum Fence: Equatable, Sendable {
        case characteristic(CharacteristicID)
        case descriptor(AttributeID)
    }

    /// Writes handed over and not yet answered, at most: through the socket (its buffer is
    /// the real bound), and WriteValue calls in flight.
    public static let socketWindow = 32
    public static let callWindow = 16
    /// ATT allows 512 bytes, but a BlueZ GATT server older than its fix of August 2023 ("fix
    /// writing attributes of length 512": its length check counted the handle's two bytes
    /// too) drops a Write Command of 511 or 512 without a word. Seen in the lab on 5.66: every
    /// 512-byte write lost, the shorter last one and EOM delivered. 510 goes everywhere.
    public static let longestValue = 510
    public static let marker = Array("EOM".utf8)
    /// The closing read waits behind every write bluetoothd still holds: it gets the usual
    /// operation time plus this much for each write handed over (a link carrying 10 writes a
    /// second, the slowest seen in the lab, where 300 writes of 510 bytes queued 16 s and a
    /// flat 15 s ended the run, and its link, before the last 10 had gone).
    public static let fenceAllowancePerWrite = 0.1

    /// How long the closing read may take.
    public func fenceTimeout(base: Double) -> Double { base + Double(sent) * Self.fenceAllowancePerWrite }

    public let data: Bytes
    /// nil: the bytes as they are, nothing added.
    public let framing: StreamFraming?
    public let type: WriteType
    /// Value bytes in one write.
    public private(set) var chunk = 20
    public private(set) var mtu: Int?
    public private(set) var path: Path?
    /// Why WriteValue (the backend's reason), if it is.
    public private(set) var reason: String?
    public var fence: Fence?
    /// File bytes handed over so far, writes handed over, writes answered.
    public private(set) var offset = 0, sent = 0, done = 0
    /// The end frame ("EOM", or seq's last) was handed over.
    public private(set) var ended = false
    public private(set) var startedAt: Timestamp?
    /// When bluetoothd had taken the last write.
    public var handedOverAt: Timestamp?
    /// Waiting for `writesFlushed`, then for the fence's answer.
    public var flushing = false, fencing = false

    public init(data: Bytes, framing: StreamFraming?, type: WriteType, mtu: Int?) {
        self.data = data; self.framing = framing; self.type = type
        size(mtu)
    }

    /// (MTU - 3) bytes a write, 510 at most; 20 when the MTU is not known (ATT's default 23).
    mutating func size(_ mtu: Int?) {
        self.mtu = mtu
        chunk = min(Self.longestValue, max(20, (mtu ?? 23) - 3))
    }

    mutating func chose(_ path: Path, mtu: Int?, reason: String? = nil) {
        self.path = path
        self.reason = reason
        if let mtu { size(mtu) }
    }

    /// File bytes a write carries: the chunk, less seq's header.
    public var payload: Int { framing == .seq ? chunk - 2 : chunk }

    /// Writes the whole file takes, its end frame included.
    public var total: Int { (data.count + payload - 1) / payload + (framing == nil ? 0 : 1) }

    public var window: Int { path == .acquireWrite ? Self.socketWindow : Self.callWindow }

    /// Every write handed over and answered.
    public var allDone: Bool { done == total }

    /// The next write's bytes, if any is left.
    mutating func next() -> Bytes? {
        if offset < data.count {
            let end = min(data.count, offset + payload)
            let body = data[offset..<end]
            offset = end
            defer { sent += 1 }
            return framing == .seq ? StreamFraming.header(sent, last: false) + body : Array(body)
        }
        guard let framing, !ended else { return nil }
        ended = true
        defer { sent += 1 }
        return framing == .seq ? StreamFraming.header(sent, last: true) + Self.marker : Self.marker
    }

    mutating func answered() { done += 1 }

    mutating func started(at: Timestamp) {
        if startedAt == nil { startedAt = at }
    }

    /// What a device offers to close the stream with (`Fence`).
    static func fence(_ p: Peripheral, _ c: GATTCharacteristic) -> Fence? {
        if c.properties.contains(.read) { return .characteristic(c.id) }
        let all = p.services?.flatMap(\.characteristics) ?? []
        if let other = all.first(where: { $0.properties.contains(.read) }) { return .characteristic(other.id) }
        return all.flatMap(\.descriptors).first.map { .descriptor($0.id) }
    }
}

/// The writes of a stream, as a report: what went, how fast, which way.
public struct StreamWriteReport: Equatable, Sendable {
    public var address: String
    public var uuid: BLEUUID
    /// File bytes, writes (the end frame included), value bytes a write.
    public var bytes: Int, chunks: Int, chunkSize: Int
    public var mtu: Int?
    public var path: WriteStream.Path
    public var type: WriteType
    public var framing: StreamFraming?
    /// From the first write handed over to the answer of the closing read (to the last
    /// write's hand-over when `confirmed` is false).
    public var seconds: Double
    /// From the first write to the last one's hand-over to bluetoothd.
    public var queuedSeconds: Double
    /// The device answered a read after the last write.
    public var confirmed: Bool

    public var chunksPerSecond: Double { Double(chunks) / max(0.001, seconds) }
    public var kbitPerSecond: Double { Double(bytes) * 8 / 1000 / max(0.001, seconds) }
}
