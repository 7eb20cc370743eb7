@preconcurrency import Glibc
import Explorer
import WebHook

let watchUsage = """
       bleexplr [OPTIONS] watch ADDRESS UUID (--exec CMD | --post URL [--header 'Name: value']...
                [--body TEMPLATE]) [--debounce MS] [--queue FILE] [--queue-size N] [--json]
"""

struct WatchPlan {
    var address: String
    var uuid: BLEUUID
    var target: ActionTarget
    var debounce: Double
    var queuePath: String
    var queueSize: Int
}

struct WatchVerb: VerbParser {
    var exec: String?, post: String?, headers: [HTTPHeader] = [], body: String?
    var debounceMS = 0, queue: String?, queueSize = 1000

    mutating func flag(_ flag: String, _ args: inout Args) -> Bool {
        switch flag {
        case "--exec": exec = args.value(flag)
        case "--post": post = args.value(flag)
        case "--header":
            switch HTTPHeader.parse(args.value(flag)) {
            case let .success(h): headers.append(h)
            case let .failure(e): fail(e.message)
            }
        case "--body": body = args.value(flag)
        case "--debounce": debounceMS = args.int(flag, 0...600_000)
        case "--queue": queue = args.value(flag)
        case "--queue-size": queueSize = args.int(flag, 1...1_000_000)
        default: return false
        }
        return true
    }

    func verb(_ rest: [String], _ options: Options) -> Verb {
        guard rest.count == 2 else { fail("usage: bleexplr watch ADDRESS UUID (--exec CMD | --post URL) (see --help)") }
        let address = parseAddress(rest[0]), uuid = parseUUID(rest[1])
        let target: ActionTarget
        switch (exec, post) {
        case let (cmd?, nil):
            guard headers.isEmpty, body == nil else { fail("--header and --body go with --post, not --exec") }
            target = .exec(command: cmd)
        case let (nil, url?):
            switch HTTPAction.make(url: url, headers: headers, body: body) {
            case let .success(h): target = .post(h)
            case let .failure(e): fail(e.message)
            }
            for h in headers where h.isSecret && !h.value.contains("${") {
                fputs("bleexplr: warning: the \(h.name) header is given literally, so other users can see it in the process list; use \(h.name): ${NAME} with NAME in the environment or --secrets FILE\n", stderr)
            }
        default: fail("watch takes one of --exec CMD or --post URL")
        }
        let path = queue ?? defaultQueuePath(address, uuid)
        return .watch(WatchPlan(address: address, uuid: uuid, target: target, debounce: Double(debounceMS) / 1000,
                                queuePath: path, queueSize: queueSize))
    }

    /// `$XDG_STATE_HOME/bleexplr/watch-AABBCCDDEEFF-ffe1.jsonl` (or ~/.local/state/…).
    func defaultQueuePath(_ address: String, _ uuid: BLEUUID) -> String {
        var dir: String
        if let x = getenv("XDG_STATE_HOME"), x.pointee != 0 { dir = String(cString: x) }
        else if let h = getenv("HOME"), h.pointee != 0 { dir = String(cString: h) + "/.local/state" }
        else { dir = "/tmp" }
        dir += "/bleexplr"
        var partial = ""
        for part in dir.split(separator: "/") {
            partial += "/" + part
            mkdir(partial, 0o700)
        }
        // ffe1 for 16-bit SIG UUIDs, 8 digits for 32-bit ones, the whole UUID otherwise.
        let short = uuid.shortValue != nil ? uuid.description.lowercased() : uuid.canonical
        return dir + "/watch-" + address.filter { $0 != ":" } + "-" + short + ".jsonl"
    }
}

/// `watch`: keeps a subscription to one characteristic alive (reconnecting with backoff
/// when the link drops, as iTags do) and fires the action for each notification. Events
/// are queued on disk before delivery, so neither an offline server nor a restart of
/// watch loses a press.
@MainActor
final class Watch {
    let store: Store
    let backend: Backend
    let runner: EffectRunner
    let loop: EventLoop
    let plan: WatchPlan
    let json: Bool
    let delivery: ActionDelivery
    private var target: PeripheralID?
    private var characteristic: GATTCharacteristic?
    private var linkAttempts = 0
    private var reconnectTimer: EventLoop.TimerID?
    private var lastFired: Double?
    private var stopping = false
    /// 1 when watching cannot work (the characteristic cannot notify).
    private var exitCode: Int32 = 0
    private let linkBackoff = Backoff(initial: 1, limit: 30)

    init(store: Store, backend: Backend, runner: EffectRunner, loop: EventLoop, plan: WatchPlan, json: Bool,
         delivery: ActionDelivery) {
        self.store = store; self.backend = backend; self.runner = runner; self.loop = loop
        self.plan = plan; self.json = json; self.delivery = delivery
    }

    private func say(_ event: String, _ message: String, seq: Int? = nil) {
        if json {
            var j = JSONLine()
            j.string("t", Timestamp.now().iso8601); j.string("event", event); j.int("seq", seq); j.string("message", message)
            print(j.finish())
        } else {
            print("\(Timestamp.now().clockTime)  \(TerminalSafe.text(message))")
        }
        fflush(stdout)
    }

    func run(recordTo: String?) -> Int32 {
        runner.onQuit = { [unowned self] in self.loop.stop() }
        SignalPipe.install([SIGINT, SIGTERM, SIGHUP], loop: loop) { [unowned self] _ in self.leave() }
        loop.beforeWait = { [unowned self] in self.runner.flush() }
        delivery.onReport = { [unowned self] report in
            self.say("action", report.text, seq: report.seq)
            self.store.send(.actionReported(report, for: nil))
        }
        say("start", "watching \(plan.address) \(plan.uuid) → \(plan.target.summary); queue \(plan.queuePath)"
            + (delivery.pendingCount > 0 ? " (\(delivery.pendingCount) events from an earlier run to deliver)" : ""))
        if delivery.queue.skippedLines > 0 {
            say("warning", "skipped \(delivery.queue.skippedLines) unreadable line(s) of the queue file")
        }
        backend.start(loop: loop) { [unowned self] event, at in
            self.store.send(.backend(event, at: at))
            event.forEachFact { self.handle($0, at: at) }
        }
        store.send(.appStarted(recordTo: recordTo))
        delivery.start()
        loop.run()
        backend.shutdown()
        runner.finish()
        return exitCode
    }

    private func leave() {
        guard !stopping else { return }
        stopping = true
        if delivery.pendingCount > 0 {
            say("stop", "\(delivery.pendingCount) event(s) stay queued in \(plan.queuePath) for the next run")
        }
        if let id = target, let p = store.state.peripherals[id], p.connection != .disconnected {
            backend.execute(.disconnect(id))
            loop.schedule(after: 3) { [unowned self] in self.loop.stop() }
        } else {
            loop.stop()
        }
    }

    private func handle(_ event: BackendEvent, at: Timestamp) {
        if stopping {
            if case let .disconnected(id, _) = event, id == target { loop.stop() }
            return
        }
        switch event {
        case .advertisementReceived where target == nil:
            guard let p = store.state.peripherals.values.first(where: { $0.address.uppercased() == plan.address }) else { return }
            target = p.id
            backend.execute(.stopScan)
            connect()
        case let .servicesResolved(id, services, _) where id == target:
            guard let c = services.flatMap(\.characteristics).first(where: { $0.uuid == plan.uuid }) else {
                say("error", "\(plan.address) has no characteristic \(plan.uuid); will look again after the next connection")
                scheduleReconnect(disconnectFirst: true)
                return
            }
            guard c.properties.contains(.notify) || c.properties.contains(.indicate) else {
                fputs("bleexplr: \(plan.uuid) on \(plan.address) neither notifies nor indicates\n", stderr)
                exitCode = 1
                leave()
                return
            }
            characteristic = c
            backend.execute(.setNotify(id, c.id, true))
        case let .notifyChanged(cid, enabled, error) where cid == characteristic?.id:
            if let error {
                say("error", "subscribing failed: \(error); reconnecting")
                scheduleReconnect(disconnectFirst: true)
            } else if enabled {
                linkAttempts = 0
                say("subscribed", "connected and subscribed to \(plan.uuid)")
            }
        case let .valueNotified(cid, bytes) where cid == characteristic?.id:
            let now = monotonicSeconds()
            if plan.debounce > 0, let last = lastFired, now - last < plan.debounce { return }
            lastFired = now
            delivery.fire(FiredEvent(at: at, address: plan.address, uuid: plan.uuid, bytes: bytes))
        case let .connectFailed(id, error) where id == target:
            say("link", "connecting failed: \(error)")
            scheduleReconnect(disconnectFirst: false)
        case let .disconnected(id, reason) where id == target:
            characteristic = nil
            say("link", "link lost: \(reason)")
            scheduleReconnect(disconnectFirst: false)
        case let .peripheralRemoved(id) where id == target:
            // BlueZ forgets a device it has not seen for a while: find it again.
            if let t = reconnectTimer { loop.cancel(t); reconnectTimer = nil }
            target = nil
            characteristic = nil
            say("link", "\(plan.address) is gone from the adapter's list; scanning for it")
            backend.execute(.startScan)
        case let .failure(error) where characteristic == nil && target != nil:
            say("error", error.description)
        default:
            break
        }
    }

    private func connect() {
        guard let id = target else { return }
        linkAttempts += 1
        backend.execute(.connect(id))
    }

    private func scheduleReconnect(disconnectFirst: Bool) {
        guard reconnectTimer == nil, let id = target else { return }
        if disconnectFirst { backend.execute(.disconnect(id)) }
        let after = linkBackoff.delay(afterAttempt: max(linkAttempts, 1))
        say("link", "reconnecting in \(formatFixed(after, 0)) s")
        reconnectTimer = loop.schedule(after: after) { [unowned self] in
            self.reconnectTimer = nil
            guard !self.stopping else { return }
            if let p = self.store.state.peripherals[id], p.connection.isLinkUp { return }
            self.connect()
        }
    }
}
