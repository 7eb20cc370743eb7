/// What the peripheral screen shows of a running `serve`: advertising state, the centrals
/// seen, subscriptions and the latest requests. A plain value, changed only by `apply`.
public struct ServeState: Equatable, Sendable {
    public enum Advertising: Equatable, Sendable {
        case registering, advertising(adapter: String), failed(String), bluezGone, stopped
    }

    public struct Entry: Equatable, Sendable {
        public var at: Timestamp
        public var what: String
        public var uuid: BLEUUID?
        public var central: String?
        public var bytes: Bytes?
    }

    public static let logLimit = 200

    public var name: String?
    public var source: String
    public var services: [ServiceSpec]
    public var advertising = Advertising.registering
    /// Centrals by address, with when each last asked for something. (BlueZ names the
    /// central in ReadValue/WriteValue options; StartNotify does not say who.)
    public var centrals: [String: Timestamp] = [:]
    public var subscriptions: Set<BLEUUID> = []
    /// Newest last.
    public var log: [Entry] = []
    public var stream: String?
    /// The adapter it serves on.
    public var adapter: String
    /// `--stream`: the file being sent, and how far.
    public var sending: StreamSend?
    /// `--receive`: what came, and where it goes; a line of it for the screen.
    public var receiving: StreamReceive?
    public var received: String?
    /// Registered at least once (a first registration that fails ends `serve`).
    public var everRegistered = false
    public var stopping = false
    public var exitCode: Int32 = 0

    public init(spec: PeripheralSpec, source: String, adapter: String = "hci0", stream: StreamSend? = nil,
                receive: StreamReceive? = nil) {
        receiving = receive
        name = spec.localName
        self.source = source
        services = spec.services
        self.adapter = adapter
        sending = stream
    }

    public mutating func apply(_ e: ServeEvent, at: Timestamp) {
        func add(_ what: String, _ c: CharacteristicEvent?, _ bytes: Bytes? = nil) {
            if let a = c?.central { centrals[a] = at }
            log.append(Entry(at: at, what: what, uuid: c?.uuid, central: c?.central, bytes: bytes))
            if log.count > Self.logLimit { log.removeFirst(log.count - Self.logLimit) }
        }
        switch e {
        case let .registered(adapter): advertising = .advertising(adapter: adapter); add("registered on \(adapter)", nil)
        case let .registrationFailed(m): advertising = .failed(m); add("error: \(m)", nil)
        case .bluezGone: advertising = .bluezGone; subscriptions = []; add("bluetoothd went away", nil)
        case .bluezReturned: advertising = .registering; add("bluetoothd is back", nil)
        case .advertisementReleased: add("advertisement released by BlueZ", nil)
        case let .read(c, _, b): add(c.descriptor ? "read descriptor" : "read", c, b)
        case let .written(c, b, type, _): add(type == "command" ? "write (no response)" : "write", c, b)
        case let .subscribed(c): subscriptions.insert(c.uuid); add("subscribed", c)
        case let .acquired(c, mtu): subscriptions.insert(c.uuid); add("subscribed (socket, MTU \(mtu))", c)
        case let .unsubscribed(c): subscriptions.remove(c.uuid); add("unsubscribed", c)
        case let .confirmed(c): add("confirmed", c)
        case .unregistered: advertising = .stopped; subscriptions = []; add("unregistered", nil)
        }
    }

    /// A line from the runner (a notification sent, a stream's progress).
    public mutating func note(_ what: String, uuid: BLEUUID? = nil, bytes: Bytes? = nil, at: Timestamp) {
        log.append(Entry(at: at, what: what, uuid: uuid, central: nil, bytes: bytes))
        if log.count > Self.logLimit { log.removeFirst(log.count - Self.logLimit) }
    }
}
