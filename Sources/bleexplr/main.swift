@preconcurrency import Glibc
import Explorer
import TUI

let usage = """
usage: bleexplr [--demo] [--seed N] [--record FILE]

A full-screen explorer for Bluetooth Low Energy.

  --demo          run on the built-in simulated world (no Bluetooth adapter needed)
  --seed N        seed of the simulated world, for a reproducible run (default 1)
  --record FILE   record the session to FILE (JSON Lines; R toggles recording)
  --crowd N       add N anonymous devices to the simulated world
  --version       print the version
  -h, --help      this help

Keys: arrows or j/k move, Enter connects/opens, Esc goes back, / filters, ? lists every key, q quits.
SIGUSR1 presses the demo iTag's button.
"""

struct Options {
    var demo = false
    var seed: UInt64 = 1
    var record: String?
    var crowd = 0
}

func fail(_ message: String) -> Never {
    fputs("bleexplr: \(message)\n", stderr)
    exit(2)
}

func parse(_ args: [String]) -> Options {
    var o = Options()
    var i = 0
    func value(_ flag: String) -> String {
        i += 1
        guard i < args.count else { fail("\(flag) needs a value\n\(usage)") }
        return args[i]
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
        case "--version": print("bleexplr \(BleexplrVersion.current)"); exit(0)
        case "-h", "--help": print(usage); exit(0)
        default: fail("unknown argument '\(a)'\n\(usage)")
        }
        i += 1
    }
    return o
}

let options = parse(Array(CommandLine.arguments.dropFirst()))
guard options.demo else {
    fail("the BlueZ backend is not in this build yet: run `bleexplr --demo` for the simulated world")
}

let loop = EventLoop()
let backend = SimulatedBackend(seed: options.seed, crowd: options.crowd)
var initial = AppState(now: Timestamp.now())
initial.backendKind = backend.kind
initial.recordingDefaultPath = options.record
let store = Store(state: initial)
let runner = EffectRunner(store: store, backend: backend) { started in
    RecordingFormat.Header(started: started, backend: backend.kind, adapter: backend.world.adapterName,
                           seed: options.seed)
}
let terminal: Terminal
do { terminal = try Terminal() } catch { fail("\(error)") }
let app = TUIApp(store: store, backend: backend, runner: runner, loop: loop, terminal: terminal)
app.onSignal = { sig in if sig == SIGUSR1 { backend.pressButton() } }
exit(app.run(recordTo: options.record))
