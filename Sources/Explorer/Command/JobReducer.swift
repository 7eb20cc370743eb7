/// A command without a screen, as a reducer beside the app's. It reads the state the app
/// shows (the peripheral, its connection, its descriptors), connects through the same
/// `ConnectionReducer`, and answers with effects: backend commands, timers, what to
/// print (`CommandOutput`) and when to finish. Pure: the clock is the actions' time.
/// Its parts: JobPairing (pair, pairing on demand), JobNotifications (notify, --until's
/// stream), WriteStreamReducer (write --file).
enum JobReducer {
    static let findTimeout = 20.0, connectTimeout = 45.0, watchLinkTimeout = 20.0, operationTimeout = 15.0, lingerTimeout = 3.0, pairTimeout = 90.0
    /// How long a read or write whose link went down waits for bluetoothd's answer to it.
    static let linkLostWait = 2.0
    static let messageLimit = 256 << 20
    static let reconnectBackoff = Backoff(initial: 1, limit: 30)

    /// After the app's reducer: `effects` are what it asked for (a monitor prints the
    /// region changes among them).
    static func reduce(_ s: inout AppState, _ action: Action, _ effects: [Effect]) -> [Effect] {
        if case .each = s.job?.job { return JobParts.reduce(&s, action, effects) }
        // A run of advertisements concerns a command only while it looks for the device it
        // names, or when the app turned them into region changes: the job is not copied
        // out and back for every other run (about 1 % of a signal storm's time).
        if case .backend(.advertisementsReceived, _) = action, effects.isEmpty, s.job?.isFindingDevice != true,
           s.job?.isLiveScan != true { return [] }
        guard case .some = s.job, s.job?.exitCode == nil else { return [] }
        // The job moves out of the state while the action is reduced, swapped with a stand-in
        // (what it calls asks only whether a command runs): not copied, no field of it
        // retained or released. Shared by both, a buffer the job grows was copied whole at
        // every change (`notify --until`'s message: 100,000 chunks of 20 bytes took 19 s of
        // CPU on the host; live scan's printed marks); copied out and back, its fields were a
        // quarter of a notification's CPU (perf, 2026-12-06).
        var job = standIn
        swap(&job, &s.job!)
        var out: [Effect] = []
        switch action {
        case .appStarted:
            out = started(&job)
        case let .backend(event, at):
            out = backend(&s, &job, event, at: at)
        case let .jobTimerFired(timer):
            out = timerFired(&s, &job, timer)
        case let .interrupted(signal):
            // A command that runs until stopped was stopped: done. Any other was cut short:
            // 128 + the signal, as a shell reports it (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
            out = leave(&s, &job, exitCode: job.job.isOpenEnded ? 0 : 128 + signal)
        case let .hookReported(report, nil):
            if case .watch = job.job { out = [.output(.watch(event: "hook", message: report.text, seq: report.seq))] }
        case .tick:
            out = warnUnmeasured(s, &job) + LiveScan.gone(s, &job)
        default:
            break
        }
        if case .monitor = job.job {
            for case let .regionChanged(t) in effects { out.append(.output(.region(t))) }
        }
        // No terminal to ask on: the app's reducer rejected an agent request; say why.
        for case let .backend(.answerAgent(_, .reject(why))) in effects { out.append(.output(.warning("pairing request rejected: \(why)"))) }
        out += pairingRefused(&s, &job, action, effects)
        // The connection became ready: the job's work begins.
        if job.phase == .connecting, let id = job.target, s.peripherals[id]?.connection == .connected {
            out += work(&s, &job, id)
        }
        swap(&job, &s.job!)
        return out
    }

    /// In the state's place while a job is reduced: a command runs.
    static let standIn = JobState(job: .scan(duration: 0))

    static func started(_ job: inout JobState) -> [Effect] {
        switch job.job {
        case let .scan(duration): return duration.map { [.startTimer(.duration, after: $0)] } ?? []
        case let .monitor(duration): return duration.map { [.startTimer(.duration, after: $0)] } ?? []
        case .scanUntilNamed, .watch, .each: return []
        case .services, .read, .write, .writeStream, .notify, .pair, .forget, .readDescriptor, .writeDescriptor:
            return [.startTimer(.find, after: findTimeout)]
        }
    }

    // MARK: Events

    static func backend(_ s: inout AppState, _ job: inout JobState, _ event: BackendEvent, at: Timestamp) -> [Effect] {
        let target = job.target
        if job.stream != nil, let out = WriteStreamReducer.event(&s, &job, event, at: at) { return out }
        switch event {
        case let .advertisementReceived(report) where job.isLiveScan:
            return LiveScan.heard(s, &job, [report.id], at: at)
        case let .advertisementsReceived(reports) where job.isLiveScan:
            return LiveScan.heard(s, &job, reports.map(\.id), at: at)
        case .peripheralRemoved where job.isLiveScan:
            return LiveScan.gone(s, &job)
        case let .advertisementReceived(report):
            if case let .scanUntilNamed(marker) = job.job, report.name == marker {
                job.phase = .done(exitCode: 0)
                return [.output(.benchEnd), .finish(exitCode: 0)]
            }
            return job.phase == .finding ? found(&s, &job, among: [report]) : []
        case let .advertisementsReceived(reports):
            return job.phase == .finding ? found(&s, &job, among: reports) : []
        case let .connecting(id, attempt) where id == target && job.phase == .connecting && attempt > 1:
            // The backend tries again (bluetoothd aborted the first, or it brought no link).
            return [.output(.warning("connecting to \(job.job.address ?? id.rawValue) again (attempt \(attempt))"))]
        case let .connected(id) where id == target && job.phase == .connecting:
            if case .watch = job.job { return [.startTimer(.connect, after: connectTimeout)] }
            return []
        case let .connectFailed(id, error) where id == target && job.phase == .connecting:
            if case .watch = job.job { return [watchSays("link", "connecting failed: \(error)")] + reconnect(&s, &job) }
            return fail(&s, &job, "connecting to \(job.job.address ?? id.rawValue) failed: \(error)")
        case let .disconnected(id, reason) where id == target:
            switch job.phase {
            case .leaving(let code):
                job.phase = .done(exitCode: code)
                return [.finish(exitCode: code)]
            case .connecting, .working:
                if case .watch = job.job {
                    job.characteristic = nil
                    job.phase = .connecting
                    return [watchSays("link", "link lost: \(reason)")] + reconnect(&s, &job)
                }
                if job.phase == .working, job.awaitsOneAnswer, job.linkLost == nil {
                    // Its answer comes next (bluetoothd fails what was pending on the link):
                    // wait for it a moment, to say what happened to the operation.
                    job.linkLost = reason
                    return [.startTimer(.operation, after: linkLostWait)]
                }
                return fail(&s, &job, "\(id) disconnected: \(reason)")
            case .finding, .done:
                return []
            }
        case let .peripheralRemoved(id) where id == target:
            if case .forget = job.job, job.phase == .working {
                return [.cancelTimer(.operation), .output(.warning("forgot \(id): unpaired and removed from bluetoothd"))]
                    + leave(&s, &job, exitCode: 0)
            }
            // BlueZ forgets a device it has not seen for a while: watch looks for it again.
            guard case .watch = job.job, job.isActive else { return [] }
            job.target = nil
            job.characteristic = nil
            job.reconnectPending = false
            job.phase = .finding
            s.scanWanted = true
            return [.cancelTimer(.reconnect),
                    watchSays("link", "\(job.job.address ?? "") is gone from the adapter's list; scanning for it"),
                    .backend(.startScan)]
        case let .readCompleted(cid, result) where cid == job.clientFeatures:
            if case let .success(bytes) = result { job.eatt = (bytes.first ?? 0) & eattBit != 0 }
            return []
        case let .readCompleted(cid, result) where cid == job.characteristic && job.phase == .working:
            switch result {
            case let .success(bytes):
                var offset: UInt16 = 0
                if case let .read(_, _, o) = job.job { offset = o }
                let report = valueReport(s, job, bytes, at: at, origin: .read, offset: offset)
                return [.cancelTimer(.operation)] + (report.map { [.output(.value($0))] } ?? []) + leave(&s, &job, exitCode: 0)
            case let .failure(e):
                if s.operations[cid]?.waitingForPairing == true { return pairingOnDemand(s, &job, "the read") }
                return fail(&s, &job, failure(s, job, "read", e))
            }
        case let .writeCompleted(cid, bytes, type, error) where cid == job.characteristic && job.phase == .working:
            if let error {
                if s.operations[cid]?.waitingForPairing == true { return pairingOnDemand(s, &job, "the write") }
                return fail(&s, &job, failure(s, job, "write", error))
            }
            var report = WriteReport(at: at, address: job.job.address ?? "", uuid: job.job.uuid ?? "", bytes: bytes, type: type)
            report.long = WriteType.isLong(bytes.count, type: type, mtu: target.flatMap { s.peripherals[$0]?.mtu })
            return [.cancelTimer(.operation), .output(.wrote(report))] + leave(&s, &job, exitCode: 0)
        case let .descriptorRead(did, result) where did == job.descriptor && job.phase == .working:
            switch result {
            case let .success(bytes):
                let report = descriptorReport(s, job, bytes, at: at)
                return [.cancelTimer(.operation)] + (report.map { [.output(.value($0))] } ?? []) + leave(&s, &job, exitCode: 0)
            case let .failure(e):
                if s.operations[did]?.waitingForPairing == true { return pairingOnDemand(s, &job, "the descriptor read") }
                return fail(&s, &job, failure(s, job, "descriptor read", e))
            }
        case let .descriptorWritten(did, bytes, error) where did == job.descriptor && job.phase == .working:
            if let error {
                if s.operations[did]?.waitingForPairing == true { return pairingOnDemand(s, &job, "the descriptor write") }
                return fail(&s, &job, failure(s, job, "descriptor write", error))
            }
            var report = WriteReport(at: at, address: job.job.address ?? "", uuid: job.job.uuid ?? "", bytes: bytes, type: .request)
            report.descriptor = job.job.descriptorUUID
            report.handle = did.handle
            return [.cancelTimer(.operation), .output(.wrote(report))] + leave(&s, &job, exitCode: 0)
        case let .notifyChanged(cid, enabled, error) where cid == job.characteristic && job.phase == .working:
            if let error {
                if s.operations[cid]?.waitingForPairing == true { return pairingOnDemand(s, &job, "the subscription") }
                if case .watch = job.job {
                    return [watchSays("error", "subscribing failed: \(error); reconnecting")] + reconnect(&s, &job, disconnectFirst: true)
                }
                return fail(&s, &job, "notifications \(enabled ? "on" : "off") failed: \(error)\(OnDemand.hint(s, target, error))")
            }
            guard enabled else { return [] }
            switch job.job {
            case let .notify(_, _, _, duration, _):
                return [.cancelTimer(.operation)] + (duration.map { [.startTimer(.duration, after: $0)] } ?? [])
            case let .watch(_, uuid, _):
                job.linkAttempts = 0
                return [watchSays("subscribed", "connected and subscribed to \(uuid)")]
            default:
                return []
            }
        case let .notificationsAcquired(cid, mtu) where cid == job.characteristic && job.phase == .working:
            let how = "notifications through a socket (AcquireNotify), MTU \(mtu)"
            if case .watch = job.job { return [watchSays("notify-path", how)] }
            return [.output(.warning(how))]
        case let .valueNotified(cid, bytes) where cid == job.characteristic && job.phase == .working:
            return notified(&s, &job, bytes, at: at)
        case let .valuesNotified(cid, values) where cid == job.characteristic && job.phase == .working:
            // One by one, as if each came alone; the rest once one ended the work (--count,
            // EOM) is the app's alone.
            var out: [Effect] = []
            for v in values where job.phase == .working { out += notified(&s, &job, v.bytes, at: v.at) }
            return out
        case let .pairCompleted(id, error) where id == target && job.phase == .working:
            // The app's reduction has judged it: a Pair that failed on a device bluetoothd
            // says is paired, paired (PairingReducer.completed).
            let paired = s.peripherals[id]?.bond.paired == true
            guard case .pair = job.job else { return pairedOnDemand(&s, &job, id, paired ? nil : error) }
            if let error, !paired { return fail(&s, &job, "pairing with \(id) failed: \(error)") }
            let anyway = error.map { PairingReducer.pairedAnyway($0.description) } ?? ""
            return [.cancelTimer(.operation), .output(.warning("paired with \(id)" + anyway))] + leave(&s, &job, exitCode: 0)
        case let .agentRequested(r) where r.device == target && job.phase == .working:
            // BlueZ raises the link's security by itself when an operation is refused, and
            // asks our agent: the answer may take a person's time.
            guard job.hasOperationTimer, let id = job.descriptor ?? job.characteristic, s.operations[id] != nil else { return [] }
            return [.startTimer(.operation, after: pairTimeout)]
        case let .propertyUnreadable(p):
            return [.output(.warning(p.description))]
        case let .scanFailed(error):
            return fail(&s, &job, "scan failed: \(error)")
        case let .failure(error):
            if case .watch = job.job {
                return job.characteristic == nil && target != nil ? [watchSays("error", error.description)] : []
            }
            return fail(&s, &job, error.description)
        default:
            return []
        }
    }

    /// While finding: is the device asked for among those just heard? (Every peripheral
    /// comes through a report, so the reports are enough; a room of a thousand is not
    /// searched for each one.)
    static func found(_ s: inout AppState, _ job: inout JobState, among reports: [AdvertisementReport]) -> [Effect] {
        guard let wanted = job.job.address,
              let r = reports.first(where: { $0.address.uppercased() == wanted }), s.peripherals.contains(r.id) else { return [] }
        job.target = r.id
        s.scanWanted = false
        if case .pair = job.job { return [.cancelTimer(.find), .backend(.stopScan)] + pair(&s, &job, r.id) }
        if case .forget = job.job {
            job.phase = .working
            return [.cancelTimer(.find), .backend(.stopScan), .backend(.forget(r.id)), .startTimer(.operation, after: operationTimeout)]
        }
        return [.cancelTimer(.find), .backend(.stopScan)] + connect(&s, &job)
    }

    static func connect(_ s: inout AppState, _ job: inout JobState) -> [Effect] {
        guard let id = job.target, let p = s.peripherals[id] else { return [] }
        job.phase = .connecting
        job.linkAttempts += 1
        if p.connection == .connected { return [] }   // ready already: work starts below
        let effects = ConnectionReducer.connect(&s, id)
        guard !effects.isEmpty || p.connection.isLinkUp || p.connection.isConnecting else {
            return fail(&s, &job, "\(p.address) is not connectable (it only broadcasts)")
        }
        // watch gives a link that does not come up at all less time than one that is resolving
        // services: after bluetoothd restarted, a Connect once hung with no link for 45 s (lab chaos
        // run, kill 8 of 10), and watch starts again sooner. Link up, the timer is the whole one.
        if case .watch = job.job { return effects + [.startTimer(.connect, after: watchLinkTimeout)] }
        return effects + [.startTimer(.connect, after: connectTimeout)]
    }

    /// Ready: find the characteristic and do what was asked.
    static func work(_ s: inout AppState, _ job: inout JobState, _ id: PeripheralID) -> [Effect] {
        guard let p = s.peripherals[id] else { return [] }
        job.phase = .working
        var effects: [Effect] = [.cancelTimer(.connect)]
        if case .services = job.job {
            return effects + [.output(.services(s.servicesReport(p)))] + leave(&s, &job, exitCode: 0)
        }
        guard let uuid = job.job.uuid else { return effects }
        guard let c = p.services?.flatMap(\.characteristics).first(where: { $0.uuid == uuid }) else {
            if case .watch = job.job {
                return effects + [watchSays("error", "\(p.address) has no characteristic \(uuid); will look again after the next connection")]
                    + reconnect(&s, &job, disconnectFirst: true)
            }
            return effects + fail(&s, &job, "\(id) has no characteristic \(uuid)")
        }
        job.characteristic = c.id
        if let du = job.job.descriptorUUID {
            guard let d = c.descriptors.first(where: { $0.uuid == du }) else {
                return effects + fail(&s, &job, "\(uuid) on \(p.address) has no descriptor \(du)")
            }
            job.descriptor = d.id
        }
        switch job.job {
        case let .read(_, _, offset):
            effects += [.backend(.read(id, c.id, offset: offset)), .startTimer(.operation, after: operationTimeout)]
        case let .write(_, _, value, type):
            guard type.isAllowed(by: c.properties) else {
                let has = WriteType.allCases.filter { $0.isAllowed(by: c.properties) }.map(\.rawValue)
                return effects + fail(&s, &job, "\(uuid) on \(p.address) does not take a write of type \(type.rawValue) ("
                                      + (has.isEmpty ? "it is not writable" : "it takes --type \(has.joined(separator: ", "))") + ")")
            }
            effects += [.backend(.write(id, c.id, value, type)), .startTimer(.operation, after: operationTimeout)]
        case .writeStream:
            effects += WriteStreamReducer.start(&s, &job, p, c)
        case .readDescriptor:
            if let did = job.descriptor { effects += [.backend(.readDescriptor(id, did)), .startTimer(.operation, after: operationTimeout)] }
        case let .writeDescriptor(_, _, du, value):
            guard let did = job.descriptor, let d = c.descriptors.first(where: { $0.id == did }), d.canWrite else {
                let why = du == "2902" ? "the CCCD (0x2902) is notify's: use notify" : "its flags do not allow a write"
                return effects + fail(&s, &job, "descriptor \(du) of \(uuid) on \(p.address) cannot be written (\(why))")
            }
            effects += [.backend(.writeDescriptor(id, did, value)), .startTimer(.operation, after: operationTimeout)]
        case let .notify(_, _, _, _, until):
            effects += [.backend(.setNotify(id, c.id, true)), .startTimer(.operation, after: operationTimeout)]
            if until != nil, let f = p.services?.flatMap(\.characteristics).first(where: { $0.uuid == Self.clientFeaturesUUID }) {
                job.clientFeatures = f.id
                effects.append(.backend(.read(id, f.id, offset: 0)))
            }
        case .watch:
            guard c.properties.canSubscribe else {
                return effects + fail(&s, &job, "\(uuid) on \(p.address) neither notifies nor indicates")
            }
            effects.append(.backend(.setNotify(id, c.id, true)))
        case .scan, .services, .monitor, .scanUntilNamed, .pair, .forget, .each:
            break
        }
        return effects
    }

    // MARK: Timers, leaving

    static func timerFired(_ s: inout AppState, _ job: inout JobState, _ timer: JobTimer) -> [Effect] {
        switch (timer, job.phase) {
        case (.duration, _):
            switch job.job {
            case .scan:
                job.phase = .done(exitCode: 0)
                return [.output(.devices(ScanQuery.rows(s))), .finish(exitCode: 0)]
            default:
                return leave(&s, &job, exitCode: 0)
            }
        case (.find, .finding):
            return fail(&s, &job, "no device \(job.job.address ?? "") found in \(Int(findTimeout)) s of scanning")
        case (.connect, .connecting):
            if case .watch = job.job {
                // Stuck (a link that never came up or never went down): start again.
                return [watchSays("link", "not ready: \(connectionStood(s, job))")] + reconnect(&s, &job, disconnectFirst: true)
            }
            return fail(&s, &job, connectTimedOut(s, job))
        case (.operation, .working):
            if job.linkLost != nil { return fail(&s, &job, failure(s, job, job.operationName, nil)) }
            if case .notify = job.job { return fail(&s, &job, "turning notifications on timed out") }
            if let st = job.stream {
                return fail(&s, &job, "no answer from \(job.target?.rawValue ?? "") after \(st.done) of \(st.total) writes"
                            + (st.fencing ? " (the read after the last one)" : st.flushing ? " (bluetoothd has not taken them all)" : ""))
            }
            return fail(&s, &job, "no answer from \(job.target?.rawValue ?? "")")
        case (.reconnect, _):
            job.reconnectPending = false
            guard let id = job.target, s.peripherals[id]?.connection.isLinkUp != true else { return [] }
            return connect(&s, &job)
        case (.settle, .working):
            return settled(&s, &job)
        case let (.linger, .leaving(code)):
            job.phase = .done(exitCode: code)
            return [.finish(exitCode: code)]
        default:
            return []
        }
    }

    /// Where the connection stood when its timer fired: a link that never came up is not a
    /// link whose services bluetoothd never resolved (seen in the lab when the peer's side of
    /// the last link was not yet down), and the user needs to know which.
    static func connectTimedOut(_ s: AppState, _ job: JobState) -> String {
        "connecting to \(job.job.address ?? "") timed out after \(Int(connectTimeout)) s: \(connectionStood(s, job))"
    }

    static func connectionStood(_ s: AppState, _ job: JobState) -> String {
        switch job.target.flatMap({ s.peripherals[$0]?.connection }) {
        case .resolvingServices?: return "the link is up, but bluetoothd resolved no services"
        case .readingDescriptors?: return "services resolved, but their descriptors were not all read"
        case let .connecting(attempt)?: return attempt > 1 ? "the link never came up (attempt \(attempt))" : "the link never came up"
        default: return "no link"
        }
    }

    /// `watch`: connect again after a backoff that grows with the failed attempts.
    static func reconnect(_ s: inout AppState, _ job: inout JobState, disconnectFirst: Bool = false) -> [Effect] {
        guard !job.reconnectPending, let id = job.target else { return [] }
        job.reconnectPending = true
        job.phase = .connecting
        var effects = disconnectFirst ? ConnectionReducer.disconnect(&s, id) : []
        let after = reconnectBackoff.delay(afterAttempt: max(job.linkAttempts, 1))
        effects += [watchSays("link", "reconnecting in \(formatFixed(after, 0)) s"), .startTimer(.reconnect, after: after)]
        return effects
    }

    static func fail(_ s: inout AppState, _ job: inout JobState, _ message: String) -> [Effect] {
        guard job.isActive else { return [] }
        return [.output(.failure(message))] + leave(&s, &job, exitCode: 1)
    }

    /// Disconnects if the link is up (or coming up), then finishes.
    static func leave(_ s: inout AppState, _ job: inout JobState, exitCode: Int32) -> [Effect] {
        guard job.isActive else { return [] }
        let timers: [Effect] = [.cancelTimer(.find), .cancelTimer(.connect), .cancelTimer(.operation), .cancelTimer(.reconnect)]
        if let id = job.target, let p = s.peripherals[id], p.connection.isLinkUp || p.connection.isConnecting {
            job.phase = .leaving(exitCode: exitCode)
            var effects = ConnectionReducer.disconnect(&s, id)
            if effects.isEmpty { effects = [.backend(.disconnect(id))] }
            return timers + effects + [.startTimer(.linger, after: lingerTimeout)]
        }
        job.phase = .done(exitCode: exitCode)
        return timers + [.finish(exitCode: exitCode)]
    }

    // MARK: Output

    static func valueReport(_ s: AppState, _ job: JobState, _ bytes: Bytes, at: Timestamp, origin: ValueOrigin,
                            offset: UInt16 = 0) -> ValueReport? {
        guard let id = job.target, let cid = job.characteristic, let p = s.peripherals[id],
              let (_, c) = p.characteristic(cid) else { return nil }
        return s.valueReport(p, c, bytes, at: at, origin: origin, offset: offset)
    }

    /// "read failed: …": the operation's error, and when the link went down while it waited,
    /// that first, with bluetoothd's answer (`e`; nil: none came). An unpaired device that wants
    /// encryption ends like this when it refuses the pairing bluetoothd starts by itself: the
    /// kernel ends the link after a failed pairing, and bluetoothd 5.66 then fails the pending
    /// request with its own ATT error 0x0e (Unlikely Error) while 5.82 leaves it unanswered.
    static func failure(_ s: AppState, _ job: JobState, _ what: String, _ e: BackendError?) -> String {
        guard let lost = job.linkLost, let id = job.target else {
            return "\(what) failed: " + (e.map { "\($0)\(OnDemand.hint(s, job.target, $0))" } ?? "no answer")
        }
        // Before BlueZ 5.83 "remote" is a guess (bluetoothd gives no reason): not said here.
        let why = lost == .remote ? "" : ": \(lost)"
        var m = "\(what) failed: the link went down while the \(what) waited for its answer\(why) ("
            + (e.map { "bluetoothd: \($0)" } ?? "bluetoothd did not answer it") + ")"
        if s.peripherals[id]?.bond.paired != true {
            m += "; \(id) is not paired: for a device that refuses an operation for want of encryption bluetoothd "
                + "pairs by itself, and a refused pairing ends the link (bleexplr pair \(id) says why)"
        }
        return m
    }

    /// The MTU of the link notifications come over: the one AcquireNotify gave with its
    /// socket, else the link's (GattCharacteristic1.MTU).
    static func linkMTU(_ s: AppState, _ job: JobState) -> Int? {
        guard let cid = job.characteristic else { return nil }
        return s.notifySockets[cid] ?? job.target.flatMap { s.peripherals[$0]?.mtu }
    }

    /// A descriptor's value: named and decoded as descriptors are (`DescriptorValue`).
    static func descriptorReport(_ s: AppState, _ job: JobState, _ bytes: Bytes, at: Timestamp) -> ValueReport? {
        guard let id = job.target, let p = s.peripherals[id], let du = job.job.descriptorUUID, let uuid = job.job.uuid else { return nil }
        var r = ValueReport(at: at, address: p.address, uuid: uuid, name: AssignedNumbers.descriptorName(du), origin: .read,
                            bytes: bytes, decoded: DescriptorValue.decoded(du, bytes))
        r.descriptor = du
        r.handle = job.descriptor?.handle
        return r
    }

    static func watchSays(_ event: String, _ message: String) -> Effect {
        .output(.watch(event: event, message: message, seq: nil))
    }

    /// `monitor`: a beacon heard without an RSSI cannot bring a region in; say so once.
    static func warnUnmeasured(_ s: AppState, _ job: inout JobState) -> [Effect] {
        guard case .monitor = job.job else { return [] }
        let unmeasured = s.regionWatch.unmeasured
        guard unmeasured.count > job.unmeasuredWarned else { return [] }
        defer { job.unmeasuredWarned = unmeasured.count }
        return unmeasured.dropFirst(job.unmeasuredWarned).map { address in
            .output(.warning("beacon \(address) is heard without an RSSI (the controller reports none, or the "
                             + "kernel drops its reports under --rssi-floor): it cannot bring a region in"))
        }
    }
}
