@preconcurrency import Glibc

/// Lines typed on a command's terminal (stdin, cooked: the terminal edits and echoes
/// them), for the pairing agent's questions. Read on the loop: nothing waits for them.
@MainActor
public final class TerminalLines {
    /// Reads stdin's lines into `onLine` from now on; nothing to keep.
    @discardableResult
    public static func start(loop: EventLoop, _ onLine: @escaping @MainActor (String) -> Void) -> TerminalLines {
        TerminalLines(loop: loop, onLine)
    }

    private let loop: EventLoop
    private let onLine: @MainActor (String) -> Void
    private var pending: Bytes = []

    /// Only when stdin is a terminal: a command fed from a pipe has no one to ask.
    public static var available: Bool { isatty(STDIN_FILENO) == 1 }

    public init(loop: EventLoop, _ onLine: @escaping @MainActor (String) -> Void) {
        self.loop = loop
        self.onLine = onLine
        // The loop keeps this reader (and so this object) as long as stdin is open.
        loop.addReader(fd: STDIN_FILENO) { [self] in readSome() }
    }

    private func readSome() {
        var buf = Bytes(repeating: 0, count: 256)
        let n = read(STDIN_FILENO, &buf, buf.count)
        if n <= 0 {
            if n == 0 || errno != EINTR { loop.removeReader(fd: STDIN_FILENO) }
            return
        }
        pending += buf[0..<n]
        while let nl = pending.firstIndex(of: 0x0A) {
            let line = String(decoding: pending[..<nl], as: UTF8.self)
            pending.removeSubrange(...nl)
            onLine(line)
        }
        if pending.count > 4096 { pending.removeAll() }
    }
}
