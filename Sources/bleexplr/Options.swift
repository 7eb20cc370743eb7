@preconcurrency import Glibc
import Explorer
import DBus

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
    /// Raw advertising payloads to decode: no backend.
    case decode(DecodeReport)
}

struct Options {
    var demo = false
    var seed: UInt64 = 1
    var demoControl: String?
    var demoRecording: String?
    var record: String?
    var crowd = 0
    /// `--eom TEXT`: the end marker of the message view.
    var eom: Bytes?
    var agent = AgentSettings()
    var bus: String?
    var adapter: String?
    var rssiFloor: Int? = -127
    var json = false
    var regions = RegionFlags()
    var secrets: String?
    /// `--key ADDRESS=HEX`: bind keys that open encrypted advertisements (BTHome).
    var keys: [String: Bytes] = [:]
    var verb = Verb.app
}

func fail(_ message: String, code: ExitCode = .usage) -> Never {
    fputs("bleexplr: \(TerminalSafe.lines(message))\n", stderr)   // every fatal line, whatever it quotes
    exit(code.rawValue)
}

/// Exits with `code`, or with ExitCode.output when standard output could not be written.
func finish(_ code: Int32) -> Never {
    if let problem = StandardOutput.problem() { fail(problem, code: .output) }
    exit(code)
}

func failBus(_ e: DBusError, _ address: String?) -> Never {
    let (message, code) = BusFailure.report(name: e.name, message: e.message, address: address)
    fail(message, code: code)
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

    /// A value that may not be empty: `needs` says what it takes ("a file name").
    mutating func nonEmpty(_ flag: String, needs: String) -> String {
        let v = value(flag)
        guard !v.isEmpty else { fail("\(flag) needs \(needs)") }
        return v
    }

    mutating func framing(_ flag: String) -> StreamFraming {
        let v = value(flag)
        guard let f = StreamFraming(rawValue: v) else { fail("\(flag) takes plain or seq, not '\(v)'") }
        return f
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
    case "scan", "services", "pair", "forget", "read", "write", "notify", "decode", "bench-ingest": return CommandVerb(name: name)
    case "watch": return WatchVerb()
    case "monitor": return MonitorVerb()
    case "replay": return ReplayVerb()
    case "serve": return ServeVerb()
    default: return nil
    }
}

/// Parses the command line: global options anywhere, then the verb and its own flags.
func parse(_ all: [String]) -> Options {
    var o = Options()   // the configuration's defaults first: the command line overrides them
    if case let .success(c) = UserConfig.loaded { o.adapter = c.adapter; o.regions.regions = c.regions; o.regions.config = c.regionConfig }
    if case let .success(c) = UserConfig.loaded, let f = c.rssiFloor { o.rssiFloor = f }
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
    case "--demo-control": o.demoControl = args.nonEmpty(a, needs: "a FIFO path")
    case "--demo-recording": o.demoRecording = args.nonEmpty(a, needs: "a recording file")
    case "--record": o.record = args.nonEmpty(a, needs: "a file name")
    case "--crowd": o.crowd = args.int(a, 0...100_000)
    case "--eom":
        guard let m = StreamAssembly.marker(args.value(a)) else { fail("--eom takes the text that ends a message (1 to 64 printable bytes), like EOM") }
        o.eom = m
    case _ where AgentSettings.flags.contains(a):
        if case let .failure(e) = o.agent.apply(a, args.value(a)) { fail(e.message) }
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
    case "--secrets": o.secrets = args.nonEmpty(a, needs: "a file name")
    case "--key":
        switch BindKeys.parse(args.value(a)) {
        case let .success((address, key)): o.keys[address] = key
        case let .failure(e): fail(e.message)
        }
    case "--version": print(CommandLineSpec.versionLine(commit: buildCommit)); finish(0)
    case "--man": print(ManPage.roff(version: CommandLineSpec.versionLine(commit: buildCommit)), terminator: ""); finish(0)
    case "--completion":
        guard let s = Completions.Shell(rawValue: args.value(a)) else { fail("--completion takes bash, zsh or fish") }
        print(Completions.script(s), terminator: ""); finish(0)
    case "-h", "--help": print(Usage.text); finish(0)
    default:
        return o.regions.flag(a, &args)
    }
    return true
}

func parseAddress(_ s: String) -> String {
    guard let a = PeripheralID.address(s) else { fail("'\(TerminalSafe.text(s))' is not a Bluetooth address like AA:BB:CC:DD:EE:FF") }
    return a
}

func parseUUID(_ s: String) -> BLEUUID {
    guard let u = BLEUUID(s) else { fail("'\(TerminalSafe.text(s))' is not a UUID (180D, 0x2A37 or 128-bit)") }
    return u
}

/// scan, services, read, write, notify, decode, bench-ingest.
struct CommandVerb: VerbParser {
    let name: String
    var duration: Double?, count: Int?, type: WriteType?, offset: UInt16?, descriptor: BLEUUID?
    var until: Bytes?, output: String?, framing: StreamFraming?
    /// `write --file PATH` (`-`: standard input).
    var file: String?

    mutating func flag(_ flag: String, _ args: inout Args) -> Bool {
        switch flag {
        case "--duration": duration = args.seconds(flag)
        case "--count": count = args.int(flag, 1...Int(Int32.max))
        case "--without-response": type = .command
        case "--type": guard let t = WriteType(rawValue: args.value(flag)) else { fail("--type takes request, command or reliable") }; type = t
        case "--descriptor": descriptor = parseUUID(args.value(flag))
        case "--offset": offset = UInt16(args.int(flag, 0...Int(UInt16.max)))
        case "--until":
            let v = args.value(flag)
            guard !v.isEmpty, v.utf8.count <= 64 else { fail("--until takes an end marker like EOM") }
            until = Array(v.utf8)
        case "--output": output = args.nonEmpty(flag, needs: "a file name")
        case "--framing": framing = args.framing(flag)
        case "--file": file = args.nonEmpty(flag, needs: "a file name (- for standard input)")
        default: return false
        }
        return true
    }

    func verb(_ rest: [String], _ options: Options) -> Verb {
        func need(_ n: Int, _ form: String) {
            guard rest.count == n else { fail("usage: bleexplr \(form)") }
        }
        if offset != nil, name != "read" || descriptor != nil { fail("--offset goes with read of a characteristic") }
        if descriptor != nil, name != "read" && name != "write" || type != nil { fail("--descriptor goes with read and write (no --type)") }
        switch name {
        case _ where file != nil && name != "write":
            fail("--file goes with write")
        case "scan":
            need(0, "scan [--duration S] [--json]")
            return .command(.scan(duration: duration))   // none: live, until stopped
        case "services":
            need(1, "services ADDRESS [--json]")
            return .command(.services(address: parseAddress(rest[0])))
        case "pair":
            need(1, "pair ADDRESS [--passkey N] [--confirm yes|no]")
            return .command(.pair(address: parseAddress(rest[0])))
        case "forget":
            need(1, "forget ADDRESS")
            return .command(.forget(address: parseAddress(rest[0])))
        case "read":
            need(2, "read ADDRESS UUID [--offset N | --descriptor UUID] [--json]")
            return .command(.reading(address: parseAddress(rest[0]), uuid: parseUUID(rest[1]), offset: offset ?? 0, descriptor: descriptor))
        case "write" where file != nil:
            need(2, "write ADDRESS UUID --file PATH [--type command|request] [--framing plain|seq] [--json]")
            if descriptor != nil || type == .reliable { fail("--file writes a characteristic with --type command or request") }
            let address = parseAddress(rest[0]), uuid = parseUUID(rest[1])
            return .command(.writeStream(address: address, uuid: uuid, data: streamFile(file ?? "-", framed: framing != nil),
                                         type: type, framing: framing))
        case "write":
            if framing != nil { fail("--framing goes with --file (write) or --until (notify)") }
            need(3, "write ADDRESS UUID VALUE [--type request|command|reliable | --descriptor UUID]")
            switch WriteValue.parse(rest[2]) {
            case let .success(bytes):
                return .command(.writing(address: parseAddress(rest[0]), uuid: parseUUID(rest[1]), value: bytes,
                                         type: type ?? .request, descriptor: descriptor))
            case let .failure(e): fail(e.message)
            }
        case "notify":
            guard rest.count >= 2, rest.count % 2 == 0 else {
                fail("usage: bleexplr notify ADDRESS UUID [ADDRESS UUID ...] [--count N] [--duration S] [--until EOM [--framing plain|seq] [--output FILE]] [--json]")
            }
            if output != nil || framing != nil, until == nil { fail("--output and --framing go with --until MARKER") }
            if until != nil, rest.count > 2 { fail("--until joins one device's stream: name one ADDRESS UUID") }
            return .command(.notifying(stride(from: 0, to: rest.count, by: 2).map { (parseAddress(rest[$0]), parseUUID(rest[$0 + 1])) },
                                       count: count, duration: duration, until: until.map { StreamEnd(marker: $0, framing: framing) }),
                            messageFile: output)
        case "decode":
            guard !rest.isEmpty else { fail("usage: bleexplr decode HEX [HEX] [--json]   (advertisement, scan response)") }
            return .decode(DecodeReport(rest.map { h -> Bytes in
                guard let b = parseHex(h.filter { $0 != " " && $0 != ":" }) else {
                    fail("decode takes advertising data as hex (02010609…), not '\(TerminalSafe.text(h))'")
                }
                return b
            }))
        default:
            need(0, "bench-ingest   (the D-Bus signal-storm benchmark's consumer; see docs/bench.md)")
            return .command(.scanUntilNamed("BENCH-END"))
        }
    }
}

/// `write --file`: the file's bytes (`-`: standard input, to its end), 64 MB at most. An
/// empty one is refused unless framed (then its end frame alone goes).
func streamFile(_ path: String, framed: Bool) -> Bytes {
    let limit = 64 << 20
    let bytes: Bytes
    do {
        bytes = path == "-" ? try FileBytes.readAll(STDIN_FILENO, limit: limit, name: "standard input")
            : try FileBytes.read(path, limit: limit)
    } catch { fail(error.description) }
    if bytes.isEmpty && !framed { fail("\(path == "-" ? "standard input" : TerminalSafe.text(path)) is empty: nothing to write") }
    return bytes
}
