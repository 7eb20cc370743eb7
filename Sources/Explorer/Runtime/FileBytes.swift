@preconcurrency import Glibc

/// A whole file's bytes, up to a limit (specs, streams, recordings: named by the user,
/// read as they are: invalid UTF-8 stays for the reader to judge).
public enum FileBytes {
    public struct ReadError: Error, CustomStringConvertible { public let description: String }

    public static func read(_ path: String, limit: Int) throws(ReadError) -> Bytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(description: "cannot read \(TerminalSafe.text(path)): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var out: Bytes = []
        var buf = Bytes(repeating: 0, count: 1 << 16)
        while true {
            let n = Glibc.read(fd, &buf, buf.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw ReadError(description: "cannot read \(TerminalSafe.text(path))")
            }
            if n == 0 { return out }
            out += buf[0..<n]
            if out.count > limit { throw ReadError(description: "\(TerminalSafe.text(path)) is larger than \(limit >> 20) MB") }
        }
    }

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
