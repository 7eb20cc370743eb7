@preconcurrency import Glibc
import Explorer

/// Runs a command without a screen: its job is state in the one store, decided by the
/// one reducer (`JobReducer` beside the app's); this only starts the backend, turns
/// signals into `.interrupted`, writes what the printer makes of each output, and exits
/// with the status the job finished with. `--record` records it as it records the app.
@MainActor
final class CommandRun {
    let store: Store
    let backend: Backend
    let runner: EffectRunner
    let loop: EventLoop
    let printer: CommandPrinter
    /// `bench-ingest`: how many D-Bus signals the backend processed.
    var processedCount: (() -> Int)?
    /// Called once the loop runs (watch starts its delivery here).
    var onStart: (() -> Void)?
    private var exitCode: Int32 = 0
    /// `bench-ingest`: how many runs of advertising updates the backend handed over.
    private var batches = 0
    private var writeFailed: String?

    init(store: Store, backend: Backend, runner: EffectRunner, loop: EventLoop, printer: CommandPrinter) {
        self.store = store; self.backend = backend; self.runner = runner; self.loop = loop; self.printer = printer
    }

    func run(recordTo: String?, ticks: Bool = false) -> Int32 {
        runner.onQuit = { [unowned self] in self.loop.stop() }
        runner.onFinish = { [unowned self] code in
            self.exitCode = code
            self.loop.stop()
        }
        runner.onOutput = { [unowned self] in self.write($0) }
        SignalPipe.install([SIGINT, SIGTERM, SIGHUP], loop: loop) { [unowned self] in self.store.send(.interrupted(signal: $0)) }
        loop.beforeWait = { [unowned self] in self.runner.flush() }
        backend.start(loop: loop) { [unowned self] event, at in
            if case .advertisementsReceived = event { self.batches += 1 }
            self.store.send(.backend(event, at: at))
        }
        if store.state.agent.terminal { TerminalLines.start(loop: loop) { [unowned self] in self.store.send(.agentAnswerTyped($0)) } }
        store.send(.appStarted(recordTo: recordTo))
        onStart?()
        if ticks { tick() }
        loop.run()
        backend.shutdown()
        runner.finish()
        if let writeFailed { fputs("bleexplr: \(writeFailed)\n", stderr) }
        if writeFailed != nil || StandardOutput.problem() != nil { return ExitCode.output.rawValue }   // finish() reports stdout
        return exitCode
    }

    /// Regions (monitor) and ageing go by the clock, once a second.
    private func tick() {
        loop.schedule(after: 1) { [unowned self] in
            self.store.send(.tick(Timestamp.now()))
            self.tick()
        }
    }

    /// Prints an output (writing a message file or the benchmark's line first where it has one).
    func write(_ output: CommandOutput) {
        switch output {
        case let .message(m):
            if let path = printer.messageFile, !FileBytes.write(path, m.bytes) { writeFailed = "cannot write \(TerminalSafe.text(path))" }
        case .benchEnd:
            var cpu = rusage()
            getrusage(RUSAGE_SELF.rawValue, &cpu)
            let cpuSeconds = Double(cpu.ru_utime.tv_sec + cpu.ru_stime.tv_sec)
                + Double(cpu.ru_utime.tv_usec + cpu.ru_stime.tv_usec) / 1e6
            print("BENCH-END count=\(processedCount?() ?? 0) t_end=\(Timestamp.now().seconds) cpu_s=\(cpuSeconds) batches=\(batches) devices=\(store.state.peripherals.count)")
        default:
            break
        }
        // A full disk or a closed file ends the command: nobody reads what it would print.
        if CommandPrinter.write(printer.lines(output, now: Timestamp.now())) != nil { loop.stop() }
    }
}
