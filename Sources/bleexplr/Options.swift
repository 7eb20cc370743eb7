@preconcurrency import Glibc
import Explorer

let usage = """
usage: bleexplr [OPTIONS]                          the full-screen explorer
       bleexplr [OPTIONS] scan [--duration S] [--json]
       bleexplr [OPTIONS] services ADDRESS [--json]
       bleexplr [OPTIONS] read ADDRESS UUID [--offset N] [--json]   N: from byte N on
       bleexplr [OPTIONS] write ADDRESS UUID VALUE [--without-response] [--json]
       bleexplr [OPTIONS] notify ADDRESS UUID [--count N] [--duration S] [--json]
                [--until EOM [--output FILE]]   reassemble a chunked message, with throughput
\(replayUsage)
\(serveUsage)
\(watchUsage)
\(monitorUsage)

A full-screen explorer for Bluetooth Low Energy. The commands run without a screen,
print results (JSON Lines with --json) and exit 0 on success, 1 on failure.
VALUE is hex (01ff, "01 ff") or text in quotes ('"hello"').

Options:
  --demo             use the built-in simulated world (no Bluetooth adapter needed)
  --seed N           seed of the simulated world, for a reproducible run (default 1)
  --demo-control FIFO  in the demo, read commands from FIFO: "press", "drop"
  --demo-recording FILE  the demo plays FILE (a recording) in a loop instead of the
                     built-in world
  --bus ADDRESS      D-Bus address of bluetoothd's bus (default: the system bus),
                     e.g. unix:path=/run/dbus/system_bus_socket or tcp:host=127.0.0.1,port=17777
  --adapter hciN     adapter to use (default: the first powered one)
  --rssi-floor DBM   RSSI discovery filter, or "off" (default -127). Without one, BlueZ
                     reports RSSI only when it moves by 8 dB; with one, the kernel drops
                     reports whose RSSI is "not available" (some controllers send only those)
  --record FILE      record the session to FILE (JSON Lines; R toggles it in the app)
  --crowd N          add N anonymous devices to the simulated world
  --eom TEXT         what ends a message in the app's message view (m); default EOM
  --region NAME=UUID[:MAJOR[:MINOR]]  an iBeacon region (repeatable), for the app's
                     regions panel (b) and monitor. Inside when a beacon is heard at or
                     above --enter-rssi (default -75); outside after --exit-after S
                     (default 10) without one at or above --exit-rssi (default -85).
                     --on-enter CMD / --on-exit CMD run with BLE_REGION, BLE_EVENT,
                     BLE_ADDRESS, BLE_MAJOR, BLE_MINOR, BLE_RSSI, BLE_TIME set
  --secrets FILE     NAME=value lines (mode 600) for ${NAME} in actions' URLs, headers
                     and bodies; the environment is used for names not in it

Actions (watch, and `a` on a characteristic screen in the app):
  --exec CMD         run CMD with BLE_HEX, BLE_TEXT, BLE_DECODED, BLE_ADDRESS, BLE_UUID,
                     BLE_NAME, BLE_TIME, BLE_SEQ set; exit 0 is delivered, others retried
                     (5 attempts)
  --post URL         send an HTTP POST; 2xx is delivered; no answer, 408, 429 and 5xx are
                     retried with backoff for as long as it takes; other answers rejected
  --header 'N: V'    a request header (repeatable); V may use ${NAME}
  --body TEMPLATE    the request body, with {{hex}} {{text}} {{decoded}} {{address}}
                     {{uuid}} {{name}} {{time}} {{seq}} (JSON-escaped in a JSON body);
                     default: a JSON object with all of them
  --debounce MS      ignore notifications within MS of the last one that fired
  --queue FILE       where events wait for delivery (default
                     ~/.local/state/bleexplr/watch-ADDRESS-UUID.jsonl); survives restarts
  --queue-size N     at most N waiting events (default 1000); the oldest is dropped, and
                     said so, when full
  --version          print the version
  -h, --help         this help

Keys in the app: arrows or j/k move, Enter connects/opens, Esc goes back, / filters,
a attaches a hook to a characteristic, b shows iBeacon regions, ? lists every key,
q quits. In the demo, SIGUSR1 presses the iTag's button. In a
replay: p pauses, x cycles the speed (1x, 10x, max), [ ] seek 10 s, { } a minute.
See docs/hooks.md for watch and monitor, with a kintone example.
"""

/// What the process does: the app, or one command without a screen.
enum Verb {
    case app
    /// A command without a screen; `messageFile`: where `notify --until --output` writes.
    case command(Job, messageFile: String? = nil)
    case watch(WatchPlan)
    /// The app over a recording.
    case replay(ReplayPlan)
    /// A peripheral over BlueZ.
    case serve(ServePlan)
}

struct Options {
    var demo = false
    var seed: UInt64 = 1
    var demoControl: String?
    var demoRecording: String?
    var record: String?
    var crowd = 0
    /// `--eom TEXT`: the end marker of the message view.
    var eom: String?
    var bus: String?
    var adapter: String?
    var rssiFloor: Int? = -127
    var json = false
    var regions = RegionFlags()
    var secrets: String?
    var verb = Verb.app
}

func fail(_ message: String) -> Never {
    fputs("bleexplr: \(message)\n", stderr)
    exit(2)
}

/// The command line, read one argument at a time. Every argument is untrusted: a bad one
/// is a one-line error naming the flag.
struct Args {
    let all: [String]
    var i = 0

    mutating func value(_ flag: String) -> String {
        i += 1
        guard i < all.count else { fail("\(flag) needs a value (see --help)") }
        return all[i]
    }

    mutating func seconds(_ flag: String, max: Double = 86_400) -> Double {
        let v = value(flag)
        guard let d = Double(v), d > 0, d <= max else { fail("\(flag) takes seconds (0 < S <= \(Int(max))), not '\(v)'") }
        return d
    }

    mutating func int(_ flag: String, _ range: ClosedRange<Int>) -> Int {
        let v = value(flag)
        guard let n = Int(v), range.contains(n) else { fail("\(flag) takes \(range.lowerBound)...\(range.upperBound), not '\(v)'") }
        return n
    }
}

/// One verb's own flags and positional arguments.
protocol VerbParser {
    /// Takes `flag` (and its value from `args`) if it is this verb's; false otherwise.
    mutating func flag(_ flag: String, _ args: inout Args) -> Bool
    func verb(_ positional: [String], _ options: Options) -> Verb
}

/// The verbs and their parsers.
func verbParser(_ name: String) -> (any VerbParser)? {
    switch name {
    case "scan", "services", "read", "write", "notify", "bench-ingest": return HeadlessVerb(name: name)
    case "watch": return WatchVerb()
    case "monitor": return MonitorVerb()
    case "replay": return ReplayVerb()
    case "serve": return ServeVerb()
    default: return nil
    }
}

/// Parses the command line: global options anywhere, then the verb and its own flags.
func parse(_ all: [String]) -> Options {
    var o = Options()
    var args = Args(all: all)
    var verb: (name: String, parser: any VerbParser)?
    var positional: [String] = []
    while args.i < all.count {
        let a = all[args.i]
        if !global(a, &o, &args) {
            if a.hasPrefix("-") && a.count > 1 && Double(a) == nil {
                guard var v = verb, v.parser.flag(a, &args) else {
                    fail("unknown option '\(TerminalSafe.text(a))'\(verb.map { " for \($0.name)" } ?? "") (see --help)")
                }
                verb = v
            } else if verb == nil {
                guard let p = verbParser(a) else { fail("unknown command '\(TerminalSafe.text(a))' (see --help)") }
                verb = (a, p)
            } else {
                positional.append(a)
            }
        }
        args.i += 1
    }
    if let verb { o.verb = verb.parser.verb(positional, o) }
    if case .app = o.verb { o.regions.validate() }
    return o
}

/// The options every verb shares. True when `a` was one of them.
private func global(_ a: String, _ o: inout Options, _ args: inout Args) -> Bool {
    switch a {
    case "--demo": o.demo = true
    case "--seed":
        let v = args.value(a)
        guard let n = UInt64(v) else { fail("--seed takes a whole number, not '\(v)'") }
        o.seed = n
    case "--demo-control":
        let v = args.value(a)
        guard !v.isEmpty else { fail("--demo-control needs a FIFO path") }
        o.demoControl = v
    case "--demo-recording":
        let v = args.value(a)
        guard !v.isEmpty else { fail("--demo-recording needs a recording file") }
        o.demoRecording = v
    case "--record":
        let v = args.value(a)
        guard !v.isEmpty else { fail("--record needs a file name") }
        o.record = v
    case "--crowd": o.crowd = args.int(a, 0...100_000)
    case "--eom":
        let v = args.value(a)
        guard !v.isEmpty, v.utf8.count <= 64, !v.unicodeScalars.contains(where: { TerminalSafe.isUnsafe($0) }) else {
            fail("--eom takes the text that ends a message (1 to 64 printable bytes), like EOM")
        }
        o.eom = v
    case "--bus":
        let v = args.value(a)
        guard !v.isEmpty, v.utf8.count < 1024, !v.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            fail("--bus takes a D-Bus address like unix:path=/run/dbus/system_bus_socket")
        }
        o.bus = v
    case "--adapter":
        let v = args.value(a)
        guard v.hasPrefix("hci"), let n = Int(v.dropFirst(3)), n >= 0, n < 1000 else {
            fail("--adapter takes an adapter name like hci0, not '\(v)'")
        }
        o.adapter = v
    case "--rssi-floor":
        let v = args.value(a)
        if v == "off" { o.rssiFloor = nil } else {
            guard let n = Int(v), n >= -127, n <= 20 else { fail("--rssi-floor takes -127...20 dBm or off, not '\(v)'") }
            o.rssiFloor = n
        }
    case "--json": o.json = true
    case "--secrets":
        let v = args.value(a)
        guard !v.isEmpty else { fail("--secrets needs a file name") }
        o.secrets = v
    case "--version": print("bleexplr \(BleexplrVersion.current)"); exit(0)
    case "-h", "--help": print(usage); exit(0)
    default:
        return o.regions.flag(a, &args)
    }
    return true
}

func parseAddress(_ s: String) -> String {
    let parts = s.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
        fail("'\(TerminalSafe.text(s))' is not a Bluetooth address like AA:BB:CC:DD:EE:FF")
    }
    return s.uppercased()
}

func parseUUID(_ s: String) -> BLEUUID {
    guard let u = BLEUUID(s) else { fail("'\(TerminalSafe.text(s))' is not a UUID (180D, 0x2A37 or 128-bit)") }
    return u
}

/// scan, services, read, write, notify, bench-ingest.
struct HeadlessVerb: VerbParser {
    let name: String
    var duration: Double?, count: Int?, withoutResponse = false, offset: UInt16?
    var until: Bytes?, output: String?

    mutating func flag(_ flag: String, _ args: inout Args) -> Bool {
        switch flag {
        case "--duration": duration = args.seconds(flag)
        case "--count": count = args.int(flag, 1...Int(Int32.max))
        case "--without-response": withoutResponse = true
        case "--offset": offset = UInt16(args.int(flag, 0...Int(UInt16.max)))
        case "--until":
            let v = args.value(flag)
            guard !v.isEmpty, v.utf8.count <= 64 else { fail("--until takes an end marker like EOM") }
            until = Array(v.utf8)
        case "--output":
            let v = args.value(flag)
            guard !v.isEmpty else { fail("--output needs a file name") }
            output = v
        default: return false
        }
        return true
    }

    func verb(_ rest: [String], _ options: Options) -> Verb {
        func need(_ n: Int, _ form: String) {
            guard rest.count == n else { fail("usage: bleexplr \(form)") }
        }
        if offset != nil, name != "read" { fail("--offset goes with read") }
        switch name {
        case "scan":
            need(0, "scan [--duration S] [--json]")
            return .command(.scan(duration: duration ?? 5))
        case "services":
            need(1, "services ADDRESS [--json]")
            return .command(.services(address: parseAddress(rest[0])))
        case "read":
            need(2, "read ADDRESS UUID [--offset N] [--json]")
            return .command(.read(address: parseAddress(rest[0]), uuid: parseUUID(rest[1]), offset: offset ?? 0))
        case "write":
            need(3, "write ADDRESS UUID VALUE [--without-response]")
            switch WriteValue.parse(rest[2]) {
            case let .success(bytes):
                return .command(.write(address: parseAddress(rest[0]), uuid: parseUUID(rest[1]), value: bytes,
                                       type: withoutResponse ? .command : .request))
            case let .failure(e): fail(e.message)
            }
        case "notify":
            need(2, "notify ADDRESS UUID [--count N] [--duration S] [--until EOM [--output FILE]] [--json]")
            if output != nil, until == nil { fail("--output goes with --until MARKER") }
            return .command(.notify(address: parseAddress(rest[0]), uuid: parseUUID(rest[1]), count: count, duration: duration,
                                    until: until), messageFile: output)
        default:
            need(0, "bench-ingest   (the D-Bus signal-storm benchmark's consumer; see docs/bench.md)")
            return .command(.scanUntilNamed("BENCH-END"))
        }
    }
}
