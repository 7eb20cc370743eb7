@preconcurrency import Glibc
import Explorer

/// The bench's table: each figure next to its target and the figure the README last
/// published, and a `REGRESSED: …` line for every target missed and every figure much
/// worse than the published one. The bench asserts nothing: it says.
@MainActor final class Report {
    /// Worse than the README's figure by more than this counts as a regression: this
    /// machine's noise between runs stays within about ±30 %.
    static let regressionFactor = 1.5
    private let published: [String: String]
    private var problems: [String] = []
    private let out: (String) -> Void

    convenience init(readme path: String = "README.md") {
        self.init(published: Self.publishedFigures(path)) { print($0) }
    }

    init(published: [String: String], out: @escaping (String) -> Void) {
        self.published = published
        self.out = out
        out("| figure | value | target | README |")
        out("|---|---|---|---|")
    }

    /// Every problem found so far, as `finish()` prints it after `REGRESSED: `.
    var regressions: [String] { problems }

    /// The README's figure for a row. The bench indents the rows that belong to the one
    /// above ("  a frame with 10,000 peripherals / ..."); the table holds its names trimmed.
    func publishedFigure(_ name: String) -> String? {
        published[Substring(name).trimmingSpaces()]
    }

    /// A figure where lower is better, with its unit-free value and an optional upper target.
    /// `resolution`: the step the measurement moves by (a CPU share counted in clock ticks):
    /// a figure within it of the README's is not worse, whatever the factor between them.
    func figure(_ name: String, _ value: Double, digits: Int = 2, atMost target: Double? = nil, suffix: String = "",
                resolution: Double = 0) {
        let text = formatFixed(value, digits) + suffix
        let readme = publishedFigure(name) ?? "—"
        line(name, text, target.map { "<= " + formatFixed($0, digits) } ?? "", readme)
        let what = Substring(name).trimmingSpaces()
        if let t = target, value > t { problems.append("\(what): \(text), target <= \(formatFixed(t, digits))") }
        if let old = Self.number(readme), old > 0, value > old * Self.regressionFactor, value - old > resolution + 1e-9 {
            problems.append("\(what): \(text), the README has \(readme) (more than \(formatFixed(Self.regressionFactor, 1))x worse)")
        }
    }

    /// A ratio of two figures of this run: the machine's noise cancels.
    func ratio(_ name: String, _ value: Double, atMost target: Double) {
        figure(name, value, digits: 2, atMost: target, suffix: "x")
    }

    /// A figure printed as is (counts, sizes), with its target in words.
    func text(_ name: String, _ value: String, _ target: String = "") {
        line(name, value, target, publishedFigure(name) ?? "—")
    }

    func finish() {
        if problems.isEmpty { out("\nevery target met, nothing worse than the README") }
        for p in problems { out("REGRESSED: " + p) }
    }

    private func line(_ what: String, _ value: String, _ target: String, _ readme: String) {
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        out("| \(pad(what, 66)) | \(pad(value, 14)) | \(pad(target, 10)) | \(pad(readme, 10)) |")
    }

    /// The README's `make bench` table: rows `| figure | value | target | ... |`, by figure.
    static func publishedFigures(_ path: String) -> [String: String] {
        guard let f = fopen(path, "r") else { return [:] }
        defer { fclose(f) }
        var lines: [String] = []
        var buf = [CChar](repeating: 0, count: 1024)
        while fgets(&buf, 1024, f) != nil { lines.append(String(cString: buf)) }
        return publishedFigures(lines: lines)
    }

    /// The first row of each name wins: later tables (the peers') do not replace it.
    static func publishedFigures(lines: [String]) -> [String: String] {
        var figures: [String: String] = [:]
        for line in lines {
            let cols = line.split(separator: "|").map { $0.trimmingSpaces() }
            guard cols.count >= 3, !cols[0].isEmpty, cols[0] != "figure", !cols[0].hasPrefix("---") else { continue }
            if figures[cols[0]] == nil { figures[cols[0]] = cols[1] }
        }
        return figures
    }

    /// The leading number of "0.30", "5.9 %", "1.8x".
    static func number(_ s: String) -> Double? {
        Double(s.prefix { $0.isNumber || $0 == "." || $0 == "-" })
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        var s = self
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\n" || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
