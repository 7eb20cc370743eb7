@preconcurrency import Glibc
import Explorer

/// iBeacon regions: the app's regions panel and `monitor` share these options.
struct RegionFlags {
    var regions: [Region] = [], regionsGiven = false   // the configuration's, until the command line names its own
    var config = RegionConfig()
    var onEnter: String?
    var onExit: String?

    mutating func flag(_ a: String, _ args: inout Args) -> Bool {
        switch a {
        case "--region":
            switch Region.parse(args.value(a)) {
            case let .success(r):
                if !regionsGiven { regions = []; regionsGiven = true }
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

/// The region's --on-enter / --on-exit command, if it has one, run with the transition.
@MainActor
func runRegionCommand(_ flags: RegionFlags, _ t: RegionTransition, loop: EventLoop,
                      report: @escaping @MainActor (String, Bool) -> Void) {
    guard let command = t.kind == .enter ? flags.onEnter : flags.onExit else { return }
    RegionCommand.run(command, t, loop: loop, report: report)
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
