@preconcurrency import Glibc
import Explorer

let usage = """
usage: bleexplr [OPTIONS]                          the full-screen explorer
       bleexplr [OPTIONS] scan [--duration S] [--json]
       bleexplr [OPTIONS] services ADDRESS [--json]
       bleexplr [OPTIONS] read ADDRESS UUID [--json]
       bleexplr [OPTIONS] write ADDRESS UUID VALUE [--without-response] [--json]
       bleexplr [OPTIONS] notify ADDRESS UUID [--count N] [--duration S] [--json]

A full-screen explorer for Bluetooth Low Energy. The commands run without a screen,
print results (JSON Lines with --json) and exit 0 on success, 1 on failure.
VALUE is hex (01ff, "01 ff") or text in quotes ('"hello"').

Options:
  --demo             use the built-in simulated world (no Bluetooth adapter needed)
  --seed N           seed of the simulated world, for a reproducible run (default 1)
  --bus ADDRESS      D-Bus address of bluetoothd's bus (default: the system bus),
                     e.g. unix:path=/run/dbus/system_bus_socket or tcp:host=127.0.0.1,port=17777
  --adapter hciN     adapter to use (default: the first powered one)
  --rssi-floor DBM   RSSI discovery filter, or "off" (default -127). Without one, BlueZ
                     reports RSSI only when it moves by 8 dB; with one, the kernel drops
                     reports whose RSSI is "not available" (some controllers send only those)
  --record FILE      record the session to FILE (JSON Lines; R toggles it in the app)
  --crowd N          add N anonymous devices to the simulated world
  --version          print the version
  -h, --help         this help

Keys in the app: arrows or j/k move, Enter connects/opens, Esc goes back, / filters,
? lists every key, q quits. In the demo, SIGUSR1 presses the iTag's button.
"""

struct Options {
    var demo = false
    var seed: UInt64 = 1
    var record: String?
    var crowd = 0
    var bus: String?
    var adapter: String?
    var rssiFloor: Int? = -127
    var json = false
    var command: HeadlessCommand?
}

func fail(_ message: String) -> Never {
    fputs("bleexplr: \(message)\n", stderr)
    exit(2)
}

/// Parses the command line. Every argument is untrusted: a bad one is a one-line error.
func parse(_ args: [String]) -> Options {
    var o = Options()
    var positional: [String] = []
    var duration: Double?, count: Int?, withoutResponse = false
    var i = 0
    func value(_ flag: String) -> String {
        i += 1
        guard i < args.count else { fail("\(flag) needs a value (see --help)") }
        return args[i]
    }
    func seconds(_ flag: String) -> Double {
        let v = value(flag)
        guard let d = Double(v), d > 0, d <= 86_400 else { fail("\(flag) takes seconds (0 < S <= 86400), not '\(v)'") }
        return d
    }
    while i < args.count {
        let a = args[i]
        switch a {
        case "--demo": o.demo = true
        case "--seed":
            let v = value(a)
            guard let n = UInt64(v) else { fail("--seed takes a whole number, not '\(v)'") }
            o.seed = n
        case "--record":
            let v = value(a)
            guard !v.isEmpty else { fail("--record needs a file name") }
            o.record = v
        case "--crowd":
            let v = value(a)
            guard let n = Int(v), n >= 0, n <= 100_000 else { fail("--crowd takes 0...100000, not '\(v)'") }
            o.crowd = n
        case "--bus":
            let v = value(a)
            guard !v.isEmpty, v.utf8.count < 1024, !v.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                fail("--bus takes a D-Bus address like unix:path=/run/dbus/system_bus_socket")
            }
            o.bus = v
        case "--adapter":
            let v = value(a)
            guard v.hasPrefix("hci"), let n = Int(v.dropFirst(3)), n >= 0, n < 1000 else {
                fail("--adapter takes an adapter name like hci0, not '\(v)'")
            }
            o.adapter = v
        case "--rssi-floor":
            let v = value(a)
            if v == "off" { o.rssiFloor = nil } else {
                guard let n = Int(v), n >= -127, n <= 20 else { fail("--rssi-floor takes -127...20 dBm or off, not '\(v)'") }
                o.rssiFloor = n
            }
        case "--json": o.json = true
        case "--duration": duration = seconds(a)
        case "--count":
            let v = value(a)
            guard let n = Int(v), n > 0 else { fail("--count takes a positive number, not '\(v)'") }
            count = n
        case "--without-response": withoutResponse = true
        case "--version": print("bleexplr \(BleexplrVersion.current)"); exit(0)
        case "-h", "--help": print(usage); exit(0)
        default:
            if a.hasPrefix("-") && a.count > 1 && Double(a) == nil { fail("unknown option '\(a)' (see --help)") }
            positional.append(a)
        }
        i += 1
    }
    guard let verb = positional.first else { return o }
    let rest = Array(positional.dropFirst())
    func need(_ n: Int, _ form: String) {
        guard rest.count == n else { fail("usage: bleexplr \(form)") }
    }
    func address(_ s: String) -> String {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
            fail("'\(TerminalSafe.text(s))' is not a Bluetooth address like AA:BB:CC:DD:EE:FF")
        }
        return s.uppercased()
    }
    func uuid(_ s: String) -> BLEUUID {
        guard let u = BLEUUID(s) else { fail("'\(TerminalSafe.text(s))' is not a UUID (180D, 0x2A37 or 128-bit)") }
        return u
    }
    switch verb {
    case "scan":
        need(0, "scan [--duration S] [--json]")
        o.command = .scan(duration: duration ?? 5)
    case "services":
        need(1, "services ADDRESS [--json]")
        o.command = .services(address: address(rest[0]))
    case "read":
        need(2, "read ADDRESS UUID [--json]")
        o.command = .read(address: address(rest[0]), uuid: uuid(rest[1]))
    case "write":
        need(3, "write ADDRESS UUID VALUE [--without-response]")
        switch WriteValue.parse(rest[2]) {
        case let .success(bytes):
            o.command = .write(address: address(rest[0]), uuid: uuid(rest[1]), value: bytes, withoutResponse: withoutResponse)
        case let .failure(e): fail(e.message)
        }
    case "notify":
        need(2, "notify ADDRESS UUID [--count N] [--duration S] [--json]")
        o.command = .notify(address: address(rest[0]), uuid: uuid(rest[1]), count: count, duration: duration)
    case "bench-ingest":
        need(0, "bench-ingest   (the D-Bus signal-storm benchmark's consumer; see docs/bench.md)")
        o.command = .benchIngest
    default:
        fail("unknown command '\(TerminalSafe.text(verb))' (see --help)")
    }
    return o
}
