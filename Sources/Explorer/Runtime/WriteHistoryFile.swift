@preconcurrency import Glibc

/// Where `WriteHistory` lives: `$XDG_STATE_HOME/bleexplr/writes/KEY` (or
/// ~/.local/state/…), a value a line, the folders private (0700) and each file 0600.
/// Read as hostile: at most 64 KiB, lines sanitized by `WriteHistory.parse`; a file that
/// cannot be read is an empty history. Written whole to a new file, then renamed over the
/// old one: a crash leaves the old history or the new one, and a symlink put in its place
/// is replaced, never followed.
public enum WriteHistoryFile {
    static let readLimit = 64 << 10

    /// The folder, made when `create`; nil without XDG_STATE_HOME or HOME.
    public static func directory(create: Bool) -> String? { StateDirectory.path("writes", create: create) }

    /// `folder`: the state directory's unless given (tests).
    public static func load(_ key: String, folder: String? = nil) -> [String] {
        guard !key.isEmpty, let dir = folder ?? directory(create: false) else { return [] }
        // A file grown past the limit keeps its newest lines; one that cannot be read is no history.
        guard let bytes = try? FileBytes.read(dir + "/" + key, limit: readLimit, larger: .newestLines, ownFile: true) else { return [] }
        return WriteHistory.parse(bytes)
    }

    /// False when it could not be saved (the history stays in memory for the session).
    @discardableResult
    public static func save(_ key: String, _ values: [String], folder: String? = nil) -> Bool {
        guard !key.isEmpty, let dir = folder ?? directory(create: true) else { return false }
        return FileBytes.replace(dir + "/" + key, Array(WriteHistory.text(values).utf8))
    }
}
