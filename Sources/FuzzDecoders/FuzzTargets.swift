import Explorer
import DBus
import TUI

/// Every parser of untrusted input, one target each. `scripts/fuzz` runs each target on
/// its own (FUZZ_TARGET=name), with its seeds from Tests/Fuzz/corpus/<name>; without
/// FUZZ_TARGET the first byte of the input picks the target. Each returns the text that
/// would reach a terminal (checked by the caller) and traps on a broken invariant.
enum FuzzTarget: String, CaseIterable {
    /// Advertisement and value decoders (BTHome, Continuity, beacons, ...), via
    /// UntrustedInput.families: the first byte picks the family.
    case decoders
    /// `decode HEX [HEX]`: its arguments as the shell reads them, text and JSON output.
    case decode
    /// A recording (`--replay`, `serve --clone`): read, reduced into the store, drawn.
    case recording
    /// `serve SPEC`: the peripheral spec file; and `serve --clone` from a recording.
    case serve
    /// A message off the wire (libdbus demarshal, DBusMarshal, the raw body reader) and
    /// the raw reader over bytes no one validated.
    case dbus
    /// The BlueZ backend against a lying org.bluez (GetManagedObjects, signals, replies).
    case bluez
    /// Hook targets, headers, URLs and body templates; queue lines; region specs; the write
    /// line's history file.
    case hooks
    /// `--secrets FILE`.
    case secrets
    /// The configuration file, as TOML and as JSON.
    case config

    @MainActor
    func run(_ b: Bytes) -> [String] {
        let text = String(decoding: b, as: UTF8.self)
        switch self {
        case .decoders:
            // One family per input (its first byte), the rest of the input its bytes; the
            // seeds' first bytes cycle through the families.
            guard let first = b.first else { return [] }
            let families = UntrustedInput.families
            return families[Int(first) % families.count].texts(Array(b.dropFirst()))
        case .decode:
            var out: [String] = []
            let args = text.split(whereSeparator: { $0 == "\n" || $0 == "\t" || $0 == "," }).prefix(4)
            let frames = args.compactMap { parseHex(String($0).filter { $0 != " " && $0 != ":" }) }
            for json in [false, true] {
                for line in CommandPrinter(json: json).lines(.decoded(DecodeReport(frames)), now: Timestamp(0)) {
                    if json, (try? JSONValue.parse(line.text)) == nil { fatalError("decode --json: not JSON: \(line.text.debugDescription)") }
                    out.append(line.text)
                }
            }
            return out
        case .recording:
            guard let r = try? Recording.parse(text) else { return [] }
            // The screen drawn under libFuzzer: the sum of the bytes, so any mutation may change it.
            let out = FuzzScreens.texts(r.events.map { $0.event }, pick: b.reduce(0, &+))
            let state = AppState(now: Timestamp(0))
            for (at, e) in r.events.prefix(50) {
                // Written back as a recording line, it reads back (JSON escapes what it must).
                guard let line = RecordingFormat.line(for: .backend(e, at: at), state: state) else { continue }
                if (try? JSONValue.parse(line)) == nil { fatalError("a recording line that is not JSON: \(line.debugDescription)") }
            }
            return out
        case .serve:
            var out: [String] = []
            if let spec = try? PeripheralSpec.parse(text) { out.append(spec.localName ?? "") }
            if let r = try? Recording.parse(text) {
                for address in Set(r.events.compactMap { e -> String? in
                    if case let .advertisementReceived(a) = e.event { return a.address }
                    return nil
                }).prefix(3) {
                    if let spec = try? CloneSpec.make(r, address: address) { out.append(spec.localName ?? "") }
                }
            }
            return out
        case .dbus:
            if let w = DBusFuzz.wire(b) {
                if let second = w.second, second.map(Self.normalized) != w.first.map(Self.normalized) { fatalError("a message read back differently: \(w.first) then \(second)") }
                if w.skipped == false { fatalError("the raw reader could not walk a validated body: \(w.first)") }
            }
            _ = DBusFuzz.reader(b)
            var f = FuzzValues(b)
            let values = (0..<Int(f.byte() % 4)).map { _ in f.any() }
            if let back = DBusFuzz.marshal(values), back.map(Self.normalized) != values.map(Self.normalized) {
                fatalError("marshalled and read back differently: \(values) then \(back)")
            }
            return []
        case .bluez:
            return FuzzBlueZ.run(b)
        case .hooks:
            var out: [String] = []
            let parts = text.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
            let field = { (i: Int) in i < parts.count ? parts[i] : "" }
            // Typed by the user: drawn through CellGrid.put or printed through fail(), which
            // make it safe; here only that nothing traps.
            if case let .success(t) = HookTarget.parse(field(0)) { out.append(TerminalSafe.text(t.summary)) }
            let header = HTTPHeader.parse(field(1))
            if case let .success(h) = header { out.append(TerminalSafe.text(h.shown)) }
            let headers = (try? header.get()).map { [$0] } ?? []
            if case let .success(hook) = HTTPHook.make(url: field(2), headers: headers, body: field(3)) {
                let event = FiredEvent(seq: 1, at: Timestamp(0), address: "E4:1C:22:5D:90:11", uuid: "2A37", bytes: Array(field(4).utf8))
                let body = HookTemplate.render(hook.body ?? "", event, json: true)
                // A body that is JSON stays JSON, whatever the device sent.
                if (try? JSONValue.parse(field(3).replacingPlaceholders())) != nil, (try? JSONValue.parse(body)) == nil {
                    fatalError("a JSON body template rendered to text that is not JSON: \(body.debugDescription)")
                }
                out.append(TerminalSafe.text(body))
            }
            if let v = try? JSONValue.parse(text), let e = FiredEvent(json: v) { out.append(TerminalSafe.text(e.json)) }
            if case let .success(r) = Region.parse(text) { out.append(TerminalSafe.text(r.name)) }
            // A write line's history file (the state directory): only what one could have typed comes back.
            let history = WriteHistory.parse(b)
            if history.count > WriteHistory.capacity
                || history.contains(where: { $0.count > InputLine.limit || $0.unicodeScalars.contains(where: TerminalSafe.isUnsafe) }) {
                fatalError("a write history line that could not have been typed: \(history.debugDescription)")
            }
            return out + history
        case .config:
            var out: [String] = []
            for path in ["/f/config.toml", "/f/config.json"] {
                switch UserConfig.parse(text, path: path) {
                case let .success(c): out += c.names.aliases.values.map { $0 } + c.names.uuids.values.map(\.name)
                case let .failure(e): out.append(e.description)
                }
            }
            return out
        case .secrets:
            do {
                let s = try Secrets.parse(text, name: "secrets")
                _ = HookTemplate.resolveSecrets("Bearer ${TOKEN} ${A}${B}", { s.values[$0] })
                return []
            } catch {
                return [error.description]
            }
        }
    }

    /// What a value reads back as: `ay` built as an array of bytes comes back as bytes; a
    /// double compares by its bits (NaN is not equal to itself).
    static func normalized(_ v: DBusValue) -> DBusValue {
        switch v {
        case let .double(d): return .uint64(d.bitPattern)
        case let .array("y", items):
            return .bytes(items.compactMap { if case let .byte(b) = $0 { b } else { nil } })
        case let .array(e, items): return .array(element: e, items.map(normalized))
        case let .dict(k, t, entries): return .dict(key: k, value: t, entries.map { DBusDictEntry(normalized($0.key), normalized($0.value)) })
        case let .variant(inner): return .variant(normalized(inner))
        case let .structure(fields): return .structure(fields.map(normalized))
        default: return v
        }
    }
}

extension String {
    /// `{{name}}` placeholders replaced by a plain word, so a template can be checked for
    /// being JSON before it is rendered.
    func replacingPlaceholders() -> String {
        var out = ""
        var rest = Substring(self)
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            out += rest[..<open.lowerBound]
            out += "x"
            rest = rest[close.upperBound...]
        }
        return out + rest
    }
}
