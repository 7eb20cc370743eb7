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
public final class Recorder {
    public let path: String
    private var fd: Int32
    private var pending: [UInt8] = []
    public private(set) var linesWritten = 0

    public init(path: String, header: RecordingFormat.Header) throws(RecorderError) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RecorderError(description: "cannot write \(path): \(errnoText())") }
        append(RecordingFormat.headerLine(header))
        try flush()
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    public func append(_ line: String) {
        pending.append(contentsOf: line.utf8)
        pending.append(0x0A)
        linesWritten += 1
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
