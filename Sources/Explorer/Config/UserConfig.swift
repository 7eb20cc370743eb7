@preconcurrency import Glibc

/// The user's own names and defaults: `$XDG_CONFIG_HOME/bleexplr/config.toml` (or
/// `config.json`; `~/.config` without XDG_CONFIG_HOME; `BLEEXPLR_CONFIG=FILE` names another
/// file, `BLEEXPLR_CONFIG=` none). Read once at startup, never written. The format is in
/// docs/config.md: aliases for devices by address, names (and a value format) for vendor
/// UUIDs, favourites pinned to the top of the scan list, default options.
public struct UserConfig: Equatable, Sendable {
    public var names = UserNames()
    /// `--adapter` unless the command line gives one.
    public var adapter: String?
    /// `--rssi-floor` unless the command line gives one: .some(nil) is "off".
    public var rssiFloor: Int??
    /// iBeacon regions (`--region`), in the file's order of names, unless the command line
    /// names its own.
    public var regions: [Region] = []
    /// `--enter-rssi`, `--exit-rssi`, `--exit-after` unless the command line gives them.
    public var regionConfig = RegionConfig()
    /// Where it was read from (nil: no file).
    public var path: String?

    public init() {}

    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String {
            "\(TerminalSafe.text(path)): \(reason) (the file is left as it is: fix it, or run with BLEEXPLR_CONFIG= to start without it)"
        }
    }

    public static let maxBytes = 1 << 20

    /// The file to read, nil for none. `env` is the environment's lookup.
    public static func location(_ env: (String) -> String?) -> String? {
        if let explicit = env("BLEEXPLR_CONFIG") { return explicit.isEmpty ? nil : explicit }
        let base: String
        if let x = env("XDG_CONFIG_HOME"), x.hasPrefix("/") { base = x } else if let h = env("HOME"), !h.isEmpty { base = h + "/.config" } else { return nil }
        let toml = base + "/bleexplr/config.toml", json = base + "/bleexplr/config.json"
        if access(toml, F_OK) == 0 { return toml }
        return access(json, F_OK) == 0 ? json : nil
    }

    /// The configuration of this process, read on first use from the environment.
    public static let loaded: Result<UserConfig, Problem> = load(location { getenv($0).map { String(cString: $0) } })

    /// Reads and checks `path` (nil: no configuration). A file BLEEXPLR_CONFIG names must exist.
    public static func load(_ path: String?) -> Result<UserConfig, Problem> {
        guard let path else { return .success(UserConfig()) }
        do { return parse(try readFile(path), path: path) } catch {
            return .failure(Problem(path: path, reason: (error.description.hasPrefix("cannot") ? "cannot be read: " : "") + error.reason))
        }
    }

    /// `text` as TOML (a `.toml` path) or JSON (any other).
    public static func parse(_ text: String, path: String) -> Result<UserConfig, Problem> {
        let value: JSONValue
        if path.hasSuffix(".toml") {
            switch TOMLReader.parse(text) {
            case let .success(v): value = v
            case let .failure(e): return .failure(Problem(path: path, reason: e.description))
            }
        } else {
            do { value = try JSONValue.parse(text) } catch { return .failure(Problem(path: path, reason: "not JSON: \(error.description)")) }
        }
        do {
            var c = try UserConfig(value)
            c.path = path
            return .success(c)
        } catch { return .failure(Problem(path: path, reason: error.reason)) }
    }

    struct Invalid: Error { let reason: String }

    init(_ v: JSONValue) throws(Invalid) {
        guard let top = v.object else { throw Invalid(reason: "the top level must be a table of settings") }
        for key in top.keys where !["aliases", "names", "favourites", "regions", "defaults"].contains(key) {
            throw Invalid(reason: "unknown setting '\(TerminalSafe.text(key))' (aliases, names, favourites, regions, defaults)")
        }
        for (address, name) in try Self.table(top["aliases"], "aliases") {
            guard let a = PeripheralID.address(address) else { throw Invalid(reason: "aliases: '\(TerminalSafe.text(address))' is not an address like AA:BB:CC:DD:EE:FF") }
            guard let s = name.string, let n = Self.name(s) else { throw Invalid(reason: "aliases: \(a) needs a name of 1 to 64 characters") }
            names.aliases[a] = n
        }
        for (key, entry) in try Self.table(top["names"], "names") {
            guard let uuid = BLEUUID(key) else { throw Invalid(reason: "names: '\(TerminalSafe.text(key))' is not a UUID (FFF1, 0xFFF1 or 128-bit)") }
            var format: ValueFormat?
            let text: String?
            if let s = entry.string { text = s } else if let o = entry.object {
                for k in o.keys where k != "name" && k != "format" { throw Invalid(reason: "names: \(key): unknown key '\(TerminalSafe.text(k))' (name, format)") }
                text = o["name"]?.string
                if let f = o["format"] {
                    guard let fs = f.string, let vf = Self.format(fs) else {
                        throw Invalid(reason: "names: \(key): format is one of " + Self.formatNames.joined(separator: ", "))
                    }
                    format = vf
                }
            } else { text = nil }
            guard let t = text, let n = Self.name(t) else { throw Invalid(reason: "names: \(key) needs a name of 1 to 64 characters") }
            names.uuids[uuid] = UserNames.UUIDName(name: n, format: format)
        }
        if let f = top["favourites"] {
            guard let list = f.array else { throw Invalid(reason: "favourites is a list of addresses") }
            for item in list {
                guard let s = item.string, let a = PeripheralID.address(s) else { throw Invalid(reason: "favourites: \(TerminalSafe.text(item.serialized)) is not an address") }
                names.favourites.insert(a)
            }
        }
        for (name, value) in try Self.table(top["regions"], "regions") {
            guard let spec = value.string, case let .success(r) = Region.parse(name + "=" + spec) else {
                throw Invalid(reason: "regions: '\(TerminalSafe.text(name))' needs a name of 1 to 64 characters and \"UUID[:MAJOR[:MINOR]]\" (a 128-bit proximity UUID)")
            }
            regions.append(r)
        }
        for (key, value) in try Self.table(top["defaults"], "defaults") {
            switch key {
            case "adapter":
                guard let s = value.string, s.hasPrefix("hci"), let n = Int(s.dropFirst(3)), n >= 0, n < 1000 else {
                    throw Invalid(reason: "defaults: adapter is a name like hci0")
                }
                adapter = s
            case "rssi_floor":
                if value.string == "off" { rssiFloor = .some(nil) } else {
                    guard let n = value.int, (-127...20).contains(n) else { throw Invalid(reason: "defaults: rssi_floor is -127...20 or \"off\"") }
                    rssiFloor = .some(n)
                }
            case "enter_rssi", "exit_rssi":
                guard let n = value.int, (-127...20).contains(n) else { throw Invalid(reason: "defaults: \(key) is -127...20") }
                if key == "enter_rssi" { regionConfig.enterRSSI = n } else { regionConfig.exitRSSI = n }
            case "exit_after":
                guard let n = value.number, n > 0, n <= 3600 else { throw Invalid(reason: "defaults: exit_after is seconds, more than 0 and at most 3600") }
                regionConfig.exitAfter = n
            default: throw Invalid(reason: "defaults: unknown setting '\(TerminalSafe.text(key))' (adapter, rssi_floor, enter_rssi, exit_rssi, exit_after)")
            }
        }
        guard regionConfig.exitRSSI <= regionConfig.enterRSSI else {
            throw Invalid(reason: "defaults: exit_rssi (\(regionConfig.exitRSSI)) must be at or below enter_rssi (\(regionConfig.enterRSSI)): the gap is what stops flapping")
        }
    }

    static func table(_ v: JSONValue?, _ name: String) throws(Invalid) -> [(String, JSONValue)] {
        guard let v else { return [] }
        guard let o = v.object else { throw Invalid(reason: "\(name) must be a table") }
        return o.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// A name as the screens will show it: no control characters, 1 to 64 characters.
    static func name(_ s: String) -> String? {
        let t = TerminalSafe.text(s)
        return t.isEmpty || t.count > 64 ? nil : t
    }

    /// The formats a name may carry: `f`'s, by their short names (u16le, float32, utf8).
    static let formatNames = ValueFormat.allCases.filter { $0 != .decoded }.map(shortName)

    static func shortName(_ f: ValueFormat) -> String { "\(f)" }

    static func format(_ s: String) -> ValueFormat? {
        ValueFormat.allCases.first { $0 != .decoded && (shortName($0) == s || $0.rawValue == s) }
    }

    static func readFile(_ path: String) throws(FileBytes.ReadError) -> String {
        String(decoding: try FileBytes.read(path, limit: maxBytes), as: UTF8.self)
    }
}
