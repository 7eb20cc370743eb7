#if canImport(Glibc)
@preconcurrency import Glibc
#endif

public struct RecorderError: Error, Equatable, CustomStringConvertible {
    public let description: String
}

/// Appends recording lines to a file. Lines are buffered in memory only until the next
/// `flush()` (the event loop flushes before every wait), and each flush is one write(2)
/// of whole lines, so after a `kill -9` the file holds complete lines up to the last
/// flush. Nothing is kept in memory after a flush: a long session costs no memory.
/// A recording never replaces a file: it is created with O_EXCL (no window between a
/// check and the open), and a name that is taken is refused or, with `renameIfTaken`,
/// numbered (`name-2.jsonl`, `name-3.jsonl`, ...).
public final class Recorder {
    public let path: String
    private var fd: Int32
    private var pending: [UInt8] = []
    public private(set) var linesWritten = 0
    /// The last notifications' lines, kept for the next batch (`RecordingFormat.appendLines`).
    private var notificationLines: NotificationLines?

    public init(path: String, header: RecordingFormat.Header, renameIfTaken: Bool = false) throws(RecorderError) {
        var candidate = path
        var n = 1
        var f: Int32
        while true {
            f = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard f < 0, errno == EEXIST, renameIfTaken, n < 999 else { break }
            n += 1
            candidate = Recorder.numbered(path, n)
        }
        guard f >= 0 else {
            if errno == EEXIST { throw RecorderError(description: Recorder.existsMessage(path)) }
            throw RecorderError(description: "cannot write \(path): \(errnoText())")
        }
        self.path = candidate
        fd = f
        append(RecordingFormat.headerLine(header))
        try flush()
    }

    /// `name.jsonl` as `name-N.jsonl` (the extension of the file name, if any, stays last).
    public static func numbered(_ path: String, _ n: Int) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        if let dot = path[slash...].lastIndex(of: "."), dot > slash {
            return "\(path[..<dot])-\(n)\(path[dot...])"
        }
        return "\(path)-\(n)"
    }

    public static func existsMessage(_ path: String) -> String {
        "\(TerminalSafe.text(path)) exists: a recording never overwrites a file (choose another name)"
    }

    /// Whether a file (or anything else) has this name already.
    public static func isTaken(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    public func append(_ line: String) {
        pending.append(contentsOf: line.utf8)
        pending.append(0x0A)
        linesWritten += 1
    }

    /// The lines an action records (`RecordingFormat.appendLines`), as bytes: no String
    /// between the line and the file.
    public func record(_ action: Action, _ state: borrowing AppState) {
        linesWritten += RecordingFormat.appendLines(for: action, state: state, to: &pending, reusing: &notificationLines)
    }

    public func flush() throws(RecorderError) {
        guard !pending.isEmpty, fd >= 0 else { return }
        var offset = 0
        while offset < pending.count {
            let n = pending.withUnsafeBytes { buf in
                write(fd, buf.baseAddress! + offset, buf.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                let message = "writing \(path) failed: \(errnoText())"
                // Cut back to the last whole line, so the file stays parseable.
                if offset > 0, let lastNewline = pending[..<offset].lastIndex(of: 0x0A), lastNewline + 1 < offset {
                    let size = lseek(fd, 0, SEEK_CUR) - off_t(offset - lastNewline - 1)
                    _ = ftruncate(fd, size)
                }
                pending.removeAll()
                throw RecorderError(description: message)
            }
            offset += n
        }
        pending.removeAll(keepingCapacity: pending.count < 1 << 16)
    }

    public func close() throws(RecorderError) {
        try flush()
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }
}

func errnoText() -> String { String(cString: strerror(errno)) }
