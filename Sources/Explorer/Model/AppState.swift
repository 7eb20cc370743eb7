public enum Route: Equatable, Sendable {
    case scan
    /// The full advertisement of a device, before (or without) connecting.
    case details(PeripheralID)
    case device(PeripheralID)
    case characteristic(PeripheralID, CharacteristicID)
    /// iBeacon regions (`b`): inside or outside, the beacons holding them, transitions.
    case regions
}

public enum SortOrder: String, CaseIterable, Equatable, Sendable {
    case rssi = "RSSI", name, lastSeen = "last seen", firstSeen = "first seen", interval
    public var next: SortOrder {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }
}

public struct Alert: Equatable, Sendable {
    public enum Level: Equatable, Sendable { case info, warning, error }
    public var level: Level
    public var message: String
    public var at: Timestamp
    public init(_ level: Level, _ message: String, at: Timestamp) {
        self.level = level; self.message = message; self.at = at
    }
}

public enum ValueOrigin: String, Equatable, Sendable { case read, notify, write }

public struct ValueEntry: Equatable, Sendable {
    public var at: Timestamp
    /// The value read, written or notified; for a failed write, the bytes it tried.
    public var bytes: Bytes
    public var origin: ValueOrigin
    /// Why a read or write failed (nil: it did not). A failure is history, not a value.
    public var error: String?
    public init(at: Timestamp, bytes: Bytes, origin: ValueOrigin, error: String? = nil) {
        self.at = at; self.bytes = bytes; self.origin = origin; self.error = error
    }
}

/// Latest value and bounded history of one characteristic, failed reads and writes
/// included.
public struct ValueLog: Equatable, Sendable {
    public static let capacity = 256
    public private(set) var history: [ValueEntry] = []   // oldest first
    public private(set) var count = 0                     // all values ever seen
    public private(set) var failures = 0                  // all failed reads and writes
    /// The newest value that is one (not a failure).
    public private(set) var latest: ValueEntry?
    public init() {}
    public mutating func append(_ e: ValueEntry) {
        if history.count == Self.capacity { history.removeFirst(history.count / 4) }
        history.append(e)
        if e.error == nil { count += 1; latest = e } else { failures += 1 }
    }

    /// Values notified together, each at its own time.
    public mutating func append(notified values: [NotifiedValue]) {
        for v in values { append(ValueEntry(at: v.at, bytes: v.bytes, origin: .notify)) }
    }
}

public enum RecordingState: Equatable, Sendable {
    case off
    case on(path: String)
}

public struct ScanScreenState: Equatable, Sendable {
    public var cursor: PeripheralID?
    public var filter = ""
    public var sort: SortOrder = .rssi
    /// Hide devices weaker than this (dBm); nil shows all.
    public var minRSSI: Int?
    public var connectableOnly = false
    /// Off by default: unnamed devices are often the interesting ones.
    public var hideUnnamed = false

    /// Some device may be hidden: by the filter text, the RSSI floor, `c` or `u`.
    public var isFiltering: Bool { !filter.isEmpty || minRSSI != nil || connectableOnly || hideUnnamed }
}

public struct DeviceScreenState: Equatable, Sendable {
    /// Service or characteristic path under the cursor.
    public var cursor: AttributeID?
    public var collapsed: Set<AttributeID> = []
}

public struct ScreenSize: Equatable, Sendable {
    public var width: Int, height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
}

/// Everything the screens show. A plain value: the reducer changes it, screens read it.
public struct AppState: Equatable, Sendable {
    public var now: Timestamp
    public var adapter = AdapterStatus(name: "", power: .absent, discovering: false)
    /// True while the user wants a scan running (the adapter may lag behind).
    public var scanWanted = true
    /// Every peripheral heard, and the scan list's order of them (kept to the `scan` settings).
    public var peripherals = Peripherals() { didSet { peripherals.arrange(scan) } }
    public var route: Route = .scan
    public var scan = ScanScreenState() { didSet { peripherals.arrange(scan) } }
    public var device = DeviceScreenState()
    /// Scroll offset of the value history on the characteristic screen (0 = newest).
    public var historyOffset = 0
    /// The peripheral the user asked to connect to, until it is connected or gave up.
    public var pendingConnection: PeripheralID?
    public var values: [CharacteristicID: ValueLog] = [:]
    public var subscriptions: Set<CharacteristicID> = []
    /// Subscriptions whose values come through a socket (AcquireNotify), with its MTU.
    public var notifySockets: [CharacteristicID: Int] = [:]
    /// Every link held (the top bar lists them; `1`–`9` go to their screens) and where each screen was left.
    public var links = Links()
    /// Links that dropped under the user, whose screen stays open (`LinkLoss`).
    public var linkLoss: [PeripheralID: LinkLoss] = [:]
    /// Values written before, per characteristic, as far as loaded (`↑` in the write line).
    public var writeHistory = WriteHistory()
    /// Descriptor values read (0x2900, 0x2901, 0x2903 and 0x2904 on connecting; any with `D`) or written.
    public var descriptorValues: [AttributeID: Bytes] = [:]
    /// `W`: the write type chosen per characteristic (absent: `WriteType.preferred`).
    public var writeTypes: [CharacteristicID: WriteType] = [:]
    /// `D` on a characteristic's screen: the descriptor selected (read as it is; `w` writes it).
    public var selectedDescriptor: AttributeID?
    /// Descriptor reads still owed before a connected peripheral is ready.
    public var descriptorReads: [PeripheralID: Set<AttributeID>] = [:]
    /// Display format chosen per characteristic (`f`); decoded when not chosen.
    public var valueFormats: [CharacteristicID: ValueFormat] = [:]
    /// Characteristics shown as reassembled messages (`m`), with their assembly so far.
    public var streams: [CharacteristicID: StreamAssembly] = [:]
    /// The end marker a new message view (`m`) reassembles up to ("EOM" unless set, e.g.
    /// from the command line). Empty: never complete, everything stays partial.
    public var streamMarker: Bytes = Array("EOM".utf8)
    public var input: InputLine?
    public var alert: Alert?
    public var lastError: String?
    public var recording: RecordingState = .off
    /// Where `R` records when no `--record` path was given.
    public var recordingDefaultPath: String?
    public var showHelp = false
    /// What happened, for the log panel (`L`).
    public var log = EventLog()
    /// The help's first line shown (it scrolls when the terminal is small).
    public var helpTop = 0
    /// The terminal's size, as the app last drew it (the help's scroll depends on it).
    public var screenSize = ScreenSize(width: 80, height: 24)
    public var quitting = false
    public var backendKind = "simulated"
    /// An RSSI discovery filter is set (BlueZ): reports without RSSI are dropped.
    public var rssiFilterOn = false
    /// When the current scan started (the adapter began discovering).
    public var scanStartedAt: Timestamp?
    /// The command this process runs without a screen, and how far it got (nil: the app).
    /// Started with `run(_:)`; changed in place by JobReducer at every action. No observer
    /// here: with one, each change copied the whole job out and back (a quarter of a
    /// notification's CPU, perf 2026-12-06).
    public var job: JobState?

    /// Runs `job` without a screen (nil: the app). A command sorts the scan list when it
    /// asks for it; the app keeps it sorted as reports come.
    public mutating func run(_ job: JobState?) {
        self.job = job
        peripherals.keepOrder(job == nil)
    }
    /// `serve`: the peripheral served, what centrals did, the stream (nil: not serving).
    public var serve: ServeState?
    /// iBeacon regions (`--region`) and whether each is inside.
    public var regionWatch = RegionWatch()
    /// `--key`: bind keys that open encrypted advertisements, by upper-case address. Secret:
    /// never recorded.
    public var bindKeys: [String: Bytes] = [:]
    /// Actions attached with `a`, fired on each notification of their characteristic.
    public var attachedHooks: [CharacteristicID: HookTarget] = [:]
    /// How often each attached action fired, and what happened to its latest event.
    public var hookActivity: [CharacteristicID: HookActivity] = [:]
    /// Where the replay is, when the backend is a recording played back.
    public var replay: ReplayStatus?
    /// `--agent`, `--passkey`, `--confirm`.
    public var agent = AgentSettings()
    /// What BlueZ's agent call asks the user, until answered or cancelled.
    public var agentPrompt: AgentPrompt?
    /// The device whose pairing was asked for (Device1.Pair under way).
    public var pairing: PeripheralID?
    /// The device `X` asked to forget, until the user says y or n.
    public var forgetAsked: PeripheralID?
    /// `C` asked it (clear bluetoothd's cache): after forgetting, connect again.
    public var forgetThenConnect = false
    /// Forgotten by `C`: connected again as soon as it is heard.
    public var reconnectAfterForget: PeripheralID?
    /// Reads, writes and subscriptions under way, for encryption on demand (`OnDemand`).
    public var operations: [CharacteristicID: GATTOperation] = [:]

    /// A device not heard for this long is marked stale, and removed after `expireAfter`.
    public static let staleAfter = 10.0
    public static let expireAfter = 60.0

    public init(now: Timestamp) { self.now = now }

    /// The Characteristic User Description (0x2901) the device gave, if read.
    public func userDescription(_ c: GATTCharacteristic) -> String? {
        guard let d = c.descriptors.first(where: { $0.uuid == GATTDescriptor.userDescriptionUUID }),
              let b = descriptorValues[d.id], !b.isEmpty else {
            return nil
        }
        return String(decoding: b, as: UTF8.self)
    }

    /// The Characteristic Presentation Format (0x2904) the device gave, if read and valid.
    public func presentationFormat(_ c: GATTCharacteristic) -> PresentationFormat? {
        guard let d = c.descriptors.first(where: { $0.uuid == GATTDescriptor.presentationFormatUUID }),
              let b = descriptorValues[d.id] else { return nil }
        return PresentationFormat(b)
    }

    /// The default meaning of a value: the device's own presentation format when it gave
    /// one that covers the value, else the decoder for its UUID.
    public func decoded(_ c: GATTCharacteristic, _ b: Bytes) -> String? {
        decodedValue(c, b)?.text
    }

    /// The number a value carries, for sparklines, by the same rule as `decoded`.
    public func number(_ c: GATTCharacteristic, _ b: Bytes) -> Double? {
        if let f = presentationFormat(c), f.render(b) != nil { return f.number(b) }
        return ValueDecoder.number(c.uuid, b)
    }

    public func isStale(_ p: Peripheral) -> Bool {
        !p.connection.isLinkUp && now - p.lastSeen > Self.staleAfter
    }

    /// The other addresses the same beacon was heard under (a device that rotates its
    /// random address sends the same beacon from each): by `Beacon.identity`, as `monitor`
    /// matches beacons by what they say rather than by address.
    public func sameEmitter(as id: PeripheralID) -> [Peripheral] {
        guard let mine = peripherals[id]?.advertisement.beacons.compactMap(\.identity), !mine.isEmpty else { return [] }
        return peripherals.values.filter { p in
            p.id != id && p.advertisement.beacons.contains { $0.identity.map(mine.contains) ?? false }
        }.sorted { $0.lastSeen > $1.lastSeen }
    }
}

/// An attached action's counters for the characteristic screen and the status bar.
public struct HookActivity: Equatable, Sendable {
    public var fired = 0
    public var delivered = 0
    public var problems = 0
    public var last: DeliveryReport?
    public init() {}

    mutating func note(_ r: DeliveryReport) {
        last = r
        switch r {
        case .delivered: delivered += 1
        case .rejected, .gaveUp, .dropped, .failed: problems += 1
        case .queued, .retrying: break
        }
    }
}

extension AppState {
    /// How `w` writes this characteristic: the type chosen with `W` while its properties
    /// allow it, else a request when it takes one, else a command.
    public func writeType(_ c: GATTCharacteristic) -> WriteType {
        if let t = writeTypes[c.id], t.isAllowed(by: c.properties) { return t }
        return .preferred(for: c.properties)
    }

    /// The descriptor selected with `D`, when it belongs to the characteristic open.
    public func selectedDescriptor(of c: GATTCharacteristic) -> GATTDescriptor? {
        guard let id = selectedDescriptor else { return nil }
        return c.descriptors.first { $0.id == id }
    }
}
