@preconcurrency import Glibc
import Explorer
import TUI
import DBus
import BlueZ

let options = parse(Array(CommandLine.arguments.dropFirst()))
let loop = EventLoop()

// The backend: the simulated world, or bluetoothd over D-Bus.
let backend: Backend
var simulated: SimulatedBackend?
var bluez: BlueZBackend?
var connection: DBusConnection?
var adapterName: String
if options.demo {
    let sim = SimulatedBackend(seed: options.seed, crowd: options.crowd)
    simulated = sim
    backend = sim
    adapterName = sim.world.adapterName
} else {
    let bus: DBusConnection
    do {
        bus = try DBusConnection.open(address: options.bus, loop: loop)
    } catch {
        fail("\(error.message.isEmpty ? error.name : error.message)"
             + (options.bus == nil ? " (is D-Bus running? try --demo for the simulated world)" : ""))
    }
    connection = bus
    let b = BlueZBackend(bus: bus, options: .init(adapter: options.adapter, rssiFloor: options.rssiFloor))
    bluez = b
    backend = b
    adapterName = options.adapter ?? "default"
}

var initial = AppState(now: Timestamp.now())
initial.backendKind = backend.kind
initial.recordingDefaultPath = options.record
initial.rssiFilterOn = !options.demo && options.rssiFloor != nil
let store = Store(state: initial)
let runner = EffectRunner(store: store, backend: backend) { started in
    RecordingFormat.Header(started: started, backend: backend.kind,
                           adapter: bluez?.adapterPath.map { String($0.split(separator: "/").last ?? "") } ?? adapterName,
                           seed: options.demo ? options.seed : nil)
}

if let command = options.command {
    if command == .benchIngest, bluez == nil { fail("bench-ingest measures the BlueZ backend: run it without --demo") }
    let headless = Headless(store: store, backend: backend, runner: runner, loop: loop, json: options.json, command: command)
    headless.processedCount = { bluez?.propertiesChangedCount ?? 0 }
    let code = headless.run(recordTo: options.record)
    connection?.close()
    exit(code)
}

let terminal: Terminal
do { terminal = try Terminal() } catch { fail("\(error)") }
let app = TUIApp(store: store, backend: backend, runner: runner, loop: loop, terminal: terminal)
app.onSignal = { sig in if sig == SIGUSR1 { simulated?.pressButton() } }
let code = app.run(recordTo: options.record)
connection?.close()
exit(code)
