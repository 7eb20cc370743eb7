@preconcurrency import Glibc

/// `${NAME}` values for hooks: the --secrets file first, then the environment. The
/// file must be private (no group or other permissions), like ssh keys.
public struct Secrets: Sendable {
    public var values: [String: String] = [:]
    public init() {}

    public struct LoadError: Error, CustomStringConvertible { public let description: String }

    public static func load(_ path: String?) throws(LoadError) -> Secrets {
        guard let path else { return Secrets() }
        var st = stat()
        guard stat(path, &st) == 0 else { throw LoadError(description: "cannot read the secrets file \(path): \(String(cString: strerror(errno)))") }
        guard st.st_mode & 0o077 == 0 else {
            throw LoadError(description: "the secrets file \(path) can be read by others; run: chmod 600 \(path)")
        }
        let bytes: Bytes
        do { bytes = try FileBytes.read(path, limit: maxBytes) } catch {
            throw LoadError(description: "the secrets file: \(error.description)")
        }
        return try parse(String(decoding: bytes, as: UTF8.self), name: path)
    }

    /// The largest secrets file read: a few tokens, not a database.
    public static let maxBytes = 1 << 20

    /// `NAME=value` lines; blank lines and `#` comments are skipped. `name` is the file's,
    /// for the errors (which quote no value: they are secrets).
    public static func parse(_ text: String, name: String) throws(LoadError) -> Secrets {
        var s = Secrets()
        var n = 0
        // By bytes: "\r\n" is one Character, which a split on "\n" would not cut.
        for line in text.utf8.split(separator: 10, omittingEmptySubsequences: false) {
            n += 1
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: "\r")
            if text.isEmpty || text.hasPrefix("#") { continue }
            guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
                throw LoadError(description: "the secrets file \(name), line \(n): expected NAME=value")
            }
            s.values[String(text[..<eq])] = String(text[text.index(after: eq)...])
        }
        return s
    }

    public func lookup(_ name: String) -> String? {
        if let v = values[name] { return v }
        if let e = getenv(name) { return String(cString: e) }
        return nil
    }
}

extension String {
    /// Drops trailing characters made only of scalars in `set` ("\r\n" is one Character
    /// in Swift, so the scalars are compared, not the characters).
    public func trimmingCharacters(in set: String) -> String {
        let drop = Set(set.unicodeScalars)
        var s = self[...]
        while let l = s.last, l.unicodeScalars.allSatisfy({ drop.contains($0) }) { s.removeLast() }
        return String(s)
    }
}

/// Names used by a target that have no value: checked when the hook is set up, so a
/// missing token is an error at once rather than a failed delivery later.
public func missingSecrets(_ target: HookTarget, _ secrets: Secrets) -> [String] {
    guard case let .post(h) = target else { return [] }
    return h.secretNames.filter { secrets.lookup($0) == nil }
}

/// Hooks attached in the app with `a`: one in-memory queue and delivery per
/// characteristic; every report goes to the status bar and the recording.
@MainActor
public final class HookHub {
    let store: Store
    let loop: EventLoop
    let secrets: Secrets
    /// A command or HTTP (the executable's: HTTP is another target's).
    let sender: @MainActor (HookTarget) -> HookSender
    private var deliveries: [CharacteristicID: HookDelivery] = [:]

    public init(store: Store, loop: EventLoop, secrets: Secrets, sender: @escaping @MainActor (HookTarget) -> HookSender) {
        self.store = store; self.loop = loop; self.secrets = secrets; self.sender = sender
    }

    public func attach(_ cid: CharacteristicID, _ target: HookTarget?) {
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
        let d = HookDelivery(queue: queue, sender: sender(target), loop: loop)
        d.onReport = { [unowned self] r in self.store.send(.hookReported(r, for: cid)) }
        deliveries[cid] = d
    }

    public func fire(_ cid: CharacteristicID, _ event: FiredEvent) { deliveries[cid]?.fire(event) }

    /// Events fired but not yet delivered, over every attached hook.
    public var pendingCount: Int { deliveries.values.reduce(0) { $0 + $1.pendingCount } }
}
