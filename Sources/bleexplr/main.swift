@preconcurrency import Glibc
import Explorer
import TUI

let options = parse(Array(CommandLine.arguments.dropFirst()))

guard options.demo else {
    fail("the BlueZ backend is not in this build yet: run `bleexplr --demo` for the simulated world")
}

let loop = EventLoop()
let simulated = SimulatedBackend(seed: options.seed, crowd: options.crowd)
let backend: Backend = simulated
var initial = AppState(now: Timestamp.now())
initial.backendKind = backend.kind
initial.recordingDefaultPath = options.record
let store = Store(state: initial)
let runner = EffectRunner(store: store, backend: backend) { started in
    RecordingFormat.Header(started: started, backend: backend.kind, adapter: simulated.world.adapterName,
                           seed: options.seed)
}

if let command = options.command {
    let headless = Headless(store: store, backend: backend, runner: runner, loop: loop, json: options.json, command: command)
    exit(headless.run(recordTo: options.record))
}

let terminal: Terminal
do { terminal = try Terminal() } catch { fail("\(error)") }
let app = TUIApp(store: store, backend: backend, runner: runner, loop: loop, terminal: terminal)
app.onSignal = { sig in if sig == SIGUSR1 { simulated.pressButton() } }
exit(app.run(recordTo: options.record))
