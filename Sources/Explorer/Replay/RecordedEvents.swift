/// A recording's events, in order, in blocks of 16,384: an array grown one event at a time
/// doubles its storage and copies it, so that reading ended with up to twice the room the
/// events need (and, while the last copy was made, three times); the blocks hold them with
/// at most one block to spare (2 MiB).
public struct RecordedEvents: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    public typealias Element = (at: Timestamp, event: BackendEvent)
    static let shift = 14
    private var blocks: [[Element]] = []
    public private(set) var count = 0

    public init() {}
    public init(arrayLiteral elements: Element...) { for e in elements { append(e) } }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public subscript(i: Int) -> Element {
        precondition(i >= 0 && i < count, "index out of range")
        return blocks[i >> Self.shift][i & (1 << Self.shift - 1)]
    }

    public mutating func append(_ e: Element) {
        if count >> Self.shift == blocks.count {
            var block: [Element] = []
            block.reserveCapacity(1 << Self.shift)
            blocks.append(block)
        }
        blocks[blocks.count - 1].append(e)
        count += 1
    }
}

/// One storage for what a recording repeats: each address, path and name, a device's
/// advertisement and a short value are read once per line but kept once, whatever the
/// number of events that hold them. A crowd's recording repeats nearly everything: its events
/// took 410 bytes each (2.6 times the file) with a copy of each, about 160 this way (a
/// 100 MB recording of the demo's crowd, docs/testing.md). At most `limit` values of each
/// kind are kept for sharing; past that, values are kept as they come.
struct Shared {
    static let limit = 1 << 16
    var strings: Set<String> = []
    var advertisements: Set<Advertisement> = []
    var values: Set<Bytes> = []

    static func intern<T: Hashable>(_ x: T, in set: inout Set<T>) -> T {
        if let i = set.firstIndex(of: x) { return set[i] }
        if set.count < limit { set.insert(x) }
        return x
    }

    /// A string of up to 15 UTF-8 bytes is held in the String itself: nothing to share.
    mutating func string(_ s: String) -> String { s.utf8.count <= 15 ? s : Self.intern(s, in: &strings) }
    mutating func id(_ id: PeripheralID) -> PeripheralID { PeripheralID(string(id.rawValue)) }
    mutating func path(_ a: AttributeID) -> AttributeID { AttributeID(string(a.path)) }
    mutating func value(_ b: Bytes) -> Bytes { b.count <= 64 ? Self.intern(b, in: &values) : b }

    mutating func event(_ e: BackendEvent) -> BackendEvent {
        switch e {
        case var .advertisementReceived(r):
            r.id = id(r.id)
            r.address = r.address == r.id.rawValue ? r.id.rawValue : string(r.address)
            r.name = r.name.map { string($0) }
            r.advertisement = Self.intern(r.advertisement, in: &advertisements)
            return .advertisementReceived(r)
        case let .valueNotified(cid, b): return .valueNotified(path(cid), value(b))
        case let .valuesNotified(cid, vs): return .valuesNotified(path(cid), vs.map { NotifiedValue(value($0.bytes), at: $0.at) })
        case let .readCompleted(cid, .success(b)): return .readCompleted(path(cid), .success(value(b)))
        case let .rssiLost(i): return .rssiLost(id(i))
        case let .peripheralRemoved(i): return .peripheralRemoved(id(i))
        case let .bondChanged(i, b): return .bondChanged(id(i), b)
        case let .connected(i): return .connected(id(i))
        default: return e
        }
    }
}
