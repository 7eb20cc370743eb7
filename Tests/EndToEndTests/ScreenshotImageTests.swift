import TestSupport
import Foundation
import Testing

/// scripts/ansi-svg, which turns the real binary's captures (tmux capture-pane -e) into the
/// colour screenshots: every glyph in its cell, colours and reverse video as the terminal
/// drew them, wide characters two cells, nothing from an escape sequence drawn.
@Suite("Screenshots as images")
struct ScreenshotImageTests {
    static func svg(_ ansi: String, width: Int, height: Int) throws -> String {
        let input = tempPath("ansi")
        defer { unlink(input) }
        try ansi.write(toFile: input, atomically: true, encoding: .utf8)
        let script = Tmux.packageRoot.appendingPathComponent("scripts/ansi-svg").path
        let r = try spawn("/bin/sh", ["-c", "'\(script)' \(width) \(height) < '\(input)'"])
        #expect(r.status == 0, "\(r.text)")
        return r.text
    }

    @Test func cellsColoursAndReverseVideo() throws {
        // "ab" plain, then "c" green on default, then "d" reversed, then a wide "日", then "e" in 256-colour red.
        let out = try Self.svg("ab\u{1B}[32mc\u{1B}[0m\u{1B}[7md\u{1B}[27m日\u{1B}[38;5;196me\u{1B}]0;title\u{07}\n", width: 8, height: 1)
        #expect(out.hasPrefix("<svg"))
        #expect(out.contains(##"<text x="0.0" y="13.3" fill="#d0d0d0">a</text>"##), "\(out)")
        #expect(out.contains(##"<text x="16.8" y="13.3" fill="#0dbc79">c</text>"##), "\(out)")
        // Reversed: the default background as the glyph's colour, the default foreground behind it.
        #expect(out.contains(##"<rect x="25.2" y="0" width="8.4" height="17" fill="#d0d0d0"/>"##), "\(out)")
        #expect(out.contains(##"<text x="25.2" y="13.3" fill="#1c1c1c">d</text>"##), "\(out)")
        #expect(out.contains(##"<text x="33.6" y="13.3" fill="#d0d0d0">日</text>"##), "\(out)")
        #expect(out.contains(##"<text x="50.4" y="13.3" fill="#ff0000">e</text>"##), "\(out)")   // after 日's two cells
        #expect(!out.contains("title"), "\(out)")
    }

    @Test func markupInTheScreenIsEscaped() throws {
        let out = try Self.svg("<&>\n", width: 3, height: 1)
        #expect(out.contains(">&lt;</text>") && out.contains(">&amp;</text>") && out.contains(">&gt;</text>"), "\(out)")
    }
}
