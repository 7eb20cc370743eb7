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
        SignalPipe.install([SIGINT, SIGTERM, SIGHUP], loop: loop) { [unowned self] _ in self.store.send(.interrupted) }
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
        if fflush(stdout) != 0 || ferror(stdout) != 0 { writeFailed = writeFailed ?? "cannot write to standard output" }
        if let writeFailed {
            fputs("bleexplr: \(writeFailed)\n", stderr)
            return 1
        }
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
            if let path = printer.messageFile, !writeFile(path, m.bytes) { writeFailed = "cannot write \(path)" }
        case .benchEnd:
            var cpu = rusage()
            getrusage(RUSAGE_SELF.rawValue, &cpu)
            let cpuSeconds = Double(cpu.ru_utime.tv_sec + cpu.ru_stime.tv_sec)
                + Double(cpu.ru_utime.tv_usec + cpu.ru_stime.tv_usec) / 1e6
            print("BENCH-END count=\(processedCount?() ?? 0) t_end=\(Timestamp.now().seconds) cpu_s=\(cpuSeconds) batches=\(batches) devices=\(store.state.peripherals.count)")
        default:
            break
        }
        CommandPrinter.write(printer.lines(output, now: Timestamp.now()))
    }

    /// The file the user named with --output (created or replaced: it was named for writing).
    private func writeFile(_ path: String, _ bytes: Bytes) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n <= 0 { return false }
            written += n
        }
        return true
    }
}
