/// The recording format (docs/recording.md, docs/recording.schema.json): JSON Lines, a
/// header first, then one object per event, each with a wall-clock `t` in milliseconds.
public enum RecordingFormat {
    public static let version = 1

    public struct Header: Sendable {
        public var started: Timestamp
        public var backend: String
        public var adapter: String
        public var seed: UInt64?
        public init(started: Timestamp, backend: String, adapter: String, seed: UInt64?) {
            self.started = started; self.backend = backend; self.adapter = adapter; self.seed = seed
        }
    }

    public static func headerLine(_ h: Header) -> String {
        var j = JSONLine()
        j.string("type", "header")
        j.int("format", version)
        j.string("bleexplr", BleexplrVersion.current)
        j.time("started", h.started)
        j.string("backend", h.backend)
        j.string("adapter", h.adapter)
        if let seed = h.seed { j.string("seed", String(seed)) }
        return j.finish()
    }

    /// Every line an action records, in order, each closed and ended with a newline, added
    /// to `buffer` (a recorder's); how many. One line per fact, so a batch of advertisements
    /// records exactly the lines its reports would one by one (a recording never holds a
    /// batch). `state` is the state after the action.
    /// `kept`: the lines of the last notifications (`NotificationLines`: what their lines
    /// share, found and written once), kept for the next ones. They stay right while nothing
    /// but notifications happened: a notification changes neither a characteristic's name
    /// nor how its values decode, and any other action lets them go. A recorder sees every
    /// action, so naming them again once a batch (9,500 instructions, callgrind 2026-12-06)
    /// is left for a batch after something else happened.
    @discardableResult
    static func appendLines(for action: Action, state: AppState, to buffer: inout Bytes,
                            reusing kept: inout NotificationLines?) -> Int {
        if case let .backend(.valuesNotified(cid, values), _) = action {
            if kept?.characteristic != cid { kept = NotificationLines(cid, state) }
            for v in values { kept!.append(v.bytes, at: v.at, to: &buffer) }
            return values.count
        }
        if case let .backend(.valueNotified(cid, bytes), at) = action {
            if kept?.characteristic != cid { kept = NotificationLines(cid, state) }
            kept!.append(bytes, at: at, to: &buffer)
            return 1
        }
        kept = nil
        var count = 0
        if case let .backend(event, at) = action {
            event.forEachFact(at: at) { fact, t in
                if let l = json(for: .backend(fact, at: t), state: state) { l.appendLine(to: &buffer); count += 1 }
            }
        } else if let l = json(for: action, state: state) {
            l.appendLine(to: &buffer)
            count += 1
        }
        return count
    }

    /// The lines of `appendLines`, as Strings without their newlines.
    public static func lines(for action: Action, state: AppState) -> [String] {
        var buffer = Bytes()
        var none: NotificationLines?
        appendLines(for: action, state: state, to: &buffer, reusing: &none)
        return buffer.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The line for an action, or nil when the action is not a recorded event (or is a
    /// batch, which has a line per report: see `appendLines`).
    /// `state` is the state after the action, used to name what paths point at.
    public static func line(for action: Action, state: AppState) -> String? {
        if case .backend(.valueNotified, _) = action { return lines(for: action, state: state).first }
        return json(for: action, state: state)?.finish()
    }

    /// `line(for:state:)` before it is closed: a recorder takes its bytes as they are.
    static func json(for action: Action, state: AppState) -> JSONLine? {
        if case let .hookReported(report, _) = action { return hookJSON(report, at: state.now) }
        if case let .commandReported(message, problem) = action {
            var j = JSONLine()
            j.time("t", state.now); j.string("type", "command"); j.string("message", message); j.bool("problem", problem)
            return j
        }
        guard case let .backend(event, at) = action else { return nil }
        var j = JSONLine()
        j.time("t", at)
        switch event {
        case let .adapterChanged(a):
            j.string("type", "adapter")
            j.string("adapter", a.name)
            j.string("power", a.power.rawValue)
            j.bool("discovering", a.discovering)
        case let .advertisementReceived(r):
            j.string("type", "advertisement")
            j.string("address", r.address)
            j.string("name", r.name)
            j.int("rssi", r.rssi)
            j.bool("connectable", r.connectable)
            advertisement(&j, r.advertisement)
        case .advertisementsReceived, .valuesNotified:
            return nil   // one line per report, per value: appendLines
        case let .rssiLost(id):
            j.string("type", "rssi-lost")
            j.string("address", id.rawValue)
        case let .peripheralRemoved(id):
            j.string("type", "removed")
            j.string("address", id.rawValue)
        case let .connecting(id, attempt):
            connection(&j, id, "connecting")
            j.int("attempt", attempt)
        case let .connected(id):
            connection(&j, id, "connected")
        case let .servicesResolved(id, services, mtu):
            j.string("type", "services")
            j.string("address", id.rawValue)
            j.int("mtu", mtu)
            j.raw("services", JSONLine.array(services.map(serviceJSON)))
        case let .connectFailed(id, error):
            connection(&j, id, "failed")
            self.error(&j, error)
        case let .disconnected(id, reason):
            connection(&j, id, "disconnected")
            j.string("reason", reason.code)
            j.string("message", reason.description)
        case let .readCompleted(cid, result):
            j.string("type", "read")
            let c = characteristic(&j, cid, state)
            switch result {
            case let .success(bytes): value(&j, c, bytes, state)
            case let .failure(e): error(&j, e)
            }
        case let .writeCompleted(cid, bytes, type, err):
            j.string("type", "write")
            characteristic(&j, cid, state)
            j.string("writeType", type.rawValue)
            j.hex("hex", bytes)
            if let err { error(&j, err) }
        case let .notifyChanged(cid, enabled, err):
            j.string("type", "notify-state")
            characteristic(&j, cid, state)
            j.bool("enabled", enabled)
            if let err { error(&j, err) }
        case let .notificationsAcquired(cid, mtu):
            j.string("type", "notify-acquired")
            characteristic(&j, cid, state)
            j.int("mtu", mtu)
        case let .writeAcquired(cid, mtu):
            j.string("type", "write-acquired")
            characteristic(&j, cid, state)
            j.int("mtu", mtu)
        case let .writeNotAcquired(cid, reason, mtu):
            j.string("type", "write-not-acquired")
            characteristic(&j, cid, state)
            j.string("message", reason)
            j.int("mtu", mtu)
        case let .writesFlushed(cid):
            j.string("type", "writes-flushed")
            characteristic(&j, cid, state)
        case .valueNotified:
            return nil   // NotificationLines: appendLines
        case let .descriptorRead(did, result):
            j.string("type", "descriptor-read")
            j.string("path", did.path)
            switch result {
            case let .success(bytes): j.hex("hex", bytes)
            case let .failure(e): error(&j, e)
            }
        case let .descriptorWritten(did, bytes, err):
            j.string("type", "descriptor-write")
            j.string("path", did.path)
            j.hex("hex", bytes)
            if let err { error(&j, err) }
        case let .scanFailed(e):
            j.string("type", "error")
            j.string("context", "scan")
            error(&j, e)
        case let .failure(e):
            j.string("type", "error")
            j.string("context", "backend")
            error(&j, e)
        case let .agentRequested(r):
            // What was asked, never the passkey or PIN (shown or to be typed).
            j.string("type", "agent")
            j.string("address", r.device.rawValue)
            j.string("request", r.kind.code)
        case .agentCancelled:
            j.string("type", "agent"); j.string("request", "cancelled")
        case .agentReleased:
            j.string("type", "agent"); j.string("request", "released")
        case let .pairCompleted(id, err):
            j.string("type", "pair")
            j.string("address", id.rawValue)
            if let err { error(&j, err) }
        case let .bondChanged(id, b):
            j.string("type", "bond")
            j.string("address", id.rawValue)
            j.bool("paired", b.paired); j.bool("bonded", b.bonded); j.bool("trusted", b.trusted); j.bool("blocked", b.blocked)
            j.string("addressType", b.addressType)
        case let .propertyUnreadable(p):
            j.string("type", "unreadable")
            j.string("object", p.object)
            j.string("property", p.property)
            switch p.problem {
            case let .wrongType(sent, expected):
                j.string("problem", "wrong-type"); j.string("sent", sent); j.string("expected", expected)
            case .missing:
                j.string("problem", "missing")
            }
        }
        return j
    }

    /// The answer our agent gave: that a passkey was entered or a number confirmed, never
    /// the passkey itself.
    public static func agentAnswerLine(_ a: AgentAnswer, at: Timestamp) -> String {
        var j = JSONLine()
        j.time("t", at); j.string("type", "agent"); j.string("request", "answered"); j.string("answer", a.code)
        return j.finish()
    }

    /// An iBeacon region entered or left.
    public static func regionLine(_ t: RegionTransition) -> String {
        var j = JSONLine()
        j.time("t", t.at); j.string("type", "region")
        t.fields(&j)
        return j.finish()
    }

    /// What happened to a hook's event (never a secret: reports carry none).
    public static func hookLine(_ r: DeliveryReport, at: Timestamp) -> String { hookJSON(r, at: at).finish() }

    static func hookJSON(_ r: DeliveryReport, at: Timestamp) -> JSONLine {
        var j = JSONLine()
        j.time("t", at); j.string("type", "hook"); j.int("seq", r.seq)
        switch r {
        case let .queued(_, pending): j.string("outcome", "queued"); j.int("pending", pending)
        case let .delivered(_, attempt, detail): j.string("outcome", "delivered"); j.int("attempt", attempt); j.string("detail", detail)
        case let .retrying(_, attempt, _, reason): j.string("outcome", "retrying"); j.int("attempt", attempt); j.string("detail", reason)
        case let .rejected(_, reason): j.string("outcome", "rejected"); j.string("detail", reason)
        case let .gaveUp(_, attempts, reason): j.string("outcome", "given-up"); j.int("attempt", attempts); j.string("detail", reason)
        case let .dropped(_, reason): j.string("outcome", "dropped"); j.string("detail", reason)
        case let .failed(message): j.string("outcome", "failed"); j.string("detail", message)
        }
        return j
    }

    static func connection(_ j: inout JSONLine, _ id: PeripheralID, _ state: String) {
        j.string("type", "connection")
        j.string("address", id.rawValue)
        j.string("state", state)
    }

    static func error(_ j: inout JSONLine, _ e: BackendError) {
        j.stringMap("error", [("name", e.name), ("message", e.message)])
    }

    static func advertisement(_ j: inout JSONLine, _ a: Advertisement) {
        j.string("localName", a.localName)
        if !a.serviceUUIDs.isEmpty { j.strings("serviceUUIDs", a.serviceUUIDs.map(\.canonical)) }
        if !a.manufacturerData.isEmpty {
            j.stringMap("manufacturerData", a.manufacturerData.keys.sorted().map { k in
                (companyKey(k), hex(a.manufacturerData[k]!, separator: ""))
            })
        }
        if !a.serviceData.isEmpty {
            j.stringMap("serviceData", a.serviceData.keys.sorted().map { ($0.canonical, hex(a.serviceData[$0]!, separator: "")) })
        }
        j.int("txPower", a.txPower)
        j.int("flags", a.flags.map(Int.init))
        j.int("appearance", a.appearance.map(Int.init))
        if let b = a.beacon { j.string("beacon", b.summary) }
    }

    /// `004c`: four lowercase hex digits.
    public static func companyKey(_ k: UInt16) -> String { hex4(k) }

    /// The characteristic's address, uuid, name and path; the characteristic, when known.
    @discardableResult
    static func characteristic(_ j: inout JSONLine, _ cid: CharacteristicID, _ state: AppState) -> GATTCharacteristic? {
        let found = find(cid, state)
        if let (pid, c) = found {
            j.string("address", pid.rawValue)
            j.string("uuid", c.uuid.canonical)
            j.string("name", state.name(c))
        }
        j.string("path", cid.path)
        return found?.1
    }

    static func value(_ j: inout JSONLine, _ c: GATTCharacteristic?, _ bytes: Bytes, _ state: AppState) {
        j.hex("hex", bytes)
        if let c { j.string("decoded", state.decoded(c, bytes)) }
    }

    static func find(_ cid: CharacteristicID, _ state: AppState) -> (PeripheralID, GATTCharacteristic)? {
        // The command's device, then the app's links: a notification comes from one of them,
        // and the whole room is a thousand peripherals to look through.
        if let id = state.job?.target, let (_, c) = state.peripherals[id]?.characteristic(cid) { return (id, c) }
        for id in state.links.order {
            if let (_, c) = state.peripherals[id]?.characteristic(cid) { return (id, c) }
        }
        for p in state.peripherals.values where p.services != nil {
            if let (_, c) = p.characteristic(cid) { return (p.id, c) }
        }
        return nil
    }

    public static func serviceJSON(_ s: GATTService) -> String {
        var j = JSONLine()
        j.string("uuid", s.uuid.canonical)
        j.string("name", AssignedNumbers.serviceName(s.uuid))
        j.string("path", s.id.path)
        j.bool("primary", s.isPrimary)
        j.raw("characteristics", JSONLine.array(s.characteristics.map { c in
            var cj = JSONLine()
            cj.string("uuid", c.uuid.canonical)
            cj.string("name", AssignedNumbers.characteristicName(c.uuid))
            cj.string("path", c.id.path)
            cj.strings("properties", c.properties.flagNames)
            cj.raw("descriptors", JSONLine.array(c.descriptors.map { d in
                var dj = JSONLine()
                dj.string("uuid", d.uuid.canonical)
                dj.string("path", d.id.path)
                if d.writable { dj.bool("writable", true) }
                return dj.finish()
            }))
            return cj.finish()
        }))
        return j.finish()
    }
}

public enum BleexplrVersion {
    public static let current = "0.1.0"
}
