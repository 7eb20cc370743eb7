/// Values written before, per characteristic (by device address and UUID, so they
/// outlive BlueZ's object paths and the session): ↑ and ↓ in the write line bring them
/// back. Kept in the state directory by `WriteHistoryFile`, bounded, and read as hostile
/// (lines that are not a value one could type are dropped). Only values typed after `w`
/// are kept: never a passkey, a bind key or a hook (whose URL may hold a token), and not
/// a value typed with a leading space (as shells leave such lines out of their history).
public struct WriteHistory: Equatable, Sendable {
    /// Values kept per characteristic.
    public static let capacity = 50
    /// Key -> values, oldest first, for the characteristics loaded (or written) so far.
    public private(set) var values: [String: [String]] = [:]
    public init() {}

    /// `FC58FA1A2B3C-ffe1`: the address without colons, a 16- or 32-bit SIG UUID as its
    /// hex digits, any other as the whole UUID. Only letters, digits and dashes: safe as
    /// a file name whatever the address says.
    public static func key(address: String, uuid: BLEUUID) -> String {
        let short = uuid.shortValue != nil ? uuid.description.lowercased() : uuid.canonical
        let name = address.filter { $0 != ":" } + "-" + short
        let safe = { (c: Unicode.Scalar) in ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "-" }
        return String(String.UnicodeScalarView(name.unicodeScalars.filter(safe).prefix(80)))
    }

    public func isLoaded(_ key: String) -> Bool { values[key] != nil }

    public subscript(key: String) -> [String] { values[key] ?? [] }

    /// The loaded file's values, before any written since (a write before it loaded stays newest).
    public mutating func loaded(_ key: String, _ stored: [String]) {
        var merged = Self.sanitized(stored)
        for v in values[key] ?? [] { merged.removeAll { $0 == v }; merged.append(v) }
        values[key] = Array(merged.suffix(Self.capacity))
    }

    /// A value written: the newest, once (an earlier equal one moves up). False when it is
    /// not to be kept (a leading space).
    @discardableResult
    public mutating func wrote(_ key: String, _ typed: String) -> Bool {
        guard let first = typed.first, first != " ", first != "\t" else { return false }
        let v = typed.trimmingSpaces()
        guard Self.acceptable(v) else { return false }
        var list = values[key] ?? []
        list.removeAll { $0 == v }
        list.append(v)
        values[key] = Array(list.suffix(Self.capacity))
        return true
    }

    /// Lines as they could have been typed: not empty, not too long, no control or bidi
    /// characters, a value the write line takes; the newest `capacity`, each once.
    public static func sanitized(_ lines: [String]) -> [String] {
        var out: [String] = []
        for l in lines where acceptable(l) {
            out.removeAll { $0 == l }
            out.append(l)
        }
        return Array(out.suffix(capacity))
    }

    static func acceptable(_ v: String) -> Bool {
        !v.isEmpty && v.count <= InputLine.limit && !v.unicodeScalars.contains { TerminalSafe.isUnsafe($0) || $0 == "\u{FFFD}" }
            && v.trimmingSpaces() == v && (try? WriteValue.parse(v).get()) != nil
    }

    /// The file's text: a value a line, oldest first.
    public static func text(_ values: [String]) -> String { values.map { $0 + "\n" }.joined() }

    /// A file's bytes as values (invalid UTF-8 becomes U+FFFD, and its line is dropped).
    public static func parse(_ bytes: Bytes) -> [String] {
        sanitized(String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init))
    }
}
