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
    public static func directory(create: Bool) -> String? {
        var dir: String
        if let x = getenv("XDG_STATE_HOME"), x.pointee != 0, x.pointee == 0x2F { dir = String(cString: x) }
        else if let h = getenv("HOME"), h.pointee == 0x2F { dir = String(cString: h) + "/.local/state" }
        else { return nil }
        dir += "/bleexplr/writes"
        if create {
            var partial = ""
            for part in dir.split(separator: "/") {
                partial += "/" + part
                mkdir(partial, 0o700)
            }
        }
        return dir
    }

    /// `folder`: the state directory's unless given (tests).
    public static func load(_ key: String, folder: String? = nil) -> [String] {
        guard !key.isEmpty, let dir = folder ?? directory(create: false) else { return [] }
        let fd = open(dir + "/" + key, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG) else { return [] }   // not a FIFO or a device
        // A file grown past the limit keeps its newest lines (from the first whole one).
        let size = Int(st.st_size), cut = size > readLimit
        if cut { lseek(fd, off_t(size - readLimit), SEEK_SET) }
        var out: Bytes = []
        var buf = Bytes(repeating: 0, count: 16 << 10)
        while out.count < readLimit {
            let n = read(fd, &buf, min(buf.count, readLimit - out.count))
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            out += buf[0..<n]
        }
        if cut, let nl = out.firstIndex(of: 0x0A) { out.removeSubrange(...nl) }
        return WriteHistory.parse(out)
    }

    /// False when it could not be saved (the history stays in memory for the session).
    @discardableResult
    public static func save(_ key: String, _ values: [String], folder: String? = nil) -> Bool {
        guard !key.isEmpty, let dir = folder ?? directory(create: true) else { return false }
        let path = dir + "/" + key, temporary = path + ".new-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return false }
        let bytes = Array(WriteHistory.text(values).utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            written += n
        }
        guard close(fd) == 0, written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}
