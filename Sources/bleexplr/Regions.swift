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
    var config = RegionConfig()
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
        return .command(.monitor(duration: duration))
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

/// `monitor`: the job prints each region's enter and exit (JSON Lines with --json); here
/// their commands are run. Runs until a signal or --duration.
@MainActor
func runMonitor(_ flags: RegionFlags, _ command: CommandRun, json: Bool, recordTo: String?) -> Int32 {
    command.runner.onRegionChanged = { t in
        runRegionCommand(flags, t, loop: command.loop) { message, problem in
            fputs("bleexplr: \(message)\n", stderr)
            command.store.send(.commandReported(message, problem: problem))
        }
    }
    if !json {
        let names = command.store.state.regionWatch.regions.map { "\($0.region.name)=\($0.region.spec)" }.joined(separator: ", ")
        fputs("bleexplr: monitoring \(names) (enter at \(flags.config.enterRSSI) dBm, exit below \(flags.config.exitRSSI) dBm for \(formatFixed(flags.config.exitAfter, 0)) s)\n", stderr)
    }
    return command.run(recordTo: recordTo, ticks: true)
}
