@preconcurrency import Glibc
import Explorer
import DBus
import BlueZ
import TUI

let serveUsage = """
       bleexplr [OPTIONS] serve SPEC [--json]
       bleexplr [OPTIONS] serve --stream FILE --char UUID [SPEC] [--json]
       bleexplr [OPTIONS] serve --clone RECORDING ADDRESS [--json]
"""

/// `serve`: a peripheral over BlueZ, from a spec, a recorded device, or a file to stream.
struct ServePlan {
    var spec: PeripheralSpec
    var source: String
    var stream: (path: String, bytes: Bytes, char: BLEUUID)?
}

struct ServeVerb: VerbParser {
    var streamFile: String?
    var streamChar: BLEUUID?
    var clone: String?

    mutating func flag(_ flag: String, _ args: inout Args) -> Bool {
        switch flag {
        case "--stream": streamFile = args.value(flag)
        case "--char": streamChar = parseUUID(args.value(flag))
        case "--clone": clone = args.value(flag)
        default: return false
        }
        return true
    }

    /// The service `--stream` adds when no spec names its characteristic.
    static let streamService: BLEUUID = "626c6578-0000-4000-8000-00000000a000"

    func verb(_ rest: [String], _ options: Options) -> Verb {
        if options.demo { fail("serve runs over BlueZ: drop --demo") }
        var spec: PeripheralSpec
        var source: String
        if let clone {
            guard rest.count == 1 else { fail("usage: bleexplr serve --clone RECORDING ADDRESS") }
            let address = parseAddress(rest[0])
            do { spec = try CloneSpec.make(loadRecording(clone), address: address) } catch { fail(error.description) }
            source = "\(clone) \(address)"
        } else if let path = rest.first, rest.count == 1 {
            do { spec = try PeripheralSpec.parse(readText(path)) } catch { fail("\(TerminalSafe.text(path)): \(error)") }
            source = path
        } else if rest.isEmpty, streamFile != nil {
            spec = PeripheralSpec(localName: "bx stream", services: [])
            source = "stream"
        } else {
            fail("usage:\n" + serveUsage)
        }
        var stream: (path: String, bytes: Bytes, char: BLEUUID)?
        if let streamFile {
            guard let char = streamChar else { fail("--stream needs --char UUID (the characteristic that notifies)") }
            let bytes = readBytes(streamFile, limit: 64 << 20)
            if !spec.services.contains(where: { $0.characteristics.contains { $0.uuid == char } }) {
                spec.services.append(ServiceSpec(uuid: Self.streamService, characteristics: [
                    CharacteristicSpec(uuid: char, flags: ["read", "notify"], value: Array("EOM".utf8)),
                ]))
            }
            stream = (path: streamFile, bytes: bytes, char: char)
        } else if streamChar != nil {
            fail("--char goes with --stream FILE")
        }
        return .serve(ServePlan(spec: spec, source: source, stream: stream))
    }
}

/// A whole file, or exits with the reason. (Bytes of any kind: String(decoding:) keeps
/// invalid UTF-8 as replacement characters, so streams read the raw bytes instead.)
func readText(_ path: String, limit: Int = 1 << 20) -> String {
    String(decoding: readBytes(path, limit: limit), as: UTF8.self)
}

func readBytes(_ path: String, limit: Int) -> Bytes {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { fail("cannot read \(TerminalSafe.text(path)): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var out: Bytes = []
    var buf = Bytes(repeating: 0, count: 1 << 16)
    while true {
        let n = read(fd, &buf, buf.count)
        if n < 0 { if errno == EINTR { continue }; fail("cannot read \(TerminalSafe.text(path))") }
        if n == 0 { return out }
        out += buf[0..<n]
        if out.count > limit { fail("\(TerminalSafe.text(path)) is larger than \(limit >> 20) MB") }
    }
}

/// Runs a served peripheral until SIGINT/SIGTERM, printing what centrals do (JSON Lines
/// with --json), then unregisters.
@MainActor
final class ServeRunner {
    let server: GattServer
    let loop: EventLoop
    let json: Bool
    let plan: ServePlan
    var streamer: Streamer?
    /// On a terminal (and without --json): the peripheral screen instead of lines.
    private var terminal: Terminal?
    private var screen: ServeState
    private var exitCode: Int32 = 0
    private var stopping = false

    init(plan: ServePlan, bus: DBusConnection, adapter: String, loop: EventLoop, json: Bool) {
        self.plan = plan
        self.loop = loop
        self.json = json
        screen = ServeState(spec: plan.spec, source: plan.source)
        server = GattServer(spec: plan.spec, adapter: adapter, bus: bus, loop: loop, instance: Int(getpid()))
        if let s = plan.stream { streamer = Streamer(server: server, loop: loop, bytes: s.bytes, char: s.char) }
    }

    func run() -> Int32 {
        SignalPipe.install([SIGINT, SIGTERM, SIGHUP], loop: loop) { [unowned self] _ in self.quit(0) }
        if !json, isatty(STDOUT_FILENO) != 0, isatty(STDIN_FILENO) != 0, let t = try? Terminal() {
            terminal = t
            loop.addReader(fd: STDIN_FILENO) { [unowned self] in self.readKeys() }
            redraw()
        }
        defer { terminal?.restore() }
        server.onEvent = { [unowned self] e in
            self.screen.apply(e, at: Timestamp.now())
            self.print(e)
            self.streamer?.handle(e)
            if case .registrationFailed = e, !self.server.registered, self.firstRegistration { self.quit(1) }
            if case .registered = e { self.firstRegistration = false }
        }
        streamer?.report = { [unowned self] event, fields in self.say(event, fields) }
        if isatty(STDIN_FILENO) == 0 { loop.addReader(fd: STDIN_FILENO) { [unowned self] in self.readControl() } }
        server.start()
        loop.run()
        return exitCode
    }

    private var firstRegistration = true

    private func readKeys() {
        guard let t = terminal else { return }
        for key in t.readKeys() {
            switch key {
            case .char("q"), .ctrl("c"): quit(0)
            case .resize: t.invalidate()
            default: break
            }
        }
        redraw()
    }

    private func redraw() {
        guard let t = terminal else { return }
        let (w, h) = t.size
        t.draw(ServeScreen.render(screen, width: w, height: h))
    }
    private var control: Bytes = []

    /// Lines on stdin (when it is not a terminal): `notify UUID VALUE` sets a
    /// characteristic's value and notifies subscribed centrals; `set UUID VALUE` only sets it.
    /// VALUE as for `write`: hex or "text".
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
            command(line)
        }
        if control.count > 1 << 16 { control.removeAll() }
    }

    private func command(_ line: String) {
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[0] == "notify" || parts[0] == "set", let uuid = BLEUUID(parts[1]) else {
            if !line.isEmpty { say("error", [("message", "control: 'notify UUID VALUE' or 'set UUID VALUE', not '\(line)'")]) }
            return
        }
        guard server.value(uuid) != nil else { return say("error", [("message", "no characteristic \(uuid)")]) }
        switch WriteValue.parse(parts[2]) {
        case let .success(bytes):
            if parts[0] == "set" {
                server.set(uuid, bytes)
            } else {
                let sent = server.notify(uuid, bytes)
                say("notify", [("uuid", uuid.canonical), ("hex", hex(bytes, separator: "")), ("sent", sent ? "yes" : "no")])
            }
        case let .failure(e):
            say("error", [("message", e.message)])
        }
    }

    private func quit(_ code: Int32) {
        guard !stopping else { return }
        stopping = true
        exitCode = code
        streamer?.stop()
        server.stop { [unowned self] in self.loop.stop() }
    }

    func say(_ event: String, _ fields: [(String, String?)]) {
        if terminal != nil {
            let f = Dictionary(fields.compactMap { k, v in v.map { (k, $0) } }, uniquingKeysWith: { a, _ in a })
            if event.hasPrefix("stream") {
                screen.stream = "\(event.dropFirst(7)): " + ["bytes", "chunks", "chunk", "seconds", "kbitPerSecond"]
                    .compactMap { k in f[k].map { "\(k) \($0)" } }.joined(separator: ", ")
            } else if event == "notify" || event == "error" {
                screen.note(event + (f["message"].map { ": " + $0 } ?? ""), uuid: f["uuid"].flatMap(BLEUUID.init),
                            bytes: f["hex"].flatMap(parseHexBytes), at: Timestamp.now())
            }
            redraw()
            return
        }
        if json {
            var j = JSONLine()
            j.string("t", Timestamp.now().iso8601); j.string("event", event)
            for (k, v) in fields { j.string(k, v) }
            Swift.print(j.finish())
        } else {
            let text = fields.compactMap { k, v in v.map { "\(k)=\($0)" } }.joined(separator: " ")
            Swift.print(TerminalSafe.text("\(Timestamp.now().clockTime)  \(event)  \(text)"))
        }
        fflush(stdout)
    }

    private func print(_ e: ServeEvent) {
        func attr(_ c: CharacteristicEvent) -> [(String, String?)] {
            [("uuid", c.uuid.canonical), ("name", AssignedNumbers.characteristicName(c.uuid)),
             ("descriptor", c.descriptor ? "yes" : nil), ("central", c.central)]
        }
        switch e {
        case let .registered(adapter):
            say("advertising", [("adapter", adapter), ("name", plan.spec.localName), ("source", plan.source),
                                ("services", plan.spec.services.map(\.uuid.description).joined(separator: ","))])
        case let .registrationFailed(message): say("error", [("message", message)])
        case .bluezGone: say("bluez-gone", [("message", "bluetoothd went away; will register again when it returns")])
        case .bluezReturned: say("bluez-back", [("message", "bluetoothd is back; registering again")])
        case .advertisementReleased: say("advertisement-released", [])
        case let .read(c, offset, bytes): say("read", attr(c) + [("offset", offset > 0 ? String(offset) : nil), ("hex", hex(bytes, separator: ""))])
        case let .written(c, bytes, type): say("write", attr(c) + [("type", type), ("hex", hex(bytes, separator: ""))])
        case let .subscribed(c): say("subscribed", attr(c))
        case let .unsubscribed(c): say("unsubscribed", attr(c))
        case let .confirmed(c): say("confirmed", attr(c))
        case .unregistered: say("unregistered", [("adapter", server.adapter)])
        }
    }
}

/// `--stream`: the file as notifications of (MTU - 3) bytes, then "EOM", from the moment a
/// central subscribes. Pacing: at most `window` notifications are sent before bluetoothd
/// has taken them all (a Peer.Ping round trip, answered in order after them): the flow
/// control a bus without fd passing leaves (docs/serve.md).
@MainActor
final class Streamer {
    static let window = 8
    static let marker = Array("EOM".utf8)
    let server: GattServer
    let loop: EventLoop
    let bytes: Bytes
    let char: BLEUUID
    var report: (@MainActor (String, [(String, String?)]) -> Void)?
    private var offset = 0, chunk = 20, chunks = 0, generation = 0
    private var running = false
    private var started = 0.0

    init(server: GattServer, loop: EventLoop, bytes: Bytes, char: BLEUUID) {
        self.server = server; self.loop = loop; self.bytes = bytes; self.char = char
    }

    func handle(_ e: ServeEvent) {
        switch e {
        case let .subscribed(c) where c.uuid == char && !c.descriptor:
            start()
        case let .unsubscribed(c) where c.uuid == char && !c.descriptor:
            if running { finish("stream-stopped") }
        case .bluezGone:
            if running { finish("stream-stopped") }
        default:
            break
        }
    }

    func stop() { running = false; generation += 1 }

    private func start() {
        generation += 1
        offset = 0
        chunks = 0
        chunk = max(20, (server.mtu ?? 23) - 3)
        running = true
        started = monotonicSeconds()
        report?("stream-start", [("bytes", String(bytes.count)), ("chunk", String(chunk)),
                                 ("uuid", char.canonical)])
        pump(generation)
    }

    private func pump(_ g: Int) {
        guard running, g == generation else { return }
        var sent = 0
        while sent < Self.window, offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            guard server.notify(char, Array(bytes[offset..<end])) else { return finish("stream-stopped") }
            offset = end
            chunks += 1
            sent += 1
        }
        if offset >= bytes.count {
            server.notify(char, Self.marker)
            return finish("stream-done")
        }
        server.drained { [weak self] ok in
            guard let self else { return }
            if ok { self.pump(g) } else { self.finish("stream-stopped") }
        }
    }

    private func finish(_ event: String) {
        running = false
        generation += 1
        let seconds = max(0.001, monotonicSeconds() - started)
        report?(event, [("bytes", String(offset)), ("chunks", String(chunks)), ("seconds", String(format3(seconds))),
                        ("kbitPerSecond", String(format3(Double(offset) * 8 / 1000 / seconds)))])
    }
}

func parseHexBytes(_ s: String) -> Bytes? {
    if case let .success(b) = WriteValue.parse(s) { return b }
    return nil
}

func format3(_ v: Double) -> String {
    let r = (v * 1000).rounded() / 1000
    return String(r)
}

/// Opens the bus and serves until a signal; the process's exit status.
@MainActor
func runServe(_ plan: ServePlan, _ options: Options, loop: EventLoop) -> Int32 {
    let bus: DBusConnection
    do { bus = try DBusConnection.open(address: options.bus, loop: loop) } catch {
        fail("\(error.message.isEmpty ? error.name : error.message)")
    }
    let runner = ServeRunner(plan: plan, bus: bus, adapter: options.adapter ?? "hci0", loop: loop, json: options.json)
    let code = runner.run()
    bus.close()
    return code
}
