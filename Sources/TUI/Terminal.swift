@preconcurrency import CNcursesw
@preconcurrency import Glibc
import Explorer

public struct TerminalError: Error, CustomStringConvertible {
    public let description: String
}

/// Saved at start so that even a crash (SIGSEGV, SIGILL, SIGABRT) can put the terminal
/// back: tcsetattr and write are async-signal-safe, endwin is not.
nonisolated(unsafe) private var savedTermios = termios()
nonisolated(unsafe) private var termiosSaved = false

private func restoreOnCrash(_ sig: Int32) {
    if termiosSaved { tcsetattr(STDIN_FILENO, TCSANOW, &savedTermios) }
    let reset = "\u{1B}[?2026l\u{1B}[0m\u{1B}[?1049l\u{1B}[?25h\r\n"
    _ = reset.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
    signal(sig, SIG_DFL)
    raise(sig)
}

/// The only code that talks to ncurses. It draws a CellGrid by writing just the cells
/// that changed since the last frame, and turns input into `Key`s.
@MainActor
public final class Terminal {
    private var screen: OpaquePointer?
    private var previous: CellGrid?
    private var active = false
    private var pairs: [Color: Int16] = [:]
    /// UTF-8, or ASCII when the locale cannot show it (`LANG=C`): what `draw` sends.
    public private(set) var charset = Charset.utf8
    /// Each frame that changes the screen is sent between the "synchronized update" marks
    /// (DEC private mode 2026, `CSI ? 2026 h` ... `CSI ? 2026 l`): a terminal that knows
    /// them shows the frame whole, never half drawn; one that does not ignores them, as it
    /// ignores every private mode it does not know. They also make the frames countable from
    /// outside (`scripts/soak` counts them in the terminal's byte stream). Not in a benchmark's output.
    private var marksFrames = false
    static let frameStart = "\u{1B}[?2026h", frameEnd = "\u{1B}[?2026l"

    public init() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TerminalError(description: "bleexplr's screen needs a terminal (stdin and stdout are not a tty); "
                                + "use the headless commands for scripts")
        }
        setlocale(LC_ALL, "")
        charset = Charset.ofLocale()
        if tcgetattr(STDIN_FILENO, &savedTermios) == 0 { termiosSaved = true }
        // newterm, unlike initscr, reports an unknown TERM instead of exiting.
        screen = newterm(nil, stdout, stdin)
        let term = getenv("TERM").map { String(cString: $0) } ?? "(unset)"
        guard screen != nil else {
            throw TerminalError(description: "cannot use terminal type '\(term)'")
        }
        guard bx_can_address_cursor() != 0 else {
            // Nothing has been drawn yet: there is no screen to put back, only ncurses to let go.
            delscreen(screen)
            screen = nil
            throw TerminalError(description: "terminal type '\(TerminalSafe.text(term))' cannot draw a full screen (it cannot move the cursor): "
                                + "set TERM (e.g. xterm-256color), or use the headless commands")
        }
        active = true
        marksFrames = true
        // Below this the screens cannot lay out (they say so when resized smaller): refuse
        // before drawing anything, with the terminal as it was.
        let (w, h) = size
        guard w >= Router.minWidth, h >= Router.minHeight else {
            restore()
            throw TerminalError(description: "the terminal is \(w)x\(h); the app needs at least \(Router.minWidth)x\(Router.minHeight) "
                                + "(enlarge it, or use the headless commands)")
        }
        for sig in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] { signal(sig, restoreOnCrash) }
        cbreak()
        noecho()
        nonl()
        keypad(stdscr, true)
        nodelay(stdscr, true)
        set_escdelay(25)
        curs_set(0)
        // no-color.org: a NO_COLOR that is set and not empty means no colours; bold,
        // reverse and the other attributes still mark what matters.
        if has_colors(), Self.colorsWanted(getenv("NO_COLOR").map { String(cString: $0) }) {
            start_color()
            use_default_colors()
            let colors: [(Color, Int16)] = [(.red, Int16(COLOR_RED)), (.green, Int16(COLOR_GREEN)),
                                            (.yellow, Int16(COLOR_YELLOW)), (.blue, Int16(COLOR_BLUE)),
                                            (.magenta, Int16(COLOR_MAGENTA)), (.cyan, Int16(COLOR_CYAN)),
                                            (.gray, COLORS >= 16 ? 8 : Int16(COLOR_WHITE))]
            for (i, (c, n)) in colors.enumerated() {
                init_pair(Int16(i + 1), n, -1)
                pairs[c] = Int16(i + 1)
            }
        }
    }

    /// Colours unless NO_COLOR is set to something (https://no-color.org).
    nonisolated static func colorsWanted(_ noColor: String?) -> Bool { noColor?.isEmpty ?? true }

    /// A terminal that writes to `output` (a file) instead of the tty, with a fixed size:
    /// for benchmarks that count the bytes ncurses really emits for a frame.
    public init(benchmarkOutput output: UnsafeMutablePointer<FILE>, width: Int, height: Int) throws {
        setenv("LINES", String(height), 1)
        setenv("COLUMNS", String(width), 1)
        use_env(true)
        setlocale(LC_ALL, "C.UTF-8")
        screen = newterm("xterm-256color", output, stdin)
        guard screen != nil else { throw TerminalError(description: "cannot start ncurses for the benchmark") }
        active = true
        if has_colors() { start_color(); use_default_colors() }
    }

    public var size: (width: Int, height: Int) { (Int(bx_cols()), Int(bx_lines())) }

    /// Puts the terminal back as it was. Safe to call more than once.
    public func restore() {
        guard active else { return }
        active = false
        curs_set(1)
        endwin()
        if let screen { delscreen(screen) }
        screen = nil
        if termiosSaved { tcsetattr(STDIN_FILENO, TCSANOW, &savedTermios) }
    }

    /// Draws the grid, touching only cells that differ from the previous frame.
    /// Returns how many cells were written.
    @discardableResult
    public func draw(_ frame: CellGrid) -> Int {
        guard active else { return 0 }
        let grid = charset == .ascii ? frame.ascii() : frame
        let full = previous == nil || previous!.width != grid.width || previous!.height != grid.height
        if full { erase() }
        var written = 0
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                if y == grid.height - 1 && x == grid.width - 1 { continue }  // writing it scrolls
                let cell = grid[x, y]
                if !full, let prev = previous, prev[x, y] == cell { continue }
                if cell.text.isEmpty { continue }  // right half of a wide character
                var wide = cell.text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
                wide.append(0)
                _ = bx_put(Int32(y), Int32(x), wide, attributes(cell.style), pairs[cell.style.color] ?? 0)
                written += 1
            }
        }
        previous = grid
        let marked = marksFrames && (written > 0 || full)
        if marked { send(Self.frameStart) }
        refresh()
        if marked { send(Self.frameEnd) }
        return written
    }

    /// Bytes of our own to the terminal, in order with what ncurses wrote (its output is
    /// flushed first).
    private func send(_ text: String) {
        fflush(stdout)
        _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
    }

    /// Forget the last frame: the next draw repaints everything (after a resize).
    public func invalidate() { previous = nil }

    private func attributes(_ s: Style) -> attr_t {
        var a: attr_t = 0
        if s.bold { a |= bx_attr_bold() }
        if s.dim { a |= bx_attr_dim() }
        if s.reverse { a |= bx_attr_reverse() }
        if s.underline { a |= bx_attr_underline() }
        return a
    }

    /// Every key waiting, without blocking.
    public func readKeys() -> [Key] {
        var keys: [Key] = []
        var ch: wint_t = 0
        while keys.count < 256 {
            let r = wget_wch(stdscr, &ch)
            if r == ERR { break }
            if r == KEY_CODE_YES {
                if let k = Self.functionKey(Int32(ch)) { keys.append(k) }
                continue
            }
            let v = UInt32(ch)
            switch v {
            case 10, 13: keys.append(.enter)
            case 27: keys.append(.escape)
            case 9: keys.append(.tab)
            case 8, 127: keys.append(.backspace)
            case 1...26: keys.append(.ctrl(Character(Unicode.Scalar(v + 96)!)))
            default:
                if let scalar = Unicode.Scalar(v), v >= 32 { keys.append(.char(Character(scalar))) }
            }
        }
        return keys
    }

    static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_RESIZE: return .resize
        default: return nil
        }
    }
}
