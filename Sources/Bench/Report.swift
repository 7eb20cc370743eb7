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

    init(readme path: String = "README.md") {
        published = Self.publishedFigures(path)
        print("| figure | value | target | README |")
        print("|---|---|---|---|")
    }

    /// A figure where lower is better, with its unit-free value and an optional upper target.
    func figure(_ name: String, _ value: Double, digits: Int = 2, atMost target: Double? = nil, suffix: String = "") {
        let text = formatFixed(value, digits) + suffix
        let readme = published[name] ?? "—"
        line(name, text, target.map { "<= " + formatFixed($0, digits) } ?? "", readme)
        if let t = target, value > t { problems.append("\(name): \(text), target <= \(formatFixed(t, digits))") }
        if let old = Self.number(readme), old > 0, value > old * Self.regressionFactor {
            problems.append("\(name): \(text), the README has \(readme) (more than \(formatFixed(Self.regressionFactor, 1))x worse)")
        }
    }

    /// A ratio of two figures of this run: the machine's noise cancels.
    func ratio(_ name: String, _ value: Double, atMost target: Double) {
        figure(name, value, digits: 2, atMost: target, suffix: "x")
    }

    /// A figure printed as is (counts, sizes), with its target in words.
    func text(_ name: String, _ value: String, _ target: String = "") {
        line(name, value, target, published[name] ?? "—")
    }

    func finish() {
        if problems.isEmpty { print("\nevery target met, nothing worse than the README") }
        for p in problems { print("REGRESSED: " + p) }
    }

    private func line(_ what: String, _ value: String, _ target: String, _ readme: String) {
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        print("| \(pad(what, 66)) | \(pad(value, 14)) | \(pad(target, 10)) | \(pad(readme, 10)) |")
    }

    /// The README's `make bench` table: rows `| figure | value | target | ... |`, by figure.
    static func publishedFigures(_ path: String) -> [String: String] {
        guard let f = fopen(path, "r") else { return [:] }
        defer { fclose(f) }
        var figures: [String: String] = [:]
        var buf = [CChar](repeating: 0, count: 1024)
        while fgets(&buf, 1024, f) != nil {
            let cols = String(cString: buf).split(separator: "|").map { $0.trimmingSpaces() }
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
