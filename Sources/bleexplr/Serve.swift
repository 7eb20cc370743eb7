@preconcurrency import Glibc
import Explorer
import DBus
import BlueZ
import TUI

/// `serve`: a peripheral over BlueZ, from a spec, a recorded device, or a file to stream.
struct ServePlan {
    var spec: PeripheralSpec
    var source: String
    var stream: (path: String, bytes: Bytes, char: BLEUUID, framing: StreamFraming)?
    var receive: StreamReceive?
}

struct ServeVerb: VerbParser {
    var streamFile: String?
    var streamChar: BLEUUID?
    var clone: String?, framing: StreamFraming?
    var receiveFile: String?

    mutating func flag(_ flag: String, _ args: inout Args) -> Bool {
        switch flag {
        case "--stream": streamFile = args.value(flag)
        case "--char": streamChar = parseUUID(args.value(flag))
        case "--clone": clone = args.value(flag)
        case "--framing": framing = args.framing(flag)
        case "--receive": receiveFile = args.nonEmpty(flag, needs: "a file name")
        default: return false
        }
        return true
    }

    func verb(_ rest: [String], _ options: Options) -> Verb {
        if options.demo { fail("serve runs over BlueZ: drop --demo") }
        var spec: PeripheralSpec
        var source: String
        if let clone {
            guard rest.count == 1 else { fail("usage: bleexplr serve --clone RECORDING ADDRESS") }
            let address = parseAddress(rest[0])
            spec = cloneSpec(clone, address: address)
            source = "\(clone) \(address)"
        } else if let path = rest.first, rest.count == 1 {
            do { spec = try PeripheralSpec.parse(readText(path)) } catch { fail("\(TerminalSafe.text(path)): \(error)") }
            source = path
        } else if rest.isEmpty, streamFile != nil || receiveFile != nil {
            spec = PeripheralSpec(localName: "bx stream", services: [])
            source = "stream"
        } else {
            fail("usage:\n" + Usage.serve)
        }
        var stream: (path: String, bytes: Bytes, char: BLEUUID, framing: StreamFraming)?
        var receive: StreamReceive?
        if streamFile != nil, receiveFile != nil { fail("serve takes --stream or --receive, not both") }
        if let streamFile {
            guard let char = streamChar else { fail("--stream needs --char UUID (the characteristic that notifies)") }
            let bytes = readBytes(streamFile, limit: 64 << 20)
            spec.addStream(char, framing: framing ?? .plain)
            stream = (path: streamFile, bytes: bytes, char: char, framing: framing ?? .plain)
        } else if let receiveFile {
            guard let char = streamChar else { fail("--receive needs --char UUID (the characteristic written to)") }
            if let problem = spec.addReceiver(char) { fail(problem) }
            receive = StreamReceive(char: char, path: receiveFile, framing: framing)
        } else if streamChar != nil || framing != nil {
            fail("--char and --framing go with --stream FILE or --receive FILE")
        }
        return .serve(ServePlan(spec: spec, source: source, stream: stream, receive: receive))
    }
}

/// `serve --clone FILE ADDRESS`: the recording read a line at a time, only what the clone
/// needs kept; what could not be read is said, as a replay says it.
func cloneSpec(_ path: String, address: String) -> PeripheralSpec {
    var gathered = CloneSpec.Gathered(address: address)
    let r: Recording
    do { r = try Recording.read(path: path) { _, e in gathered.add(e) } } catch { fail(TerminalSafe.text(error.description)) }
    if r.skipped > 0 {
        fputs("bleexplr: warning: skipped \(r.skipped) bad line\(r.skipped == 1 ? "" : "s") of \(TerminalSafe.text(path)) "
              + "(not JSON, or not an event this bleexplr reads)\n", stderr)
    }
    do { return try CloneSpec.make(gathered, address: address) } catch { fail(error.description) }
}

/// A whole file, or exits with the reason.
func readText(_ path: String, limit: Int = 1 << 20) -> String {
    String(decoding: readBytes(path, limit: limit), as: UTF8.self)
}

func readBytes(_ path: String, limit: Int) -> Bytes {
    do { return try FileBytes.read(path, limit: limit) } catch { fail(error.description) }
}

/// `serve`: the served peripheral is state in the one store (`AppState.serve`), decided by
/// `ServeReducer`; this wires the GATT server to it (its events in, `ServeCommand`s out),
/// feeds it stdin's control lines, and prints its lines or, on a terminal, shows its
/// screen. Runs until SIGINT/SIGTERM (or q), then unregisters.
@MainActor
final class ServeRun {
    let store: Store
    let runner: EffectRunner
    let server: GattServer
    let loop: EventLoop
    let printer: CommandPrinter
    /// On a terminal (and without --json): the serve screen instead of lines.
    private var terminal: Terminal?
    private var exitCode: Int32 = 0
    private var control: Bytes = []
    /// `--receive FILE`, open for appending (a raw stream).
    private var received: Int32 = -1

    init(plan: ServePlan, bus: DBusConnection, adapter: String, loop: EventLoop, json: Bool) {
        var initial = AppState(now: Timestamp.now())
        initial.serve = ServeState(spec: plan.spec, source: plan.source, adapter: adapter,
                                   stream: plan.stream.map { StreamSend(bytes: $0.bytes, char: $0.char, framing: $0.framing) },
                                   receive: plan.receive)
        store = Store(state: initial)
        runner = EffectRunner(store: store, backend: nil, loop: loop) { _ in
            RecordingFormat.Header(started: Timestamp.now(), backend: "serve", adapter: adapter, seed: nil)
        }
        server = GattServer(spec: plan.spec, adapter: adapter, bus: bus, loop: loop, instance: Int(getpid()))
        self.loop = loop
        printer = CommandPrinter(json: json)
    }

    func run() -> Int32 {
        if let r = store.state.serve?.receiving {
            // Created empty now: whatever is there is this run's. A raw stream keeps it open to
            // append; each framed message replaces it (FileBytes.write).
            received = open(r.path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
            guard received >= 0 else { fail("cannot write \(TerminalSafe.text(r.path)): \(String(cString: strerror(errno)))", code: .output) }
            if r.framing != nil { close(received); received = -1 }
        }
        defer { if received >= 0 { close(received) } }
        // SIGUSR1: what --receive has received so far.
        let tally = store.state.serve?.receiving != nil ? [SIGUSR1] : []
        SignalPipe.install([SIGINT, SIGTERM, SIGHUP] + tally, loop: loop) { [unowned self] signal in
            self.store.send(signal == SIGUSR1 ? .serveTallyAsked : .interrupted(signal: signal))
        }
        if printer.json == false, isatty(STDOUT_FILENO) != 0, isatty(STDIN_FILENO) != 0, let t = try? Terminal() {
            terminal = t
            loop.addReader(fd: STDIN_FILENO) { [unowned self] in self.readKeys() }
            store.observers.append { [unowned self] _, _ in self.redraw() }
            redraw()
        }
        defer { terminal?.restore() }
        server.onEvent = { [unowned self] e in self.store.send(.served(e, mtu: self.server.mtu, at: Timestamp.now())) }
        runner.onServe = { [unowned self] in self.carryOut($0) }
        runner.onOutput = { [unowned self] output in
            guard self.terminal == nil else { return }
            CommandPrinter.write(self.printer.lines(output, now: Timestamp.now()))
        }
        runner.onFinish = { [unowned self] code in
            self.exitCode = code
            self.loop.stop()
        }
        if isatty(STDIN_FILENO) == 0 { loop.addReader(fd: STDIN_FILENO) { [unowned self] in self.readControl() } }
        server.start()
        loop.run()
        return exitCode
    }

    private func carryOut(_ command: ServeCommand) {
        switch command {
        case let .notify(uuid, bytes):
            let sent = server.notify(uuid, bytes)
            store.send(.serveNotified(uuid, bytes, sent: sent, at: Timestamp.now()))
        case let .set(uuid, bytes):
            server.set(uuid, bytes)
        case let .save(bytes, append):
            save(bytes, append: append)
        case let .streamWindow(uuid, chunks, generation, end):
            var sent = 0
            while sent < chunks.count, server.notify(uuid, chunks[sent]) { sent += 1 }
            if sent == chunks.count, let end { _ = server.notify(uuid, end) }
            store.send(.serveWindowSent(generation: generation, sent: sent, at: Timestamp.now()))
            if sent == chunks.count, end == nil {
                server.drained(uuid) { [unowned self] ok in self.store.send(.serveDrained(generation: generation, ok: ok, at: Timestamp.now())) }
            }
        case .stop:
            server.stop { [unowned self] in self.store.send(.serveStopped) }
        }
    }

    /// `--receive`: appends a raw stream's write; a whole message replaces the file.
    private func save(_ bytes: Bytes, append: Bool) {
        guard let path = store.state.serve?.receiving?.path else { return }
        if append, received >= 0 {
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { write(received, $0.baseAddress! + done, $0.count - done) }
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
            if done == bytes.count { return }
        } else if !append, FileBytes.write(path, bytes) {
            return
        }
        let why = String(cString: strerror(errno))
        CommandPrinter.write(printer.lines(.serve(ServeLine("error", [.init("message", "cannot write \(path): \(why)")])), now: Timestamp.now()))
    }

    private func readKeys() {
        guard let t = terminal else { return }
        for key in t.readKeys() {
            switch key {
            case .char("q"), .ctrl("c"): store.send(.interrupted(signal: SIGINT))
            case .resize: t.invalidate()
            default: break
            }
        }
        redraw()
    }

    private func redraw() {
        guard let t = terminal, let s = store.state.serve else { return }
        let (w, h) = t.size
        t.draw(ServeScreen.render(s, width: w, height: h))
    }

    /// Lines on stdin (when it is not a terminal), for the reducer to read.
    private func readControl() {
        var buf = Bytes(repeating: 0, count: 4096)
        let n = read(STDIN_FILENO, &buf, buf.count)
        if n <= 0 {
            if n == 0 || errno != EINTR { loop.removeReader(fd: STDIN_FILENO) }
            return
        }
        control += buf[0..<n]
        while let nl = control.firstIndex(of: 0x0A) {
            let line = String(decoding: control[..<nl], as: UTF8.self)
            control.removeSubrange(...nl)
            store.send(.serveControl(line, at: Timestamp.now()))
        }
        if control.count > 1 << 16 { control.removeAll() }
    }
}

/// Opens the bus and serves until a signal; the process's exit status.
@MainActor
func runServe(_ plan: ServePlan, _ options: Options, loop: EventLoop) -> Int32 {
    let bus: DBusConnection
    do { bus = try DBusConnection.open(address: options.bus, loop: loop) } catch { failBus(error, options.bus) }
    let code = ServeRun(plan: plan, bus: bus, adapter: options.adapter ?? "hci0", loop: loop, json: options.json).run()
    bus.close()
    return code
}
