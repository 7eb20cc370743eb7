@preconcurrency import Glibc

/// A whole file's bytes, up to a limit (specs, streams, recordings: named by the user,
/// read as they are: invalid UTF-8 stays for the reader to judge).
public enum FileBytes {
    public struct ReadError: Error, CustomStringConvertible {
        public let description: String
        /// Without the file's name ("No such file or directory", "larger than 1 MB").
        public let reason: String
        init(_ path: String, _ reason: String, joined: String = ": ") {
            self.reason = reason
            description = (joined == ": " ? "cannot read " : "") + TerminalSafe.text(path) + joined + reason
        }
    }

    /// What a file over the limit gives: an error, or its newest whole lines (a history
    /// that grew: what comes after the first line break within the last `limit` bytes).
    public enum Larger: Sendable { case refused, newestLines }

    /// Every byte of `path` up to `limit`. `ownFile`: a file bleexplr keeps for itself
    /// (state, secrets) is read only if it is a regular file, not through a symbolic link.
    public static func read(_ path: String, limit: Int, larger: Larger = .refused,
                            ownFile: Bool = false) throws(ReadError) -> Bytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (ownFile ? O_NOFOLLOW | O_NONBLOCK : 0))
        guard fd >= 0 else { throw ReadError(path, String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ReadError(path, String(cString: strerror(errno))) }
        if ownFile && st.st_mode & mode_t(S_IFMT) != mode_t(S_IFREG) {
            throw ReadError(path, "not a regular file", joined: " is ")
        }
        let cut = larger == .newestLines && Int(st.st_size) > limit
        if cut { lseek(fd, off_t(Int(st.st_size) - limit), SEEK_SET) }
        var out = try readAll(fd, limit: limit, name: path)
        if cut, let nl = out.firstIndex(of: 0x0A) { out.removeSubrange(...nl) }
        return out
    }

    /// An open file's bytes to its end; more than `limit` is an error ("NAME is larger than 64 MB").
    public static func readAll(_ fd: Int32, limit: Int, name path: String) throws(ReadError) -> Bytes {
        var out: Bytes = []
        var st = stat()   // a regular file says its size: room for it at once (a recording is tens of MB)
        if fstat(fd, &st) == 0, st.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG) {
            out.reserveCapacity(min(limit, max(0, Int(st.st_size) - Int(lseek(fd, 0, SEEK_CUR)))))
        }
        var buf = Bytes(repeating: 0, count: min(1 << 16, limit + 1))
        while true {
            let n = Glibc.read(fd, &buf, buf.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw ReadError(path, String(cString: strerror(errno)))
            }
            if n == 0 { return out }
            out += buf[0..<n]
            if out.count > limit { throw ReadError(path, "larger than \(size(limit))", joined: " is ") }
        }
    }

    /// An open file's lines (without their line feeds), read 1 MiB at a time, each handed to
    /// `body` as it is read: the file is never held whole. `body` gets nil for a line longer
    /// than `maxLine` (its bytes are dropped as they come), and returns false to stop reading.
    /// A last line without its line feed is handed over too. More than `limit` bytes in all
    /// is an error, as for `readAll`.
    public static func forEachLine(_ fd: Int32, limit: Int, maxLine: Int, name path: String,
                                   _ body: (ArraySlice<UInt8>?) -> Bool) throws(ReadError) {
        var chunk = Bytes(repeating: 0, count: 1 << 20)
        var pending: Bytes = []   // the start of a line that began in an earlier chunk
        var tooLong = false
        var total = 0
        while true {
            let n = Glibc.read(fd, &chunk, chunk.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw ReadError(path, String(cString: strerror(errno)))
            }
            if n == 0 { break }
            total += n
            if total > limit { throw ReadError(path, "larger than \(size(limit))", joined: " is ") }
            var start = 0
            while start < n {
                guard let nl = chunk[start..<n].firstIndex(of: 0x0A) else {
                    if !tooLong {
                        pending += chunk[start..<n]
                        if pending.count > maxLine { tooLong = true; pending = [] }
                    }
                    break
                }
                let more: Bool
                if tooLong {
                    more = body(nil)
                } else if pending.isEmpty {
                    more = body(chunk[start..<nl])
                } else if pending.count + (nl - start) > maxLine {
                    more = body(nil)
                } else {
                    pending += chunk[start..<nl]
                    more = body(pending[...])
                }
                tooLong = false
                pending.removeAll(keepingCapacity: pending.count <= 1 << 20)
                if !more { return }
                start = nl + 1
            }
        }
        if tooLong { _ = body(nil) } else if !pending.isEmpty { _ = body(pending[...]) }
    }

    /// "64 KiB", "64 MB".
    static func size(_ bytes: Int) -> String { bytes >= 1 << 20 ? "\(bytes >> 20) MB" : "\(bytes >> 10) KiB" }

    /// Writes a file the user named for writing (`notify --output FILE`): created, or
    /// replaced. False when any of it could not be written.
    public static func write(_ path: String, _ bytes: Bytes) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { close(fd); return false }
            written += n
        }
        return close(fd) == 0
    }

    /// Replaces a file bleexplr keeps for itself (its state, the names chosen in the app)
    /// with `bytes`: written whole to a new file (`mode`), then renamed over the old one, so
    /// that a crash leaves the old file or the new one, never half of either, and a
    /// symbolic link put in its place is replaced, never followed. False when any of it failed.
    public static func replace(_ path: String, _ bytes: Bytes, mode: mode_t = 0o600) -> Bool {
        let temporary = path + ".new-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { return false }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            written += n
        }
        let synced = written == bytes.count && fsync(fd) == 0
        guard close(fd) == 0, synced, rename(temporary, path) == 0 else {
            let saved = errno
            unlink(temporary)
            errno = saved
            return false
        }
        return true
    }
}
