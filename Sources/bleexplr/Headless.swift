@preconcurrency import Glibc
import Explorer

/// What a headless command does.
enum HeadlessCommand: Equatable {
    case scan(duration: Double)
    case services(address: String)
    /// `offset`: read from there on (0: the whole value).
    case read(address: String, uuid: BLEUUID, offset: UInt16 = 0)
    case write(address: String, uuid: BLEUUID, value: Bytes, withoutResponse: Bool)
    /// `until`: reassemble notifications up to this end marker ("EOM"), print (or write to
    /// `output`) the whole message with its throughput, and exit.
    case notify(address: String, uuid: BLEUUID, count: Int?, duration: Double?, until: Bytes? = nil, output: String? = nil)
    /// The signal-storm benchmark's consumer (shared bench harness contract): scan until a
    /// device named BENCH-END appears, then print `BENCH-END count=N t_end=T cpu_s=C batches=B`.
    case benchIngest

    var address: String? {
        switch self {
        case .scan, .benchIngest: return nil
        case let .services(a), let .read(a, _, _), let .write(a, _, _, _), let .notify(a, _, _, _, _, _): return a
        }
    }
}

/// Runs one command over any backend without a screen: finds the device, connects,
/// does the job, prints results (JSON Lines with --json), disconnects. Exit status 0 on
/// success, 1 with one line on stderr otherwise. Events flow through the same store and
/// reducer as in the app, so --record records them too.
@MainActor
final class Headless {
    let store: Store
    let backend: Backend
    let runner: EffectRunner
    let loop: EventLoop
    let json: Bool
    let command: HeadlessCommand
    private var target: PeripheralID?
    private var phase = Phase.finding
    private var deadline: EventLoop.TimerID?
    private var exitCode: Int32 = 0
    private var notifications = 0
    private var characteristic: GATTCharacteristic?

    enum Phase { case finding, connecting, working, leaving, done }

    static let findTimeout = 20.0, connectTimeout = 45.0, operationTimeout = 15.0

    init(store: Store, backend: Backend, runner: EffectRunner, loop: EventLoop, json: Bool, command: HeadlessCommand) {
        self.store = store; self.backend = backend; self.runner = runner; self.loop = loop
        self.json = json; self.command = command
    }

    func run(recordTo: String?) -> Int32 {
        runner.onQuit = { [unowned self] in self.loop.stop() }
        SignalPipe.install([SIGINT, SIGTERM, SIGHUP], loop: loop) { [unowned self] _ in
            self.exitCode = self.exitCode == 0 && self.isOpenEnded ? 0 : 130
            self.leave()
        }
        loop.beforeWait = { [unowned self] in self.runner.flush() }
        backend.start(loop: loop) { [unowned self] event, at in
            self.store.send(.backend(event, at: at))
            if case .benchIngest = self.command { self.benchIngestSaw(event); return }
            event.forEachFact { self.handle($0, at: at) }
        }
        store.send(.appStarted(recordTo: recordTo))
        switch command {
        case let .scan(duration):
            loop.schedule(after: duration) { [unowned self] in self.finishScan() }
        case .benchIngest:
            break
        default:
            arm(Self.findTimeout) { [unowned self] in
                self.fail("no device \(self.command.address ?? "") found in \(Int(Self.findTimeout)) s of scanning")
            }
        }
        loop.run()
        backend.shutdown()
        runner.finish()
        return exitCode
    }

    /// notify without --count: stopping it by a signal is success.
    private var isOpenEnded: Bool {
        if case let .notify(_, _, count, _, until, _) = command { return count == nil && until == nil }
        return false
    }

    private func arm(_ seconds: Double, _ onTimeout: @escaping @MainActor () -> Void) {
        if let d = deadline { loop.cancel(d) }
        deadline = loop.schedule(after: seconds, onTimeout)
    }

    private func fail(_ message: String) {
        guard phase != .done else { return }
        fputs("bleexplr: \(message)\n", stderr)
        exitCode = 1
        leave()
    }

    /// Disconnects if connected, then stops.
    private func leave() {
        guard phase != .leaving, phase != .done else { return }
        if let id = target, let p = store.state.peripherals[id], p.connection != .disconnected {
            phase = .leaving
            backend.execute(.disconnect(id))
            arm(3) { [unowned self] in self.stop() }
        } else {
            stop()
        }
    }

    private func stop() {
        phase = .done
        if let d = deadline { loop.cancel(d) }
        loop.stop()
    }

    /// How many backend signals were processed (for benchIngest).
    var processedCount: (() -> Int)?
    /// How many batches of advertising updates they came in (bench-ingest reports it).
    private var batches = 0

    /// bench-ingest waits for the marker device only (a named device: never in a batch of
    /// updates, which carry no name).
    private func benchIngestSaw(_ event: BackendEvent) {
        let marker: Bool
        switch event {
        case let .advertisementReceived(r): marker = r.name == "BENCH-END"
        case .advertisementsReceived: marker = false; batches += 1
        default: marker = false
        }
        guard marker else { return }
        var cpu = rusage()
        getrusage(RUSAGE_SELF.rawValue, &cpu)
        let cpuSeconds = Double(cpu.ru_utime.tv_sec + cpu.ru_stime.tv_sec)
            + Double(cpu.ru_utime.tv_usec + cpu.ru_stime.tv_usec) / 1e6
        print("BENCH-END count=\(processedCount?() ?? 0) t_end=\(Timestamp.now().seconds) cpu_s=\(cpuSeconds) batches=\(batches)")
        fflush(stdout)
        stop()
    }

    private func handle(_ event: BackendEvent, at: Timestamp) {
        switch (phase, event) {
        case (.finding, .advertisementReceived):
            guard let wanted = command.address?.uppercased(),
                  let p = store.state.peripherals.values.first(where: { $0.address.uppercased() == wanted }) else { return }
            target = p.id
            phase = .connecting
            backend.execute(.stopScan)
            backend.execute(.connect(p.id))
            arm(Self.connectTimeout) { [unowned self] in self.fail("connecting to \(p.address) timed out") }
        case let (.connecting, .servicesResolved(id, services, _)) where id == target:
            phase = .working
            work(id, services)
        case let (.connecting, .connectFailed(id, error)) where id == target:
            fail("connecting to \(id) failed: \(error)")
        case let (.connecting, .disconnected(id, reason)) where id == target,
             let (.working, .disconnected(id, reason)) where id == target:
            fail("\(id) disconnected: \(reason)")
        case let (.working, .readCompleted(cid, result)) where cid == characteristic?.id:
            switch result {
            case let .success(bytes):
                printValue(bytes, at: at)
                leave()
            case let .failure(e):
                fail("read failed: \(e)")
            }
        case let (.working, .writeCompleted(cid, bytes, type, error)) where cid == characteristic?.id:
            if let error { fail("write failed: \(error)"); return }
            if json {
                var j = JSONLine()
                j.string("t", at.iso8601); j.string("address", target?.rawValue)
                j.string("uuid", characteristic?.uuid.canonical); j.string("hex", hex(bytes, separator: ""))
                j.string("writeType", type.rawValue)
                print(j.finish())
            } else {
                print("wrote \(bytes.count) byte\(bytes.count == 1 ? "" : "s")")
            }
            leave()
        case let (.working, .notifyChanged(cid, enabled, error)) where cid == characteristic?.id:
            if let error { fail("notifications \(enabled ? "on" : "off") failed: \(error)"); return }
            if enabled, case let .notify(_, _, _, duration, _, _) = command {
                if let d = deadline { loop.cancel(d) }
                deadline = nil
                if let duration { loop.schedule(after: duration) { [unowned self] in self.leave() } }
            }
        case let (.working, .valueNotified(cid, bytes)) where cid == characteristic?.id:
            if case let .notify(_, _, _, _, until?, output) = command {
                message(bytes, until: until, output: output)
                return
            }
            printValue(bytes, at: at)
            notifications += 1
            if case let .notify(_, _, count?, _, _, _) = command, notifications >= count { leave() }
        case let (.leaving, .disconnected(id, _)) where id == target:
            stop()
        case let (_, .scanFailed(error)):
            fail("scan failed: \(error)")
        case let (.finding, .failure(error)), let (.connecting, .failure(error)), let (.working, .failure(error)):
            fail(error.description)
        default:
            break
        }
    }

    private func work(_ id: PeripheralID, _ services: [GATTService]) {
        if case .services = command {
            printServices(id, services)
            leave()
            return
        }
        let uuid: BLEUUID
        switch command {
        case let .read(_, u, _), let .write(_, u, _, _), let .notify(_, u, _, _, _, _): uuid = u
        case .scan, .services, .benchIngest: return
        }
        guard let c = services.flatMap(\.characteristics).first(where: { $0.uuid == uuid }) else {
            fail("\(id) has no characteristic \(uuid)")
            return
        }
        characteristic = c
        arm(Self.operationTimeout) { [unowned self] in
            if case .notify = self.command { self.fail("turning notifications on timed out") } else { self.fail("no answer from \(id)") }
        }
        switch command {
        case let .read(_, _, offset): backend.execute(.read(id, c.id, offset: offset))
        case let .write(_, _, value, withoutResponse):
            backend.execute(.write(id, c.id, value, withoutResponse ? .command : .request))
        case .notify: backend.execute(.setNotify(id, c.id, true))
        case .scan, .services, .benchIngest: break
        }
    }

    private var assembled: Bytes = []
    private var firstChunkAt: Double?

    /// One more chunk of a message ending with `until`: at the marker, the whole message
    /// goes to `output` (or stdout), with its size and throughput.
    private func message(_ bytes: Bytes, until: Bytes, output: String?) {
        let now = monotonicSeconds()
        if bytes != until {
            if firstChunkAt == nil { firstChunkAt = now }
            assembled += bytes
            notifications += 1
            if assembled.count > 256 << 20 { fail("no \(hex(until, separator: "")) marker after 256 MB") }
            return
        }
        let seconds = max(0.001, now - (firstChunkAt ?? now))
        if let output {
            let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            var written = 0
            while fd >= 0, written < assembled.count {
                let n = assembled.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
                if n <= 0 { break }
                written += n
            }
            if fd >= 0 { close(fd) }
            guard written == assembled.count else { return fail("cannot write \(output)") }
        }
        let rate = Double(assembled.count) * 8 / 1000 / seconds
        if json {
            var j = JSONLine()
            j.string("event", "message"); j.string("address", target?.rawValue); j.string("uuid", characteristic?.uuid.canonical)
            j.int("bytes", assembled.count); j.int("chunks", notifications)
            j.string("seconds", String((seconds * 1000).rounded() / 1000)); j.string("kbitPerSecond", String((rate * 10).rounded() / 10))
            if output == nil { j.string("hex", hex(assembled, separator: "")) }
            j.string("output", output)
            print(j.finish())
        } else {
            if output == nil { print(terminalSafe(String(decoding: assembled, as: UTF8.self))) }
            let to = output.map { " to \($0)" } ?? ""
            fputs("\(assembled.count) bytes in \(notifications) notifications\(to), "
                  + "\((seconds * 1000).rounded() / 1000) s, \((rate * 10).rounded() / 10) kbit/s\n", stderr)
        }
        leave()
    }

    // MARK: Output

    private func printValue(_ bytes: Bytes, at: Timestamp) {
        guard let c = characteristic else { return }
        // The tail of a value (read from an offset) is not a value to decode.
        var offset: UInt16 = 0
        if case let .read(_, _, o) = command { offset = o }
        let decoded = offset > 0 ? nil : ValueDecoder.decode(c.uuid, bytes)
        if json {
            var j = JSONLine()
            j.string("t", at.iso8601); j.string("address", target?.rawValue); j.string("uuid", c.uuid.canonical)
            j.string("name", AssignedNumbers.characteristicName(c.uuid))
            if offset > 0 { j.int("offset", Int(offset)) }
            j.string("hex", hex(bytes, separator: ""))
            j.string("decoded", decoded)
            print(j.finish())
        } else {
            print(terminalSafe(hex(bytes) + (decoded.map { "  " + $0 } ?? "")))
        }
    }

    private func printServices(_ id: PeripheralID, _ services: [GATTService]) {
        if json {
            for s in services { print(RecordingFormat.serviceJSON(s)) }
            return
        }
        for s in services {
            print("\(s.uuid)  \(AssignedNumbers.serviceName(s.uuid) ?? "Unknown Service")")
            for c in s.characteristics {
                print("  \(c.uuid)  \(AssignedNumbers.characteristicName(c.uuid) ?? "")  [\(c.properties.flagNames.joined(separator: ", "))]")
            }
        }
    }

    private func finishScan() {
        let rows = ScanQuery.rows(store.state)
        for p in rows {
            if json {
                var j = JSONLine()
                j.string("address", p.address); j.string("name", p.name); j.int("rssi", p.rssi)
                j.bool("connectable", p.connectable)
                j.strings("serviceUUIDs", p.advertisement.serviceUUIDs.map(\.canonical))
                j.stringMap("manufacturerData", p.advertisement.manufacturerData.keys.sorted().map {
                    (RecordingFormat.companyKey($0), hex(p.advertisement.manufacturerData[$0]!, separator: ""))
                })
                j.string("beacon", p.advertisement.beacon?.summary)
                j.string("lastSeen", p.lastSeen.iso8601)
                print(j.finish())
            } else {
                let rssi = p.rssi.map { String($0) } ?? "?"
                var line = "\(p.address)  \(rssi) dBm  \(p.name ?? "(unnamed)")"
                if let b = p.advertisement.beacon { line += "  " + b.summary }
                print(terminalSafe(line))
            }
        }
        exitCode = 0
        stop()
    }
}

/// Device text on stdout (which may be a terminal): control characters become visible.
func terminalSafe(_ s: String) -> String { TerminalSafe.text(s) }
