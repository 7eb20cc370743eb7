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

/// A fixed-capacity history of recent RSSI readings. A ring: appending to a full one
/// overwrites the oldest in place (every advertisement appends; shifting 47 samples each
/// time showed in the ingest profile). The samples live inside the struct, not in an
/// array of their own: an advertisement for one of a thousand devices then touches no
/// other allocation, and nothing to check for sharing, to record its RSSI.
public struct RSSIHistory: Equatable, Sendable {
    public static let capacity = 48
    /// 48 one-byte samples (dBm).
    private var ring: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    private var count: UInt8 = 0
    /// Where the next sample goes once the ring is full (= the oldest).
    private var head: UInt8 = 0
    public init() {}

    /// Oldest first.
    public var samples: [Int8] {
        withUnsafeBytes(of: ring) { raw in
            let all = raw.bindMemory(to: Int8.self)
            let n = Int(count), h = Int(head)
            return n < Self.capacity ? Array(all[..<n]) : Array(all[h...]) + Array(all[..<h])
        }
    }

    public mutating func append(_ rssi: Int) {
        let v = Int8(clamping: rssi)
        let slot = Int(count) < Self.capacity ? Int(count) : Int(head)
        withUnsafeMutableBytes(of: &ring) { $0.storeBytes(of: v, toByteOffset: slot, as: Int8.self) }
        if Int(count) < Self.capacity {
            count += 1
        } else {
            head = Int(head) + 1 == Self.capacity ? 0 : head + 1
        }
    }

    public static func == (a: Self, b: Self) -> Bool { a.samples == b.samples }
}

public struct Peripheral: Equatable, Sendable, Identifiable {
    // What every advertisement changes comes first, so that updating one of a thousand
    // peripherals touches as few cache lines as it can.
    public var rssi: Int?
    /// True when the backend stopped reporting RSSI (scan off, out of range): the last
    /// value is kept and shown as stale, never as 0 dBm.
    public var rssiStale: Bool = false
    public var lastSeen: Timestamp
    public var rssiHistory = RSSIHistory()
    public var advertisement: Advertisement
    public var id: PeripheralID
    public var address: String
    /// The name as the device gives it (GAP name or advertised local name): untrusted.
    public var name: String?
    public var firstSeen: Timestamp
    public var connectable: Bool
    public var connection: ConnectionState = .disconnected
    public var services: [GATTService]? = nil
    public var mtu: Int? = nil

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
    }

    /// A later report: only what it carries changes.
    public mutating func apply(_ r: AdvertisementReport, at: Timestamp) {
        advertisement.merge(r.advertisement)
        if let n = r.name ?? r.advertisement.localName { name = n }
        if let c = r.connectable { connectable = c }
        heard(rssi: r.rssi, at: at)
    }

    /// Exactly `apply(update.report, at:)`, without making the report.
    public mutating func apply(_ u: AdvertisingUpdate, at: Timestamp) {
        if let data = u.data { advertisement.manufacturerData.set(u.company, data) }
        heard(rssi: u.rssi, at: at)
    }

    /// What every advertisement, report or update, does: its RSSI (if it has one) is the
    /// current one and joins the history, and the peripheral was seen now.
    private mutating func heard(rssi: Int?, at: Timestamp) {
        if let rssi {
            self.rssi = rssi
            rssiStale = false
            rssiHistory.append(rssi)
        }
        lastSeen = at
    }

    public var displayName: String {
        if let n = name, !n.isEmpty { return n }
        return address
    }

    public func characteristic(_ id: CharacteristicID) -> (GATTService, GATTCharacteristic)? {
        for s in services ?? [] {
            if let c = s.characteristics.first(where: { $0.id == id }) { return (s, c) }
        }
        return nil
    }
}
