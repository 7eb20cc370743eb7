/// The command line's help (`--help`), rendered from CommandLineSpec: each command's usage
/// lines are also what its parser says on a wrong command line.
public enum Usage {
    typealias Spec = CommandLineSpec

    /// `serve`'s usage lines, for its parser's error.
    public static var serve: String {
        forms(Spec.commands.first { $0.name == "serve" }!).joined(separator: "\n")
    }

    /// One line a status: `  3    no bus (...)`; then the signals'.
    public static let exitCodes = (ExitCode.allCases.map { "  \($0.rawValue)    \($0.meaning)" }
        + wrap(signalStatuses, width: width - 7).enumerated().map { ($0.offset == 0 ? "  130  " : "       ") + $0.element })
        .joined(separator: "\n")

    static let signalStatuses = "interrupted by Ctrl-C; 143 SIGTERM, 129 SIGHUP (0 for each in watch, monitor, serve, notify without --count, scan without --duration)"

    public static let width = 92
    static let indent = 21

    public static var text: String {
        var out = ["usage: bleexplr [OPTIONS]"]
        for c in Spec.commands { out += forms(c) }
        out += ["", wrap(Spec.description, width: width).joined(separator: "\n"), "", "Commands:"]
        for c in Spec.commands {
            out += entry(c.name, c.help, indent: 2)
            for o in c.options { out += entry(o.label, o.help, indent: 4) }
        }
        for g in Spec.groups {
            out += ["", g.title + ":"]
            for o in g.options { out += entry(o.label, o.help, indent: 2) }
        }
        out += ["", "Keys in the app:"] + wrap(Spec.keys, width: width - 2).map { "  " + $0 }
        out += ["", "Files:"] + wrap(Spec.files, width: width - 2).map { "  " + $0 }
        out += ["", "Exit status:", exitCodes, ""]
        return out.joined(separator: "\n")
    }

    /// `       bleexplr [OPTIONS] read ADDRESS UUID ...`, wrapped under the command.
    static func forms(_ c: Spec.Command) -> [String] {
        let lead = "       bleexplr " + (c.standalone ? "" : "[OPTIONS] ") + c.name + " "
        let more = String(repeating: " ", count: 16)
        return c.forms.flatMap { form -> [String] in
            // A quoted argument ('Name: value') is one word.
            var quoted = false
            let kept = String(form.map { c -> Character in
                if c == "'" { quoted.toggle() }
                return quoted && c == " " ? "\u{1}" : c
            })
            let first = wrap(kept, width: width - lead.count)
            let rest = first.count > 1 ? wrap(first.dropFirst().joined(separator: " "), width: width - more.count) : []
            return ([lead + first[0]] + rest.map { more + $0 }).map { String($0.map { $0 == "\u{1}" ? " " : $0 }) }
        }
    }

    /// `  --adapter hciN     adapter to use ...`: the text at column `indent`, or after the
    /// label when the label is longer.
    static func entry(_ label: String, _ help: String, indent: Int) -> [String] {
        let head = String(repeating: " ", count: indent) + label
        let pad = String(repeating: " ", count: Self.indent)
        var lines = wrap(help, width: width - Self.indent)
        if head.count + 2 > Self.indent {
            // A long label: the text follows on the same line while it fits.
            let first = wrap(help, width: width - head.count - 2)
            let rest = wrap(first.dropFirst().joined(separator: " "), width: width - Self.indent)
            lines = [first[0]] + (rest == [""] ? [] : rest)
            return [head + "  " + lines[0]] + lines.dropFirst().map { pad + $0 }
        }
        return [head + String(repeating: " ", count: Self.indent - head.count) + lines[0]] + lines.dropFirst().map { pad + $0 }
    }

    /// Words into lines of at most `width` characters (a longer word keeps its own line).
    public static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty { line = String(word) } else if line.count + 1 + word.count <= width { line += " " + word } else {
                lines.append(line)
                line = String(word)
            }
        }
        lines.append(line)
        return lines
    }
}
