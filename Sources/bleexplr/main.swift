@preconcurrency import Glibc
import Explorer
import TUI
import DBus
import BlueZ
import CMalloc

// Allocations below 32 MiB come from the heap, never from their own mmap. libdbus reads
// into one growing buffer; once a big message (GetManagedObjects with a thousand devices)
// has grown it past glibc's default threshold (128 KiB), it is an mmapped chunk for good
// and every read's grow-and-compact is an mremap call with freshly zeroed pages: 5,864 of
// them in the storm's 100,000-signal backlog, none with this; 0.2 µs a signal cheaper
// draining it, 1 MiB more peak memory (docs/bench.md). 32 MiB is as far as glibc's own
// moving threshold would go.
mallopt(M_MMAP_THRESHOLD, 32 << 20)

let options = parse(Array(CommandLine.arguments.dropFirst()))
switch (UserConfig.loaded, NamesFile.load(NamesFile.path)) {   // the configuration's names, and those chosen with N
case let (.success(c), .success(n)): UserNames.install(c.names, chosen: n); case let (.failure(e), _), let (_, .failure(e)): fail(e.description) }
if let path = options.record, Recorder.isTaken(path) { fail(Recorder.existsMessage(path)) }   // O_EXCL as well, when it opens
let loop = EventLoop()
let secrets: Secrets
do { secrets = try Secrets.load(options.secrets) } catch { fail(error.description) }
if case let .serve(plan) = options.verb { finish(runServe(plan, options, loop: loop)) }
if case let .decode(report) = options.verb { CommandPrinter.write(CommandPrinter(json: options.json).lines(.decoded(report), now: .now())); finish(0) }

// The backend: the simulated world, or bluetoothd over D-Bus.
let backend: Backend
var simulated: SimulatedBackend?
var bluez: BlueZBackend?
var connection: DBusConnection?
var adapterName: String
var replay: ReplayBackend?
if case let .replay(plan) = options.verb {
    let r = ReplayBackend(recording: loadRecording(plan.path), speed: plan.speed)
    if plan.paused { r.control(.pauseToggled) }
    replay = r
    backend = r
    adapterName = r.recording.adapter
} else if options.demo, let path = options.demoRecording {
    // The demo on someone's recording: played in a loop, every screen as in a replay.
    let r = ReplayBackend(recording: loadRecording(path), loops: true)
    replay = r
    backend = r
    adapterName = r.recording.adapter
} else if options.demo {
    let sim = SimulatedBackend(seed: options.seed, crowd: options.crowd)
    sim.world.agentCapability = options.agent.capability
    simulated = sim
    backend = sim
    adapterName = sim.world.adapterName
    if let path = options.demoControl {
        do { try openDemoControl(path, loop: loop, sim: sim) } catch { fail(error.description) }
    }
} else {
    if options.demoControl != nil { fail("--demo-control needs --demo") }
    if options.demoRecording != nil { fail("--demo-recording needs --demo") }
    let bus: DBusConnection
    do { bus = try DBusConnection.open(address: options.bus, loop: loop) } catch { failBus(error, options.bus) }
    connection = bus
    let b = BlueZBackend(bus: bus, options: .init(adapter: options.adapter, rssiFloor: options.rssiFloor, agent: options.agent.capability))
    bluez = b
    backend = b
    adapterName = options.adapter ?? "default"
}

var initial = AppState(now: Timestamp.now())
initial.backendKind = backend.kind
initial.recordingDefaultPath = options.record
initial.bindKeys = options.keys
if let eom = options.eom { initial.streamMarker = eom }
initial.agent = options.agent
initial.agent.terminal = TerminalLines.available
initial.rssiFilterOn = !options.demo && options.rssiFloor != nil
if let replay {
    // The scan plays as it was recorded: the replay's own adapter events say so.
    initial.scanWanted = false
    initial.replay = replay.status
    initial.now = replay.recording.start
    initial.rssiFilterOn = false
}
let regions = options.regions.regions.isEmpty && options.demo ? SimulatedBackend.demoRegions : options.regions.regions
initial.regionWatch = RegionWatch(regions: regions, config: options.regions.config)
switch options.verb {
case let .command(job, _): initial.run(JobState(job: job))
case let .watch(plan): initial.run(JobState(job: .watch(address: plan.address, uuid: plan.uuid, debounce: plan.debounce)))
case .app, .replay, .serve, .decode: break
}
let store = Store(state: initial)
let runner = EffectRunner(store: store, backend: backend, loop: loop) { started in
    RecordingFormat.Header(started: started, backend: backend.kind,
                           adapter: bluez?.adapterPath.map { String($0.split(separator: "/").last ?? "") } ?? adapterName,
                           seed: options.demo ? options.seed : nil)
}

switch options.verb {
case let .command(job, messageFile):
    if case .scanUntilNamed = job, bluez == nil { fail("bench-ingest measures the BlueZ backend: run it without --demo") }
    let command = CommandRun(store: store, backend: backend, runner: runner, loop: loop,
                             printer: CommandPrinter(json: options.json, messageFile: messageFile, keys: options.keys))
    command.processedCount = { bluez?.propertiesChangedCount ?? 0 }
    let code: Int32
    if case .monitor = job {
        code = runMonitor(options.regions, command, json: options.json, recordTo: options.record)
    } else {
        code = command.run(recordTo: options.record, ticks: job == .scan(duration: nil))   // a live scan ages devices out
    }
    connection?.close()
    finish(code)
case let .watch(plan):
    let missing = missingSecrets(plan.target, secrets)
    guard missing.isEmpty else {
        fail("no value for " + missing.map { "${\($0)}" }.joined(separator: ", ") + " (set it in the environment or --secrets FILE)")
    }
    let queue: HookQueue
    do { queue = try HookQueue(path: plan.queuePath, capacity: plan.queueSize) } catch { fail(error.description) }
    let delivery = HookDelivery(queue: queue, sender: makeSender(plan.target, loop: loop, secrets: secrets), loop: loop)
    let command = CommandRun(store: store, backend: backend, runner: runner, loop: loop, printer: CommandPrinter(json: options.json))
    let code = runWatch(plan, command, delivery: delivery, recordTo: options.record)
    connection?.close()
    finish(code)
case .app, .replay, .serve, .decode:
    break
}

let terminal: Terminal
do { terminal = try Terminal() } catch { fail("\(error)", code: .unavailable) }
let hub = HookHub(store: store, loop: loop, secrets: secrets) { makeSender($0, loop: loop, secrets: secrets) }
runner.onAttachHook = { cid, target in hub.attach(cid, target) }
runner.onFireHook = { cid, event in hub.fire(cid, event) }
runner.onRegionChanged = { t in
    runRegionCommand(options.regions, t, loop: loop) { message, problem in store.send(.commandReported(message, problem: problem)) }
}
let app = TUIApp(store: store, backend: backend, runner: runner, loop: loop, terminal: terminal)
if let replay {
    replay.onStatus = { store.send(.replayChanged($0)) }
    replay.onRewind = { store.send(.replayRewound($0)) }
    runner.onReplayControl = { replay.control($0) }
    app.clock = { replay.now }
}
app.onSignal = { sig in if sig == SIGUSR1 { simulated?.pressButton() } }
let code = app.run(recordTo: options.record)
connection?.close()
// What the demo's flood sent, for whoever counts what reached the screen or the recording.
if let sent = simulated?.world.floodSent, sent > 0 {
    fputs("bleexplr demo: Demo Stream's flood sent \(sent) notifications, numbered 1 to \(sent)\n", stderr)
}
// Hooks attached with `a` live as long as the app: say what they leave undelivered.
if hub.pendingCount > 0 {
    fputs("bleexplr: \(hub.pendingCount) hook event(s) were not delivered before quitting (use `watch` for a queue that survives restarts)\n", stderr)
}
exit(code)
