/// What a command without a screen was asked to do, from its command line. The app runs
/// none; `scan`, `services`, `read`, `write`, `notify`, `watch`, `monitor` and
/// `bench-ingest` each run one, on the same store and reducer as the app.
public enum Job: Equatable, Sendable {
    /// List what is heard for `duration` seconds; without one, a line per device heard,
    /// changed or gone, until stopped (`LiveScan`).
    case scan(duration: Double?)
    case services(address: String)
    /// `offset`: read from there on (0: the whole value).
    case read(address: String, uuid: BLEUUID, offset: UInt16)
    case write(address: String, uuid: BLEUUID, value: Bytes, type: WriteType)
    /// `write --file`: `data` in chunks of (MTU - 3) bytes, as writes of `type` (nil: without
    /// response where the characteristic allows it), framed (`StreamFraming`, ending in
    /// "EOM") or, with nil, as they are (`WriteStream`).
    case writeStream(address: String, uuid: BLEUUID, data: Bytes, type: WriteType?, framing: StreamFraming?)
    /// `read --descriptor`, `write --descriptor`: a descriptor of the characteristic `uuid`.
    case readDescriptor(address: String, uuid: BLEUUID, descriptor: BLEUUID)
    case writeDescriptor(address: String, uuid: BLEUUID, descriptor: BLEUUID, value: Bytes)
    /// Print notifications: `count` of them, for `duration` seconds, or (`until`) join
    /// them up to an end marker and print the whole message.
    case notify(address: String, uuid: BLEUUID, count: Int?, duration: Double?, until: StreamEnd?)
    /// Keep a subscription alive across link loss and fire the hook for each notification
    /// (no more often than `debounce` seconds).
    case watch(address: String, uuid: BLEUUID, debounce: Double)
    /// Print iBeacon regions entered and left, for `duration` seconds or until stopped.
    case monitor(duration: Double?)
    /// Scan until a device with this name appears (the signal-storm benchmark's marker).
    case scanUntilNamed(String)
    /// Pair with the device (Device1.Pair), answering the agent from `--passkey` / `--confirm`.
    case pair(address: String)
    /// Remove the device from bluetoothd (Adapter1.RemoveDevice): unpaired, its cache gone.
    case forget(address: String)
    /// Several devices at once (`notify A UUID B UUID`): each a job of its own, all run
    /// together (`JobParts`); done when all are.
    indirect case each([Job])

    /// The device the job works on, as typed (upper case).
    public var address: String? {
        switch self {
        case .scan, .monitor, .scanUntilNamed, .each: return nil
        case let .services(a), let .pair(a), let .forget(a), let .read(a, _, _), let .write(a, _, _, _), let .notify(a, _, _, _, _),
             let .watch(a, _, _), let .readDescriptor(a, _, _), let .writeDescriptor(a, _, _, _), let .writeStream(a, _, _, _, _):
            return a
        }
    }

    public var uuid: BLEUUID? {
        switch self {
        case .scan, .monitor, .scanUntilNamed, .services, .pair, .forget, .each: return nil
        case let .read(_, u, _), let .write(_, u, _, _), let .notify(_, u, _, _, _), let .watch(_, u, _),
             let .readDescriptor(_, u, _), let .writeDescriptor(_, u, _, _), let .writeStream(_, u, _, _, _): return u
        }
    }

    /// `read`: of the characteristic, or with `descriptor`, of that descriptor of it.
    public static func reading(address: String, uuid: BLEUUID, offset: UInt16, descriptor: BLEUUID?) -> Job {
        descriptor.map { .readDescriptor(address: address, uuid: uuid, descriptor: $0) } ?? .read(address: address, uuid: uuid, offset: offset)
    }

    /// `notify A UUID [B UUID ...]`: one device's, or each device's at once.
    public static func notifying(_ targets: [(address: String, uuid: BLEUUID)], count: Int?, duration: Double?, until: StreamEnd?) -> Job {
        let jobs = targets.map { Job.notify(address: $0.address, uuid: $0.uuid, count: count, duration: duration, until: until) }
        return jobs.count == 1 ? jobs[0] : .each(jobs)
    }

    /// `write`: to the characteristic with this type, or with `descriptor`, to that descriptor of it.
    public static func writing(address: String, uuid: BLEUUID, value: Bytes, type: WriteType, descriptor: BLEUUID?) -> Job {
        descriptor.map { .writeDescriptor(address: address, uuid: uuid, descriptor: $0, value: value) }
            ?? .write(address: address, uuid: uuid, value: value, type: type)
    }

    /// The descriptor a job reads or writes.
    public var descriptorUUID: BLEUUID? {
        switch self {
        case let .readDescriptor(_, _, d), let .writeDescriptor(_, _, d, _): return d
        default: return nil
        }
    }

    /// Runs until stopped: a signal ending it is success, not an interruption.
    public var isOpenEnded: Bool {
        switch self {
        case let .notify(_, _, count, _, until): return count == nil && until == nil
        case let .scan(duration): return duration == nil
        case .watch, .monitor, .scanUntilNamed: return true
        case .services, .read, .write, .writeStream, .pair, .forget, .readDescriptor, .writeDescriptor: return false
        case let .each(jobs): return jobs.allSatisfy(\.isOpenEnded)
        }
    }
}

/// Where a job is: the device is looked for, connected (through the one connection
/// lifecycle: connected, services resolved, descriptors read), worked on, left.
public enum JobPhase: Equatable, Sendable {
    case finding
    case connecting
    case working
    /// Disconnecting before exit with this status.
    case leaving(exitCode: Int32)
    case done(exitCode: Int32)
}

/// The timers a job sets (as effects); their firing comes back as `.jobTimerFired`.
public enum JobTimer: Hashable, Sendable {
    /// No such device heard in time.
    case find
    /// Not ready in time.
    case connect
    /// No answer to a read, write or subscription in time.
    case operation
    /// `scan --duration`, `notify --duration`, `monitor --duration` ran out.
    case duration
    /// `watch`: time to connect again.
    case reconnect
    /// A timer of one of several jobs (`Job.each`), by its place among them.
    indirect case part(Int, JobTimer)
    /// The disconnect before exit took too long: exit anyway.
    case linger
    /// `notify --until` of a plain stream: the message is whole; chunks arriving now came
    /// out of order.
    case settle
}

/// `notify --until MARKER [--framing plain|seq]`: the marker, and the framing (nil: what the
/// characteristic's user description announces, else plain).
public struct StreamEnd: Equatable, Sendable {
    public var marker: Bytes
    public var framing: StreamFraming?
    public init(marker: Bytes, framing: StreamFraming? = nil) { self.marker = marker; self.framing = framing }
}

/// A job and how far it got: plain state beside the app's, changed only by `JobReducer`.
public struct JobState: Equatable, Sendable {
    public var job: Job
    public var phase = JobPhase.finding
    public var target: PeripheralID?
    public var characteristic: CharacteristicID?
    /// `read --descriptor`, `write --descriptor`: the descriptor found.
    public var descriptor: AttributeID?
    /// Notifications received (notify, and the chunks of a message).
    public var notifications = 0
    /// `notify --until`: the message joined so far, then (a plain stream) the whole
    /// message while the job waits to see whether chunks still come (`.settle`).
    public var assembly: StreamAssembly?
    public var settling: StreamAssembly.Message?
    /// Chunks that came after the marker while settling.
    public var late = 0
    /// `notify --until`: the peer's Client Supported Features (0x2B29), read to learn whether
    /// this link has EATT bearers (`JobReducer.eattBit`), and what it said.
    public var clientFeatures: CharacteristicID?
    public var eatt: Bool?
    /// `watch`: connection attempts since the last subscription, for the backoff.
    public var linkAttempts = 0
    public var reconnectPending = false
    /// `write --file`: the stream and how far it got.
    public var stream: WriteStream?
    /// `watch --debounce`: when the hook last fired.
    public var lastFired: Timestamp?
    /// `monitor`: beacons already warned about (heard without an RSSI).
    public var unmeasuredWarned = 0
    /// `scan` without `--duration`: what its last line said about each device.
    var printed: [PeripheralID: LiveScan.Mark] = [:]
    /// The operation was refused for want of encryption and waits for the pairing it started.
    public var pairingOnDemand = false
    /// The link went down while a read or write waited for its answer: bluetoothd answers it
    /// a moment later (its ATT error 0x0e: the request dropped), and the failure says both.
    public var linkLost: DisconnectReason?

    /// `Job.each`: the state of each job, as if each were the only one.
    public var parts: [JobState] = []
    /// `Job.each`: the scan was stopped, no job looking for its device any more.
    var scanStopped = false

    public init(job: Job) {
        self.job = job
        if case let .each(jobs) = job { parts = jobs.map(JobState.init) }
    }

    public var exitCode: Int32? {
        if case let .done(code) = phase { return code }
        return nil
    }

    /// Still looking for the device it names among the advertisements heard.
    var isFindingDevice: Bool { phase == .finding && job.address != nil }

    /// `scan` without `--duration`.
    var isLiveScan: Bool { job == .scan(duration: nil) }
}

extension JobState {
    /// read, write, notify: an operation timer runs while the operation is under way.
    var hasOperationTimer: Bool {
        switch job {
        case .read, .write, .writeStream, .notify, .readDescriptor, .writeDescriptor: return true
        case .scan, .services, .monitor, .scanUntilNamed, .pair, .forget, .watch, .each: return false
        }
    }

    /// "read", "write", "descriptor read", "descriptor write", as failures begin.
    var operationName: String {
        switch job {
        case .write, .writeStream: return "write"
        case .readDescriptor: return "descriptor read"
        case .writeDescriptor: return "descriptor write"
        case .read, .scan, .services, .monitor, .scanUntilNamed, .pair, .forget, .watch, .each, .notify: return "read"
        }
    }

    /// read, write, and their descriptor kinds: one answer ends the work.
    var awaitsOneAnswer: Bool {
        switch job {
        case .read, .write, .readDescriptor, .writeDescriptor: return true
        case .scan, .services, .monitor, .scanUntilNamed, .pair, .forget, .watch, .each, .notify, .writeStream: return false
        }
    }

    /// Not leaving, not done.
    var isActive: Bool {
        switch phase {
        case .finding, .connecting, .working: return true
        case .leaving, .done: return false
        }
    }
}

extension ConnectionState {
    /// Asked for, not up yet.
    var isConnecting: Bool {
        if case .connecting = self { return true }
        return false
    }
}
