/// A scripted Bluetooth world on its own clock (seconds from 0). `advance(to:)` returns
/// the events that happened up to that time; commands are answered later, like BlueZ
/// answers them. The same seed and the same commands at the same times give the same
/// events: the demo, the tests and the screenshots all run on it.
public final class SimulatedWorld {
    public let adapterName = "sim0"
    /// The ATT MTU of every simulated link.
    static let mtu = 247
    private var rng: SeededRandom
    let devices: [SimDevice]
    let byID: [PeripheralID: SimDevice]
    private var scanning = false
    private var jobs: [(time: Double, seq: Int, run: (Double) -> Void)] = []
    private var seq = 0
    private var out: [(Double, BackendEvent)] = []
    /// The capability of our agent (`--agent`): with a device's, it decides how pairing goes.
    public var agentCapability: AgentCapability? = .keyboardDisplay
    /// Agent requests asked and not answered: request id -> device.
    var agentRequests: [Int: SimDevice] = [:]
    var nextRequest = 1
    var bondSent: Set<PeripheralID> = []
    /// Links Pair opened whose services come once the pairing ends (their link generation).
    var servicesOwed: [PeripheralID: Int] = [:]
    private(set) public var now = 0.0

    public init(seed: UInt64, crowd: Int = 0) {
        rng = SeededRandom(seed: seed)
        var all = DemoCatalog.devices()
        all += DemoCatalog.regionDevices()
        all += DemoCatalog.crowd(crowd, rng: &rng)
        all.append(DemoCatalog.pairingDevice())
        all.append(DemoCatalog.keypadDevice())
        devices = all
        byID = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        emit(0, .adapterChanged(AdapterStatus(name: adapterName, power: .on, discovering: false)))
        for d in devices {
            let first = d.random == nil ? rng.uniform(0.05, d.advInterval) : 0.2
            schedule(first) { [unowned self] t in self.advertise(d, t) }
        }
    }

    func advanceClock(to t: Double) { now = max(now, t) }
    /// Jobs on the clock (tests: a stopped flood leaves none behind).
    var scheduledJobs: Int { jobs.count }

    /// The time of the next scheduled happening, if any.
    public var nextDue: Double? { jobs.first?.time }

    public func advance(to t: Double) -> [(Double, BackendEvent)] {
        while let first = jobs.first, first.time <= t {
            jobs.removeFirst()
            now = first.time
            first.run(first.time)
        }
        now = max(now, t)
        defer { out.removeAll(keepingCapacity: true) }
        return out
    }

    // MARK: Commands

    public func handle(_ command: BackendCommand, at t: Double) {
        now = max(now, t)
        switch command {
        case .startScan:
            scanning = true
            emit(t, .adapterChanged(AdapterStatus(name: adapterName, power: .on, discovering: true)))
        case .stopScan:
            scanning = false
            emit(t, .adapterChanged(AdapterStatus(name: adapterName, power: .on, discovering: false)))
            for d in devices where !d.connected { emit(t, .rssiLost(d.id)) }
        case let .connect(id):
            connect(id, t)
        case let .disconnect(id):
            guard let d = byID[id] else { return }
            let gen = bumpLink(d)
            schedule(t + 0.15) { [unowned self] t in
                guard d.linkGeneration == gen else { return }
                self.dropLink(d, .local, t)
            }
        case let .read(id, cid, offset):
            withCharacteristic(id, cid, t) { d, c, t in
                if !c.properties.contains(.read) {
                    return .readCompleted(cid, .failure(.notPermitted("Read not permitted")))
                }
                if c.encrypted, !d.bond.paired { return .readCompleted(cid, .failure(.notPermitted("Not paired"))) }
                // As a GATT server answers a read blob past the end: ATT error 0x07.
                guard Int(offset) <= c.value.count else {
                    return .readCompleted(cid, .failure(.failed("Operation failed with ATT error: 0x07 (Invalid Offset)")))
                }
                return .readCompleted(cid, .success(Array(c.value.dropFirst(Int(offset)))))
            }
        case let .write(id, cid, bytes, type):
            withCharacteristic(id, cid, t) { d, c, t in
                if !type.isAllowed(by: c.properties) {
                    return .writeCompleted(cid, bytes, type, .notPermitted("Write not permitted"))
                }
                if c.encrypted, !d.bond.paired { return .writeCompleted(cid, bytes, type, .notPermitted("Not paired")) }
                if c.uuid == "2A39", bytes != [0x01] {
                    return .writeCompleted(cid, bytes, type,
                                           .failed("Operation failed with ATT error: 0x80 (Control Point Not Supported)"))
                }
                if bytes.count > 512 {
                    return .writeCompleted(cid, bytes, type, .invalidValueLength("Invalid Length"))
                }
                // As bluetoothd refuses a write without response longer than one PDU.
                if type == .command, bytes.count > Self.mtu - 3 {
                    return .writeCompleted(cid, bytes, type, .failed("Failed to initiate write"))
                }
                guard !c.counts else {
                    c.receivedBytes += bytes.count
                    c.receivedWrites += 1
                    c.value = Array("received \(c.receivedBytes) bytes in \(c.receivedWrites) writes".utf8)
                    return .writeCompleted(cid, bytes, type, nil)
                }
                c.value = bytes
                return .writeCompleted(cid, bytes, type, nil)
            }
        case let .readDescriptor(id, did):
            schedule(t + rng.uniform(0.02, 0.06)) { [unowned self] t in
                guard let d = self.byID[id], d.connected else {
                    self.emit(t, .descriptorRead(did, .failure(.notConnected("Not Connected"))))
                    return
                }
                let owner = d.services.flatMap(\.characteristics).first { c in c.descriptors.contains { $0.id == did } }
                guard let owner, let desc = owner.descriptors.first(where: { $0.id == did }) else {
                    self.emit(t, .descriptorRead(did, .failure(.failed("No such descriptor: \(did.path)"))))
                    return
                }
                if desc.uuid == "2902" {
                    self.emit(t, .descriptorRead(did, .success([owner.notifying ? 0x01 : 0x00, 0x00])))
                } else {
                    self.emit(t, .descriptorRead(did, .success(owner.descriptorValues[did] ?? [])))
                }
            }
        case let .writeDescriptor(id, did, bytes):
            schedule(t + rng.uniform(0.02, 0.06)) { [unowned self] t in
                guard let d = self.byID[id], d.connected else {
                    self.emit(t, .descriptorWritten(did, bytes, .notConnected("Not Connected")))
                    return
                }
                let owner = d.services.flatMap(\.characteristics).first { c in c.descriptors.contains { $0.id == did } }
                guard let owner, let desc = owner.descriptors.first(where: { $0.id == did }) else {
                    self.emit(t, .descriptorWritten(did, bytes, .failed("No such descriptor: \(did.path)")))
                    return
                }
                // As bluetoothd refuses a write to a descriptor without the write flag.
                guard desc.writable, !desc.isClientConfiguration else {
                    self.emit(t, .descriptorWritten(did, bytes, .notPermitted("Write not permitted")))
                    return
                }
                guard bytes.count <= 512 else {
                    self.emit(t, .descriptorWritten(did, bytes, .invalidValueLength("Invalid Length")))
                    return
                }
                owner.descriptorValues[did] = bytes
                self.emit(t, .descriptorWritten(did, bytes, nil))
            }
        case let .pair(id):
            pair(id, t)
        case let .answerAgent(request, answer):
            answered(request, answer, t)
        case let .setTrusted(id, on):
            guard let d = byID[id] else { return }
            d.bond.trusted = on
            emit(t, .bondChanged(id, d.bond))
        case let .setBlocked(id, on):
            guard let d = byID[id] else { return }
            d.bond.blocked = on
            emit(t, .bondChanged(id, d.bond))
            if on, d.connected { dropLink(d, .other("blocked"), t) }
        case let .forget(id):
            guard let d = byID[id] else { return }
            if d.connected { dropLink(d, .local, t) }
            d.bond = Bond(addressType: d.bond.addressType)
            bondSent.remove(id)
            emit(t, .bondChanged(id, d.bond))
            emit(t, .peripheralRemoved(id))
        case .setPowered:
            emit(t, .adapterChanged(AdapterStatus(name: adapterName, power: .on, discovering: scanning)))
        case let .acquireWrite(_, cid):
            emit(t, .writeNotAcquired(cid, reason: "the simulated world passes no file descriptors", mtu: Self.mtu))
        case let .flushWrites(_, cid):
            emit(t, .writesFlushed(cid))   // every write was answered: nothing waits
        case let .setNotify(id, cid, on):
            withCharacteristic(id, cid, t) { [unowned self] d, c, t in
                guard c.properties.canSubscribe else {
                    return .notifyChanged(cid, enabled: on, .notSupported("Operation is not supported"))
                }
                if c.encrypted, !d.bond.paired { return .notifyChanged(cid, enabled: on, .notPermitted("Not paired")) }
                c.generation += 1
                c.notifying = on
                if on { self.startNotifying(d, c, t) }
                return .notifyChanged(cid, enabled: on, nil)
            }
        }
    }

    /// A press on the demo iTag (on demand: SIGUSR1 in the demo, or a test).
    public func pressButton(at t: Double) {
        now = max(now, t)
        guard let d = devices.first(where: { $0.name == "Demo iTag" }), d.connected,
              let c = d.services.first?.characteristics.first, c.notifying else { return }
        c.value = [0x01]
        emit(t, .valueNotified(c.id, [0x01]))
    }

    /// The first connected device's GATT database changes, as a firmware entering its
    /// update mode does: a Secure DFU service (FE59) appears, or goes again. BlueZ then
    /// re-resolves the services (Service Changed) and sends the new tree.
    public func changeDatabase(at t: Double) {
        now = max(now, t)
        guard let d = devices.first(where: \.connected) else { return }
        if let i = d.services.firstIndex(where: { $0.uuid == "FE59" }) {
            d.services.remove(at: i)
        } else {
            let m = DemoCatalog.PathMaker(d.id.rawValue)
            m.handle = 0x0F00
            d.services.append(m.service("FE59") { [m] s in
                [m.char(s, "8EC90003-F315-4F60-9FB8-838830DAEA50", [.write, .indicate], [], userDescription: "Buttonless DFU")]
            })
        }
        emit(t, .servicesResolved(d.id, d.gatt, mtu: Self.mtu))
    }

    /// The demo iTag ends the link, as iTags do now and then (on demand: the demo's
    /// control FIFO, or a test).
    public func dropButtonLink(at t: Double) {
        now = max(now, t)
        guard let d = devices.first(where: { $0.name == "Demo iTag" }), d.connected else { return }
        _ = bumpLink(d)
        dropLink(d, .remote, t)
    }

    // MARK: Behaviour

    private func advertise(_ d: SimDevice, _ t: Double) {
        // BLE adds 0-10 ms of random delay to each advertising event.
        var random = d.random ?? rng
        defer { if d.random == nil { rng = random } else { d.random = random } }
        schedule(t + d.advInterval + random.uniform(0, 0.01)) { [unowned self] t in self.advertise(d, t) }
        guard scanning, !d.connected, random.uniform(0, 1) < 0.85 else { return }  // some reports are missed
        let rssi: Int
        if let script = d.rssiScript {
            guard let base = script(t) else { return }
            rssi = Int((base + random.gaussian(1.5)).rounded())
        } else {
            let wave = 3 * sinApprox(t / 7 + d.phase)
            rssi = Int((d.baseRSSI + wave + random.gaussian(2.5)).rounded())
        }
        emit(t, .advertisementReceived(AdvertisementReport(
            id: d.id, address: d.id.rawValue, name: d.name, rssi: max(-110, min(-20, rssi)),
            connectable: d.connectable, advertisement: d.advertisement)))
        // As BlueZ's Device1 says it from the first sight on (its address type too).
        if bondSent.insert(d.id).inserted { emit(t, .bondChanged(d.id, d.bond)) }
    }

    private func connect(_ id: PeripheralID, _ t: Double) {
        guard let d = byID[id], d.connectable else {
            schedule(t + 0.05) { [unowned self] t in
                self.emit(t, .connectFailed(id, .failed("Device is not connectable")))
            }
            return
        }
        let gen = bumpLink(d)
        emit(t, .connecting(id, attempt: 1))
        var at = t + rng.uniform(0.4, 0.9)
        if d.link.abortFirstAttempt {
            // BlueZ's transient failure; the backend retries once, as the BlueZ one does.
            schedule(at) { [unowned self] t in
                guard d.linkGeneration == gen else { return }
                self.emit(t, .connecting(id, attempt: 2))
            }
            at += rng.uniform(0.4, 0.9)
        }
        schedule(at) { [unowned self] t in
            guard d.linkGeneration == gen else { return }
            d.connected = true
            self.emit(t, .connected(id))
        }
        at += rng.uniform(0.2, 0.5)
        schedule(at) { [unowned self] t in
            guard d.linkGeneration == gen else { return }
            self.emit(t, .servicesResolved(id, d.gatt, mtu: Self.mtu))
            if let after = d.link.dropAfter {
                self.schedule(t + after) { [unowned self] t in
                    guard d.linkGeneration == gen else { return }
                    _ = self.bumpLink(d)
                    self.dropLink(d, .timeout, t)
                }
            }
        }
    }

    func bumpLink(_ d: SimDevice) -> Int {
        d.linkGeneration += 1
        return d.linkGeneration
    }

    func dropLink(_ d: SimDevice, _ reason: DisconnectReason, _ t: Double) {
        d.connected = false
        for s in d.services { for c in s.characteristics { c.notifying = false; c.generation += 1 } }
        emit(t, .disconnected(d.id, reason))
    }

    /// Runs `body` for a connected device's characteristic after a realistic delay, or
    /// answers NotConnected like BlueZ does.
    private func withCharacteristic(_ id: PeripheralID, _ cid: CharacteristicID, _ t: Double,
                                    _ body: @escaping (SimDevice, SimCharacteristic, Double) -> BackendEvent) {
        let delay = rng.uniform(0.02, 0.08)
        schedule(t + delay) { [unowned self] t in
            guard let d = self.byID[id], d.connected else {
                self.emit(t, .failure(.notConnected("Not Connected")))
                return
            }
            guard let c = d.characteristic(cid) else {
                self.emit(t, .failure(.failed("No such characteristic: \(cid.path)")))
                return
            }
            self.emit(t, body(d, c, t))
        }
    }

    func startNotifying(_ d: SimDevice, _ c: SimCharacteristic, _ t: Double) {
        let gen = c.generation
        switch c.notify {
        case .none:
            break
        case let .periodic(period, jitter):
            func tick(_ t: Double) {
                guard c.generation == gen, d.connected else { return }
                c.value = nextValue(c)
                emit(t, .valueNotified(c.id, c.value))
                schedule(t + period + rng.uniform(-jitter, jitter)) { tick($0) }
            }
            schedule(t + period * rng.uniform(0.3, 1)) { tick($0) }
        case let .stream(text, interval, pause):
            let chunks = chunked(Array(text.utf8), 20) + [Array("EOM".utf8)]
            func send(_ i: Int, _ t: Double) {
                guard c.generation == gen, d.connected else { return }
                emit(t, .valueNotified(c.id, chunks[i]))
                if i + 1 < chunks.count {
                    schedule(t + interval) { send(i + 1, $0) }
                } else {
                    schedule(t + pause) { send(0, $0) }
                }
            }
            schedule(t + 0.5) { send(0, $0) }
        case let .flood(interval):
            flood(d, c, every: interval, from: t)
        }
    }

    /// The next notified value of a periodic characteristic: a random walk around the
    /// previous one, in each characteristic's own format.
    private func nextValue(_ c: SimCharacteristic) -> Bytes {
        switch c.uuid.shortValue {
        case 0x2A37:
            let last = c.value.count > 1 ? Int(c.value[1]) : 72
            let bpm = max(55, min(140, last + Int(rng.uniform(-3, 3.99))))
            if rng.uniform(0, 1) < 0.4 {
                let rr = UInt16(61440 / bpm)  // 60 s in 1/1024 s
                return [0x16, UInt8(bpm), UInt8(rr & 0xFF), UInt8(rr >> 8)]
            }
            return [0x06, UInt8(bpm)]
        case 0x2A19:
            let level = c.value.first ?? 80
            return [rng.uniform(0, 1) < 0.3 && level > 1 ? level - 1 : level]
        case 0x2A6E, 0x2A6F:
            let last = c.value.count == 2 ? Int(Int16(bitPattern: le16(c.value, 0))) : 2150
            let next = Int16(clamping: last + Int(rng.uniform(-15, 15)))
            let u = UInt16(bitPattern: next)
            return [UInt8(u & 0xFF), UInt8(u >> 8)]
        case 0xFFE1:
            return [0x01]
        case 0x2A5B where c.value.count == 11:
            // Cumulative counts and event times (1/1024 s) move on: ~25 km/h, ~85 rpm.
            var v = c.value
            let wheel = le32(v, 1) &+ UInt32(rng.uniform(2, 4)), crank = le16(v, 7) &+ 1
            let wheelTime = le16(v, 5) &+ 1024, crankTime = le16(v, 9) &+ UInt16(rng.uniform(690, 760))
            for (i, b) in [wheel & 0xFF, wheel >> 8 & 0xFF, wheel >> 16 & 0xFF, wheel >> 24].enumerated() { v[1 + i] = UInt8(b) }
            v[5] = UInt8(wheelTime & 0xFF); v[6] = UInt8(wheelTime >> 8)
            v[7] = UInt8(crank & 0xFF); v[8] = UInt8(crank >> 8)
            v[9] = UInt8(crankTime & 0xFF); v[10] = UInt8(crankTime >> 8)
            return v
        case 0x2A1C where c.value.count >= 5:
            // FLOAT with exponent -1: a tenth of a degree up or down.
            var v = c.value
            let tenths = max(350, min(390, Int(le16(v, 1)) + Int(rng.uniform(-1, 1.99))))
            v[1] = UInt8(tenths & 0xFF); v[2] = UInt8(tenths >> 8)
            return v
        case _ where c.value.count == 2:
            let last = Int(Int16(bitPattern: le16(c.value, 0)))
            let u = UInt16(bitPattern: Int16(clamping: last + Int(rng.uniform(-8, 8))))
            return [UInt8(u & 0xFF), UInt8(u >> 8)]
        default:
            let n = (c.value.first ?? 0) &+ 1
            return [n]
        }
    }

    // MARK: Scheduling

    func schedule(_ time: Double, _ run: @escaping (Double) -> Void) {
        seq += 1
        let job = (time: time, seq: seq, run: run)
        // Binary search: the queue can hold thousands of advertising jobs.
        var lo = 0, hi = jobs.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if jobs[mid].time <= time { lo = mid + 1 } else { hi = mid }
        }
        jobs.insert(job, at: lo)
    }

    func emit(_ t: Double, _ e: BackendEvent) { out.append((t, e)) }
}

func chunked(_ bytes: Bytes, _ size: Int) -> [Bytes] {
    stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
}

/// sin without Foundation, good enough for RSSI waves.
func sinApprox(_ x: Double) -> Double {
    var y = x.truncatingRemainder(dividingBy: 2 * Double.pi)
    if y > Double.pi { y -= 2 * Double.pi } else if y < -Double.pi { y += 2 * Double.pi }
    let y2 = y * y
    return y * (1 - y2 / 6 * (1 - y2 / 20 * (1 - y2 / 42 * (1 - y2 / 72))))
}
