/// An error from the Bluetooth stack, named as BlueZ names it
/// (`org.bluez.Error.NotPermitted`), with its human message.
public struct BackendError: Error, Equatable, Sendable, CustomStringConvertible {
    public var name: String
    public var message: String
    /// Both made terminal-safe here, the one place every backend error is made (a D-Bus
    /// error's message is whatever the peer sent, escape sequences and all, and it reaches
    /// alerts, stderr, JSON lines and recordings), and bounded to 1 KiB.
    public init(name: String, message: String) {
        self.name = TerminalSafe.text(ReportBounds.prefix(name, bytes: 255))
        self.message = TerminalSafe.text(ReportBounds.prefix(message, bytes: 1024))
    }

    public static func notPermitted(_ m: String) -> Self { .init(name: "org.bluez.Error.NotPermitted", message: m) }
    public static func notConnected(_ m: String) -> Self { .init(name: "org.bluez.Error.NotConnected", message: m) }
    public static func failed(_ m: String) -> Self { .init(name: "org.bluez.Error.Failed", message: m) }
    public static func notSupported(_ m: String) -> Self { .init(name: "org.bluez.Error.NotSupported", message: m) }
    public static func inProgress(_ m: String) -> Self { .init(name: "org.bluez.Error.InProgress", message: m) }
    public static func invalidValueLength(_ m: String) -> Self {
        .init(name: "org.bluez.Error.InvalidValueLength", message: m)
    }

    /// `NotPermitted: Read not permitted`; BlueZ's catch-all `Failed` says nothing the
    /// message does not (and follows "… failed:"), so only its message:
    /// `Operation failed with ATT error: 0x80`.
    public var description: String {
        let short = name.split(separator: ".").last.map(String.init) ?? name
        if message.isEmpty { return short }
        return short == "Failed" ? message : "\(short): \(message)"
    }
}

/// A property bluetoothd sent that could not be read: at another D-Bus type than BlueZ
/// documents (an RSSI as an int64), or missing where every object of its kind has it (a
/// device without its Address). The backend says each object's property once.
public struct UnreadableProperty: Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        /// Sent with the D-Bus signature `sent` ("x") where BlueZ's is `expected` ("n").
        case wrongType(sent: String, expected: String)
        /// Not sent at all: the object it belongs to is left out.
        case missing
    }

    /// What the property belongs to: a device's address, or, for an object without one,
    /// its D-Bus path.
    public var object: String
    public var property: String
    public var problem: Problem

    /// Every string made terminal-safe and bounded here, the one place these are made:
    /// all of it came from the bus (or from a recording someone sent).
    public init(object: String, property: String, problem: Problem) {
        func safe(_ s: String, _ bytes: Int) -> String { TerminalSafe.text(ReportBounds.prefix(s, bytes: bytes)) }
        self.object = safe(object, 255)
        self.property = safe(property, 64)
        switch problem {
        case let .wrongType(sent, expected): self.problem = .wrongType(sent: safe(sent, 64), expected: safe(expected, 64))
        case .missing: self.problem = .missing
        }
    }

    /// "E4:1C:22:5D:90:11: bluetoothd sent RSSI as int64 (x), not int16 (n); ignored"
    public var description: String {
        switch problem {
        case let .wrongType(sent, expected):
            return "\(object): bluetoothd sent \(property) as \(Self.typeName(sent)), not \(Self.typeName(expected)); ignored"
        case .missing:
            return "\(object): bluetoothd sent no \(property); the object is ignored"
        }
    }

    /// "int64 (x)", "array (as)": a D-Bus signature as people say it.
    public static func typeName(_ signature: String) -> String {
        let names: [Character: String] = ["y": "byte", "b": "boolean", "n": "int16", "q": "uint16", "i": "int32",
                                          "u": "uint32", "x": "int64", "t": "uint64", "d": "double", "s": "string",
                                          "o": "object path", "g": "signature", "v": "variant", "h": "file descriptor",
                                          "(": "struct"]
        let name = signature.hasPrefix("a{") ? "dictionary" : signature.hasPrefix("a") ? "array"
            : signature.first.flatMap { names[$0] } ?? "value"
        return "\(name) (\(signature))"
    }
}

public enum AdapterPower: String, Equatable, Sendable {
    case absent, poweredOff = "powered-off", on
}

public struct AdapterStatus: Equatable, Sendable {
    public var name: String
    public var power: AdapterPower
    public var discovering: Bool
    public init(name: String, power: AdapterPower, discovering: Bool) {
        self.name = name; self.power = power; self.discovering = discovering
    }
}

/// One advertising report (or, over BlueZ, a Device1 property change) for a peripheral.
/// Optional fields were not part of this report.
public struct AdvertisementReport: Equatable, Sendable {
    public var id: PeripheralID
    public var address: String
    public var name: String?
    public var rssi: Int?
    public var connectable: Bool?
    public var advertisement: Advertisement
    public init(id: PeripheralID, address: String, name: String?, rssi: Int?, connectable: Bool?,
                advertisement: Advertisement) {
        self.id = id; self.address = address; self.name = name; self.rssi = rssi
        self.connectable = connectable; self.advertisement = advertisement
    }
}

public enum DisconnectReason: Equatable, Sendable, CustomStringConvertible {
    case remote          // the peripheral ended the link
    case timeout         // supervision timeout: out of range, powered off
    case local           // we asked for it
    case other(String)

    public var description: String {
        switch self {
        case .remote: return "remote device ended the connection"
        case .timeout: return "connection timed out"
        case .local: return "disconnected by user"
        case let .other(s): return s
        }
    }

    public var code: String {
        switch self {
        case .remote: return "remote"
        case .timeout: return "timeout"
        case .local: return "local"
        case .other: return "other"
        }
    }
}

/// How a characteristic is written (BlueZ's WriteValue option "type"): a write request
/// (answered; BlueZ makes it a long write, Prepare/Execute Write, when the value is longer
/// than MTU - 3), a write command (no answer), or a reliable write (prepared, checked
/// against what the server echoes, then executed; needs the reliable-write extended property).
public enum WriteType: String, Equatable, Sendable, CaseIterable {
    case request, command, reliable

    /// "write request", "write without response", "reliable write": as the screens say it.
    public var title: String {
        switch self {
        case .request: return "write request"
        case .command: return "write without response"
        case .reliable: return "reliable write"
        }
    }

    /// The characteristic's properties allow this type.
    public func isAllowed(by p: CharacteristicProperties) -> Bool {
        switch self {
        case .request: return p.contains(.write)
        case .command: return p.contains(.writeWithoutResponse)
        case .reliable: return p.contains(.reliableWrite)
        }
    }

    /// What a write to a characteristic with these properties is unless asked otherwise:
    /// a request when it takes one, else a command.
    public static func preferred(for p: CharacteristicProperties) -> WriteType {
        !p.contains(.write) && p.contains(.writeWithoutResponse) ? .command : .request
    }

    /// A write request longer than one PDU carries (MTU - 3 bytes): BlueZ writes it long.
    /// Not said when the link's MTU is not known (BlueZ before 5.62 does not report it).
    public static func isLong(_ count: Int, type: WriteType, mtu: Int?) -> Bool {
        guard let mtu else { return false }
        return type != .command && count > max(20, mtu - 3)
    }
}

/// Facts pushed by a backend, one case per fact. Each arrives with a timestamp in
/// `Action.backend(_, at:)`.
public enum BackendEvent: Equatable, Sendable {
    case adapterChanged(AdapterStatus)
    case advertisementReceived(AdvertisementReport)
    /// Reports that arrived together (one read of a busy bus), in order, at one time: the
    /// same facts as that many `advertisementReceived`. Consumers that react to single
    /// facts take them one by one through `forEachFact`.
    case advertisementsReceived([AdvertisementReport])
    /// The backend stopped hearing RSSI for this peripheral (BlueZ clears it when a scan stops).
    case rssiLost(PeripheralID)
    case peripheralRemoved(PeripheralID)
    case connecting(PeripheralID, attempt: Int)
    case connected(PeripheralID)
    case servicesResolved(PeripheralID, [GATTService], mtu: Int?)
    case connectFailed(PeripheralID, BackendError)
    case disconnected(PeripheralID, DisconnectReason)
    case readCompleted(CharacteristicID, Result<Bytes, BackendError>)
    case writeCompleted(CharacteristicID, Bytes, WriteType, BackendError?)
    case notifyChanged(CharacteristicID, enabled: Bool, BackendError?)
    /// Notifications come through a socket of their own (BlueZ's AcquireNotify), with the
    /// link's MTU; sent just before `notifyChanged(enabled: true)`.
    case notificationsAcquired(CharacteristicID, mtu: Int)
    /// Writes without response to this characteristic go through a socket of their own
    /// (BlueZ's AcquireWrite), each packet one ATT Write Command of at most `mtu` - 3 bytes.
    case writeAcquired(CharacteristicID, mtu: Int)
    /// No socket for them (`reason`: the bus passes no file descriptors, the characteristic
    /// has no WriteAcquired, BlueZ refused, or BLEEXPLR_WRITE=value): WriteValue, a call a
    /// write. `mtu`: the link's, as the characteristic says it now (BlueZ 5.66 exports a
    /// cached characteristic without its MTU and does not say it when the link comes up).
    case writeNotAcquired(CharacteristicID, reason: String, mtu: Int?)
    /// Every write handed over for this characteristic is in bluetoothd's hands (an
    /// acquired socket read to its end, then closed); the answer to `flushWrites`.
    case writesFlushed(CharacteristicID)
    case valueNotified(CharacteristicID, Bytes)
    /// Notifications of one characteristic read together (AcquireNotify's socket: several
    /// wait there in a flood), in order, each at the time the kernel queued it: the same
    /// facts as that many `valueNotified`, reduced in one action.
    case valuesNotified(CharacteristicID, [NotifiedValue])
    case descriptorRead(AttributeID, Result<Bytes, BackendError>)
    /// A descriptor write (GattDescriptor1.WriteValue) was answered: these bytes, or this error.
    case descriptorWritten(AttributeID, Bytes, BackendError?)
    case scanFailed(BackendError)
    case failure(BackendError)
    // Pairing (org.bluez.Agent1 calls to our agent, Device1.Pair and its properties)
    /// BlueZ asks our agent something; answered with `BackendCommand.answerAgent(id, _)`.
    case agentRequested(AgentRequest)
    /// BlueZ gave up on the request it made (Agent1.Cancel): timeout, or the peer cancelled.
    case agentCancelled
    /// bluetoothd no longer uses our agent (Agent1.Release).
    case agentReleased
    case pairCompleted(PeripheralID, BackendError?)
    /// Paired, Bonded, Trusted, Blocked or AddressType of a device, as now known.
    case bondChanged(PeripheralID, Bond)
    /// A property bluetoothd sent could not be read (of the wrong type, or missing): said
    /// once per object and property, however often it is sent.
    case propertyUnreadable(UnreadableProperty)
}

/// One notification of a batch (`BackendEvent.valuesNotified`): its bytes and its time.
public struct NotifiedValue: Equatable, Sendable {
    public var bytes: Bytes
    public var at: Timestamp
    public init(_ bytes: Bytes, at: Timestamp) { self.bytes = bytes; self.at = at }
}

extension BackendEvent {
    /// The single facts this event (sent at `at`) stands for, in order, each with its time:
    /// a batch of reports is its reports one by one at `at`, a batch of notifications its
    /// values one by one at their own times, anything else is itself. The one place a batch
    /// is expanded for code that takes facts one by one (recordings; a batch of notifications
    /// is recorded by RecordingFormat.appendLines itself, its characteristic named once).
    public func forEachFact(at: Timestamp, _ body: (BackendEvent, Timestamp) throws -> Void) rethrows {
        switch self {
        case let .advertisementsReceived(reports):
            for r in reports { try body(.advertisementReceived(r), at) }
        case let .valuesNotified(cid, values):
            for v in values { try body(.valueNotified(cid, v.bytes), v.at) }
        default:
            try body(self, at)
        }
    }
}

/// What the app asks a backend to do; results come back later as BackendEvents.
public enum BackendCommand: Equatable, Sendable {
    case startScan
    case stopScan
    case connect(PeripheralID)
    case disconnect(PeripheralID)
    /// Reads from `offset` on (BlueZ: ReadValue {offset}); 0 is the whole value (BlueZ
    /// does the long read itself).
    case read(PeripheralID, CharacteristicID, offset: UInt16 = 0)
    case write(PeripheralID, CharacteristicID, Bytes, WriteType)
    case setNotify(PeripheralID, CharacteristicID, Bool)
    /// Asks for a socket to write without response through (BlueZ's AcquireWrite, where
    /// the bus and the characteristic allow it); answered by `writeAcquired` or
    /// `writeNotAcquired`. While acquired, `write(..., .command)` goes through the socket.
    case acquireWrite(PeripheralID, CharacteristicID)
    /// Answered by `writesFlushed` once bluetoothd holds every write handed over (the
    /// socket, if any, is then let go).
    case flushWrites(PeripheralID, CharacteristicID)
    case readDescriptor(PeripheralID, AttributeID)
    /// GattDescriptor1.WriteValue; never the CCCD (0x2902), which notifications own.
    case writeDescriptor(PeripheralID, AttributeID, Bytes)
    /// Adapter power (BlueZ: Adapter1.Powered; rfkill may refuse it).
    case setPowered(Bool)
    /// The answer to the agent request with this id.
    case answerAgent(Int, AgentAnswer)
    /// Device1.Pair; completes as `pairCompleted`.
    case pair(PeripheralID)
    case setTrusted(PeripheralID, Bool)
    case setBlocked(PeripheralID, Bool)
    /// Adapter1.RemoveDevice: unpairs and forgets the device (it reappears when heard again).
    case forget(PeripheralID)
}

/// A Bluetooth backend: BlueZ over D-Bus, the simulated world, or a replayed recording.
/// Everything runs on the main event loop: `start` hands over the loop to schedule on
/// and the sink for events (each with the time it happened); commands return at once
/// and complete later as events.
@MainActor
public protocol Backend: AnyObject {
    /// "simulated", "bluez", "replay": goes into recordings.
    var kind: String { get }
    func start(loop: EventLoop, emit: @escaping @MainActor (BackendEvent, Timestamp) -> Void)
    func execute(_ command: BackendCommand)
    /// Stops what this process started (scan, notifications) before exit.
    func shutdown()
}
