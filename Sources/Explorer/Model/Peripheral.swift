public enum ConnectionState: Equatable, Sendable {
    case disconnected
    case connecting(attempt: Int)
    case resolvingServices
    /// Services are known; their 0x2901 labels and 0x2904 formats are being read.
    case readingDescriptors
    /// Ready: services resolved and their descriptors read.
    case connected
    case disconnecting
    case failed(reason: String)

    public var isLinkUp: Bool {
        switch self {
        case .resolvingServices, .readingDescriptors, .connected, .disconnecting: return true
        case .disconnected, .connecting, .failed: return false
        }
    }

    public var label: String {
        switch self {
        case .disconnected: return "disconnected"
        case let .connecting(attempt): return attempt > 1 ? "connecting (attempt \(attempt))" : "connecting"
        case .resolvingServices: return "resolving services"
        case .readingDescriptors: return "reading descriptors"
        case .connected: return "connected"
        case .disconnecting: return "disconnecting"
        case let .failed(reason): return "failed: \(reason)"
        }
    }
}

/// The most recent RSSI readings, oldest first, at most `capacity` of them: a ring kept in
/// the peripheral itself, so a report writes one byte where the peripheral already is
/// instead of reaching for an array of its own elsewhere on the heap (one device in a
/// thousand at a time, that array was never in cache: docs/bench.md).
public struct RSSIHistory: Sendable {
    public static let capacity = 48
    private var ring = InlineArray<48, Int8>(repeating: 0)
    private var next = 0
    public private(set) var count = 0
    public init() {}

    public mutating func append(_ rssi: Int) {
        ring[next] = Int8(clamping: rssi)
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// dBm, oldest first.
    public var samples: [Int8] {
        let start = count < Self.capacity ? 0 : next
        return (0..<count).map { ring[(start + $0) % Self.capacity] }
    }
}

extension RSSIHistory: Equatable {
    public static func == (a: Self, b: Self) -> Bool { a.samples == b.samples }
}

public struct Peripheral: Equatable, Sendable, Identifiable {
    public var id: PeripheralID
    public var address: String
    /// The name as the device gives it (GAP name or advertised local name): untrusted.
    public var name: String?
    public var rssi: Int?
    /// True when the backend stopped reporting RSSI (scan off, out of range): the last
    /// value is kept and shown as stale, never as 0 dBm.
    public var rssiStale: Bool = false
    public var rssiHistory = RSSIHistory()
    /// How often its reports come (`AdvertisingRhythm`).
    public var rhythm = AdvertisingRhythm()
    public var firstSeen: Timestamp
    public var lastSeen: Timestamp
    public var connectable: Bool
    public var advertisement: Advertisement
    public var connection: ConnectionState = .disconnected
    public var services: [GATTService]? = nil
    public var mtu: Int? = nil
    /// Paired, bonded, trusted, blocked; the address type.
    public var bond = Bond()

    public init(id: PeripheralID, address: String, name: String?, rssi: Int?, seen: Timestamp,
                connectable: Bool, advertisement: Advertisement) {
        self.id = id
        self.address = address
        self.name = name
        self.rssi = rssi
        self.firstSeen = seen
        self.lastSeen = seen
        self.connectable = connectable
        self.advertisement = advertisement
        if let rssi { rssiHistory.append(rssi) }
        rhythm.heard(after: nil)
    }

    /// A later report: only what it carries changes. Its RSSI, if it has one, is the
    /// current one and joins the history.
    public mutating func apply(_ r: AdvertisementReport, at: Timestamp) {
        advertisement.merge(r.advertisement)
        if let n = r.name ?? r.advertisement.localName { name = n }
        if let c = r.connectable { connectable = c }
        if let rssi = r.rssi {
            self.rssi = rssi
            rssiStale = false
            rssiHistory.append(rssi)
        }
        rhythm.heard(after: at - lastSeen)
        lastSeen = at
    }

    /// The user's alias, else the name it advertises, else its address.
    public var displayName: String {
        if let a = alias { return a }
        if let n = name, !n.isEmpty { return n }
        return address
    }

    /// The name the user gave it in the configuration (UserNames).
    public var alias: String? { UserNames.current.alias(address) }

    public func characteristic(_ id: CharacteristicID) -> (GATTService, GATTCharacteristic)? {
        for s in services ?? [] {
            if let c = s.characteristics.first(where: { $0.id == id }) { return (s, c) }
        }
        return nil
    }
}
