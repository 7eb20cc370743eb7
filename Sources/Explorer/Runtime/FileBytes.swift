@preconcurrency import Glibc

/// A whole file's bytes, up to a limit (specs, streams, recordings: named by the user,
/// read as they are: invalid UTF-8 stays for the reader to judge).
public enum FileBytes {
    public struct ReadError: Error, CustomStringConvertible { public let description: String }

    /// What a file over the limit gives: an error, or its newest whole lines (a history
    /// that grew: what comes after the first line break within the last `limit` bytes).
    public enum Larger: Sendable { case refused, newestLines }

    /// Every byte of `path` up to `limit`. `ownFile`: a file bleexplr keeps for itself
    /// (state, secrets) is read only if it is a regular file, not through a symbolic link.
    public static func read(_ path: String, limit: Int, larger: Larger = .refused,
                            ownFile: Bool = false) throws(ReadError) -> Bytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (ownFile ? O_NOFOLLOW | O_NONBLOCK : 0))
        guard fd >= 0 else { throw ReadError(description: "cannot read \(TerminalSafe.text(path)): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ReadError(description: "cannot read \(TerminalSafe.text(path))") }
        if ownFile && st.st_mode & mode_t(S_IFMT) != mode_t(S_IFREG) {
            throw ReadError(description: "\(TerminalSafe.text(path)) is not a regular file")
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
                throw ReadError(description: "cannot read \(TerminalSafe.text(path)): \(String(cString: strerror(errno)))")
            }
            if n == 0 { return out }
            out += buf[0..<n]
            if out.count > limit { throw ReadError(description: "\(TerminalSafe.text(path)) is larger than \(size(limit))") }
        }
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
}
