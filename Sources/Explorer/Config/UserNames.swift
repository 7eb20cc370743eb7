@preconcurrency import Glibc

/// The names the user gave, as every screen and command shows them: the configuration
/// file's, with the ones chosen in the app (`N`, `NamesFile`) over them. Like the
/// assigned-numbers tables it stands in front of (AssignedNumbers, Peripheral.displayName,
/// ValueDecoder), it is one table for the process: installed by main before the event
/// loop, and changed after that only by the effect runner when a name chosen in the app
/// was saved (`Effect.saveName`), on the one thread that runs the reducer and draws.
public struct UserNames: Equatable, Sendable {
    public struct UUIDName: Equatable, Sendable {
        public var name: String
        public var format: ValueFormat?
    }

    /// Upper-case address to alias.
    public var aliases: [String: String] = [:]
    public var uuids: [BLEUUID: UUIDName] = [:]
    /// Upper-case addresses.
    public var favourites: Set<String> = []

    public init() {}

    public func alias(_ address: String) -> String? { aliases.isEmpty ? nil : aliases[address] }
    public func name(_ uuid: BLEUUID) -> String? { uuids.isEmpty ? nil : uuids[uuid]?.name }
    public func format(_ uuid: BLEUUID) -> ValueFormat? { uuids.isEmpty ? nil : uuids[uuid]?.format }
    public func isFavourite(_ address: String) -> Bool { !favourites.isEmpty && favourites.contains(address) }

    /// These names with `chosen`'s over them; a UUID named in the app keeps the value
    /// format the configuration gave it, unless it has one of its own.
    public func overridden(by chosen: UserNames) -> UserNames {
        var out = self
        out.aliases.merge(chosen.aliases) { $1 }
        for (uuid, n) in chosen.uuids { out.uuids[uuid] = UUIDName(name: n.name, format: n.format ?? uuids[uuid]?.format) }
        out.favourites.formUnion(chosen.favourites)
        return out
    }

    /// The process's names: empty until main installs them; tests install their own.
    public nonisolated(unsafe) private(set) static var current = UserNames()
    /// What `current` is made of: the configuration's, and the ones chosen in the app.
    public nonisolated(unsafe) private(set) static var configured = UserNames()
    public nonisolated(unsafe) private(set) static var chosen = UserNames()

    public static func install(_ names: UserNames, chosen: UserNames = UserNames()) {
        configured = names
        choose(chosen)
    }

    /// The names chosen in the app are these now (saved to `NamesFile`).
    public static func choose(_ names: UserNames) {
        chosen = names
        current = configured.overridden(by: names)
    }
}

/// A name given or taken back in the app: an alias for a device, a name for a UUID (nil:
/// the one chosen before is removed, and the configuration's, if any, shows again).
public enum NameChange: Equatable, Sendable {
    case alias(address: String, String?)
    case uuid(BLEUUID, String?)

    /// The names with this change made.
    public func applied(to n: UserNames) -> UserNames {
        var n = n
        switch self {
        case let .alias(address, name): n.aliases[address] = name
        case let .uuid(uuid, name):
            if let name { n.uuids[uuid] = UserNames.UUIDName(name: name, format: n.uuids[uuid]?.format) } else { n.uuids[uuid] = nil }
        }
        return n
    }
}

/// Where the names chosen in the app are kept: `names.json` beside the configuration file,
/// in `$XDG_CONFIG_HOME/bleexplr` (`~/.config/bleexplr`): the configuration's format (JSON),
/// with only `aliases` and `names`. The user's config.toml is never written; this file is
/// bleexplr's own, read again before every save (another bleexplr may have added a name)
/// and replaced whole (`FileBytes.replace`). `BLEEXPLR_CONFIG=` (no configuration) has none.
public enum NamesFile {
    public static func location(_ env: (String) -> String?) -> String? {
        if let explicit = env("BLEEXPLR_CONFIG"), explicit.isEmpty { return nil }
        if let x = env("XDG_CONFIG_HOME"), x.hasPrefix("/") { return x + "/bleexplr/names.json" }
        if let h = env("HOME"), h.hasPrefix("/") { return h + "/.config/bleexplr/names.json" }
        return nil
    }

    public static let path: String? = location { getenv($0).map { String(cString: $0) } }

    /// The names in `path`: none when it does not exist; a file that is not the names the
    /// app writes is a problem (and is never replaced).
    public static func load(_ path: String?) -> Result<UserNames, UserConfig.Problem> {
        guard let path, access(path, F_OK) == 0 else { return .success(UserNames()) }
        let text: String
        do { text = String(decoding: try FileBytes.read(path, limit: UserConfig.maxBytes, ownFile: true), as: UTF8.self) } catch {
            return .failure(UserConfig.Problem(path: path, reason: "cannot be read: " + error.reason))
        }
        switch UserConfig.parse(text, path: path) {
        case let .failure(p): return .failure(p)
        case let .success(c):
            guard c.names.favourites.isEmpty, c.regions.isEmpty, c.adapter == nil, c.rssiFloor == nil, c.regionConfig == RegionConfig() else {
                return .failure(UserConfig.Problem(path: path, reason: "holds only aliases and names (the app writes it; other settings go in config.toml)"))
            }
            return .success(c.names)
        }
    }

    /// Makes the change in the file (created, with its folder, when missing) and returns
    /// the names it holds now, or why it could not.
    public static func save(_ change: NameChange, path: String) -> Result<UserNames, UserConfig.Problem> {
        let names: UserNames
        switch load(path) {
        case let .failure(p): return .failure(p)
        case let .success(n): names = change.applied(to: n)
        }
        if let slash = path.lastIndex(of: "/") { StateDirectory.make(String(path[..<slash])) }
        guard FileBytes.replace(path, Array(text(names).utf8)) else {
            return .failure(UserConfig.Problem(path: path, reason: "cannot be written: " + String(cString: strerror(errno))))
        }
        return .success(names)
    }

    /// The file's text: a line per name, sorted, so that it reads (and diffs) well.
    static func text(_ n: UserNames) -> String {
        func entries(_ pairs: [(String, String)]) -> String {
            pairs.isEmpty ? "{}" : "{\n" + pairs.map { "    " + JSONLine.quoted($0.0) + ": " + $0.1 }.joined(separator: ",\n") + "\n  }"
        }
        let aliases = n.aliases.sorted { $0.key < $1.key }.map { ($0.key, JSONLine.quoted($0.value)) }
        let uuids = n.uuids.sorted { $0.key.canonical < $1.key.canonical }.map { uuid, u in
            (uuid.canonical, u.format.map { "{\"name\": \(JSONLine.quoted(u.name)), \"format\": \(JSONLine.quoted(UserConfig.shortName($0)))}" }
                ?? JSONLine.quoted(u.name))
        }
        return "{\n  \"aliases\": \(entries(aliases)),\n  \"names\": \(entries(uuids))\n}\n"
    }
}
