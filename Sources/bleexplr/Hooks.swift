@preconcurrency import Glibc
import Explorer
import WebHook

/// `${NAME}` values for hooks: the --secrets file first, then the environment. The
/// file must be private (no group or other permissions), like ssh keys.
struct Secrets {
    var values: [String: String] = [:]

    static func load(_ path: String?) -> Secrets {
        guard let path else { return Secrets() }
        var st = stat()
        guard stat(path, &st) == 0 else { fail("cannot read the secrets file \(path): \(String(cString: strerror(errno)))") }
        guard st.st_mode & 0o077 == 0 else {
            fail("the secrets file \(path) can be read by others; run: chmod 600 \(path)")
        }
        guard let f = fopen(path, "r") else { fail("cannot read the secrets file \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(f) }
        var s = Secrets()
        var line: UnsafeMutablePointer<CChar>?
        var cap = 0
        var n = 0
        while getline(&line, &cap, f) > 0, let l = line {
            n += 1
            let text = String(cString: l).trimmingCharacters(in: "\r\n")
            if text.isEmpty || text.hasPrefix("#") { continue }
            guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
                fail("the secrets file \(path), line \(n): expected NAME=value")
            }
            s.values[String(text[..<eq])] = String(text[text.index(after: eq)...])
        }
        free(line)
        return s
    }

    func lookup(_ name: String) -> String? {
        if let v = values[name] { return v }
        if let e = getenv(name) { return String(cString: e) }
        return nil
    }
}

extension String {
    /// Drops trailing characters made only of scalars in `set` ("\r\n" is one Character
    /// in Swift, so the scalars are compared, not the characters).
    func trimmingCharacters(in set: String) -> String {
        let drop = Set(set.unicodeScalars)
        var s = self[...]
        while let l = s.last, l.unicodeScalars.allSatisfy({ drop.contains($0) }) { s.removeLast() }
        return String(s)
    }
}

/// The sender for a target: a command, or HTTP.
@MainActor
func makeSender(_ target: HookTarget, loop: EventLoop, secrets: Secrets) -> HookSender {
    switch target {
    case let .exec(command): return CommandSender(command: command, loop: loop)
    case let .post(h): return HTTPSender(hook: h, loop: loop) { secrets.lookup($0) }
    }
}

/// Names used by a target that have no value: checked when the hook is set up, so a
/// missing token is an error at once rather than a failed delivery later.
func missingSecrets(_ target: HookTarget, _ secrets: Secrets) -> [String] {
    guard case let .post(h) = target else { return [] }
    return h.secretNames.filter { secrets.lookup($0) == nil }
}

/// Actions attached in the app with `a`: one in-memory queue and delivery per
/// characteristic; every report goes to the status bar and the recording.
@MainActor
final class HookHub {
    let store: Store
    let loop: EventLoop
    let secrets: Secrets
    private var deliveries: [CharacteristicID: HookDelivery] = [:]

    init(store: Store, loop: EventLoop, secrets: Secrets) {
        self.store = store; self.loop = loop; self.secrets = secrets
    }

    func attach(_ cid: CharacteristicID, _ target: HookTarget?) {
        deliveries.removeValue(forKey: cid)
        guard let target else { return }
        let missing = missingSecrets(target, secrets)
        guard missing.isEmpty else {
            store.send(.hookAttachFailed(cid, "no value for " + missing.map { "${\($0)}" }.joined(separator: ", ")))
            return
        }
        let queue: HookQueue
        do { queue = try HookQueue(path: nil) } catch {
            store.send(.hookAttachFailed(cid, "\(error)"))
            return
        }
        let d = HookDelivery(queue: queue, sender: makeSender(target, loop: loop, secrets: secrets), loop: loop)
        d.onReport = { [unowned self] r in self.store.send(.hookReported(r, for: cid)) }
        deliveries[cid] = d
    }

    func fire(_ cid: CharacteristicID, _ event: FiredEvent) { deliveries[cid]?.fire(event) }

    /// Events fired but not yet delivered, over every attached hook.
    var pendingCount: Int { deliveries.values.reduce(0) { $0 + $1.pendingCount } }
}

/// `--demo-control FIFO`: lines "press" (the demo iTag's button) and "drop" (the iTag
/// ends its link), so tests drive the demo world from outside.
@MainActor
func openDemoControl(_ path: String, loop: EventLoop, sim: SimulatedBackend) {
    if access(path, F_OK) != 0, mkfifo(path, 0o600) != 0 {
        fail("cannot create the FIFO \(path): \(String(cString: strerror(errno)))")
    }
    // Read-write, so the FIFO never reports end-of-file when a writer closes it.
    let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { fail("cannot open \(path): \(String(cString: strerror(errno)))") }
    var pending: [UInt8] = []
    loop.addReader(fd: fd) {
        var buf = [UInt8](repeating: 0, count: 512)
        while true {
            let n = read(fd, &buf, buf.count)
            if n <= 0 { break }
            pending += buf[0..<n]
        }
        while let nl = pending.firstIndex(of: 0x0A) {
            let line = String(decoding: pending[..<nl], as: UTF8.self).trimmingCharacters(in: " \r")
            pending.removeSubrange(...nl)
            switch line {
            case "press": sim.pressButton()
            case "drop": sim.dropButtonLink()
            default: fputs("bleexplr: demo control: unknown command '\(TerminalSafe.text(line))' (press, drop)\n", stderr)
            }
        }
        if pending.count > 4096 { pending.removeAll() }
    }
}
