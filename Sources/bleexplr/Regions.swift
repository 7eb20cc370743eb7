@preconcurrency import Glibc
import Explorer

let monitorUsage = """
       bleexplr [OPTIONS] monitor --region NAME=UUID[:MAJOR[:MINOR]]... [--enter-rssi DBM]
                [--exit-rssi DBM] [--exit-after S] [--on-enter CMD] [--on-exit CMD]
                [--duration S] [--json]
"""

/// iBeacon regions: the app's regions panel and `monitor` share these options.
struct RegionFlags {
    var regions: [Region] = []
    var config = PresenceConfig()
    var onEnter: String?
    var onExit: String?

    mutating func flag(_ a: String, _ args: inout Args) -> Bool {
        switch a {
        case "--region":
            switch Region.parse(args.value(a)) {
            case let .success(r):
                guard !regions.contains(where: { $0.name == r.name }) else { fail("region '\(r.name)' is given twice") }
                regions.append(r)
            case let .failure(e): fail(e.message)
            }
        case "--enter-rssi": config.enterRSSI = args.int(a, -127...20)
        case "--exit-rssi": config.exitRSSI = args.int(a, -127...20)
        case "--exit-after": config.exitAfter = args.seconds(a, max: 3600)
        case "--on-enter": onEnter = args.value(a)
        case "--on-exit": onExit = args.value(a)
        default: return false
        }
        return true
    }

    func validate() {
        guard config.exitRSSI <= config.enterRSSI else {
            fail("--exit-rssi (\(config.exitRSSI)) must be at or below --enter-rssi (\(config.enterRSSI)): the gap is what stops flapping")
        }
    }
}

struct MonitorPlan {
    var duration: Double?
}

struct MonitorVerb: VerbParser {
    var duration: Double?
    mutating func flag(_ flag: String, _ args: inout Args) -> Bool {
        guard flag == "--duration" else { return false }
        duration = args.seconds(flag)
        return true
    }
    func verb(_ rest: [String], _ options: Options) -> Verb {
        guard rest.isEmpty else { fail("usage: bleexplr monitor --region NAME=UUID[:MAJOR[:MINOR]]... (see --help)") }
        guard !options.regions.regions.isEmpty || options.demo else { fail("monitor needs at least one --region NAME=UUID[:MAJOR[:MINOR]]") }
        options.regions.validate()
        return .monitor(MonitorPlan(duration: duration))
    }
}

/// Runs the region's --on-enter / --on-exit command with the transition in BLE_*
/// variables, and reports how it went.
@MainActor
func runRegionCommand(_ flags: RegionFlags, _ t: RegionTransition, loop: EventLoop,
                      report: @escaping @MainActor (String, Bool) -> Void) {
    guard let command = t.kind == .enter ? flags.onEnter : flags.onExit else { return }
    var env = [("BLE_REGION", t.region), ("BLE_EVENT", t.kind.rawValue), ("BLE_TIME", t.at.iso8601)]
    if let b = t.beacon {
        env += [("BLE_ADDRESS", b.address), ("BLE_MAJOR", String(b.major)), ("BLE_MINOR", String(b.minor)),
                ("BLE_RSSI", b.rssi.map(String.init) ?? "")]
    }
    ChildProcess.run(["/bin/sh", "-c", command], environment: env, loop: loop, timeout: 60) { status, output in
        let last = output.split(separator: "\n").last.map { TerminalSafe.text(String($0.prefix(120))) } ?? ""
        let name = "\(t.kind == .enter ? "--on-enter" : "--on-exit") for \(t.region)"
        switch status {
        case .exited(0): report("\(name): exit 0" + (last.isEmpty ? "" : ": " + last), false)
        case let .exited(code): report("\(name): exit \(code)" + (last.isEmpty ? "" : ": " + last), true)
        case let .signalled(sig): report("\(name): killed by signal \(sig)", true)
        case .timedOut: report("\(name): still running after 60 s, killed", true)
        case let .failedToStart(why): report("\(name): \(why)", true)
        }
    }
}

/// `monitor`: scans, and prints each region's enter and exit (JSON Lines with --json),
/// running their commands. Runs until a signal or --duration.
@MainActor
final class Monitor {
    let store: Store
    let backend: Backend
    let runner: EffectRunner
    let loop: EventLoop
    let flags: RegionFlags
    let plan: MonitorPlan
    let json: Bool

    init(store: Store, backend: Backend, runner: EffectRunner, loop: EventLoop, flags: RegionFlags, plan: MonitorPlan, json: Bool) {
        self.store = store; self.backend = backend; self.runner = runner; self.loop = loop
        self.flags = flags; self.plan = plan; self.json = json
    }

    func run(recordTo: String?) -> Int32 {
        runner.onQuit = { [unowned self] in self.loop.stop() }
        SignalPipe.install([SIGINT, SIGTERM, SIGHUP], loop: loop) { [unowned self] _ in self.loop.stop() }
        loop.beforeWait = { [unowned self] in self.runner.flush() }
        runner.onRegionChanged = { [unowned self] t in
            if self.json {
                print(t.json)
            } else {
                let b = t.beacon.map { "  \($0.address) \($0.major)/\($0.minor) \($0.rssi.map { "\($0) dBm" } ?? "RSSI n/a")" } ?? ""
                print("\(t.at.iso8601)  \(t.kind == .enter ? "enter" : "exit ")  \(TerminalSafe.text(t.region))\(b)")
            }
            fflush(stdout)
            runRegionCommand(self.flags, t, loop: self.loop) { message, problem in
                fputs("bleexplr: \(message)\n", stderr)
                self.store.send(.commandReported(message, problem: problem))
            }
        }
        backend.start(loop: loop) { [unowned self] event, at in
            self.store.send(.backend(event, at: at))
            if case let .scanFailed(error) = event { fputs("bleexplr: scan failed: \(error)\n", stderr) }
        }
        store.send(.appStarted(recordTo: recordTo))
        var warned = 0
        func tick() {
            store.send(.tick(Timestamp.now()))
            let unmeasured = store.state.presence.unmeasured
            for address in unmeasured.dropFirst(warned) {
                fputs("bleexplr: beacon \(address) is heard without an RSSI (the controller reports none, or the "
                      + "kernel drops its reports under --rssi-floor): it cannot bring a region in\n", stderr)
            }
            warned = unmeasured.count
            loop.schedule(after: 1) { tick() }
        }
        loop.schedule(after: 1) { tick() }
        if let d = plan.duration { loop.schedule(after: d) { [unowned self] in self.loop.stop() } }
        if !json {
            let names = store.state.presence.regions.map { "\($0.region.name)=\($0.region.spec)" }.joined(separator: ", ")
            fputs("bleexplr: monitoring \(names) (enter at \(flags.config.enterRSSI) dBm, exit below \(flags.config.exitRSSI) dBm for \(formatFixed(flags.config.exitAfter, 0)) s)\n", stderr)
        }
        loop.run()
        backend.shutdown()
        runner.finish()
        return 0
    }
}
