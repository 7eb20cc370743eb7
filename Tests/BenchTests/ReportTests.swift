import Testing
@testable import bleexplr_bench

/// The bench's table against the README's: every row finds its published figure, the
/// indented ones (a ratio under the figures it divides) included, and is checked against it.
@MainActor @Suite("make bench's report")
struct ReportTests {
    static let readme = [
        "| figure | value | target |\n",
        "|---|---|---|\n",
        "| scan list render, 100 peripherals, 120x40 (ms/frame) | 0.333 | |\n",
        "| a frame with 10,000 peripherals / a frame with 100 | 1.13x | <= 3.00 |\n",
        "| q to exit, 1,000 devices advertising (ms) | 3.2 | <= 100.0 |\n",
        "\n",
        "| consumer | CPU per signal | devices |\n",
        "| q to exit, 1,000 devices advertising (ms) | 99 | later tables do not count |\n",
    ]

    @Test func theTableIsReadByTrimmedName() {
        let figures = Report.publishedFigures(lines: Self.readme)
        #expect(figures["a frame with 10,000 peripherals / a frame with 100"] == "1.13x")
        #expect(figures["q to exit, 1,000 devices advertising (ms)"] == "3.2")
        #expect(figures["figure"] == nil)
    }

    @Test func anIndentedRowFindsItsPublishedFigure() {
        var printed: [String] = []
        let report = Report(published: Report.publishedFigures(lines: Self.readme)) { printed.append($0) }
        #expect(report.publishedFigure("  a frame with 10,000 peripherals / a frame with 100") == "1.13x")
        report.ratio("  a frame with 10,000 peripherals / a frame with 100", 1.2, atMost: 3)
        #expect(printed.last?.hasPrefix("|   a frame with 10,000") == true)   // the table keeps the indent
        #expect(printed.last?.contains("1.13x") == true)
        #expect(report.regressions.isEmpty)
    }

    @Test func anIndentedRowIsCheckedAgainstTheREADME() {
        let report = Report(published: Report.publishedFigures(lines: Self.readme)) { _ in }
        // Under its target (3.00), but more than 1.5 times the README's 1.13x.
        report.ratio("  a frame with 10,000 peripherals / a frame with 100", 2.5, atMost: 3)
        #expect(report.regressions == [
            "a frame with 10,000 peripherals / a frame with 100: 2.50x, the README has 1.13x (more than 1.5x worse)",
        ])
    }

    /// A figure counted in clock ticks (the idle CPU) is not worse than the README's while
    /// it is within its resolution of it, however large the factor; beyond it, it is.
    @Test func withinItsResolutionAFigureIsNotWorse() {
        let report = Report(published: ["idle (%)": "0.10"]) { _ in }
        report.figure("idle (%)", 0.30, atMost: 1, resolution: 0.2)
        #expect(report.regressions.isEmpty)
        report.figure("idle (%)", 0.40, atMost: 1, resolution: 0.2)
        #expect(report.regressions == ["idle (%): 0.40, the README has 0.10 (more than 1.5x worse)"])
    }

    @Test func aMissedTargetIsARegressionEvenWithoutAPublishedFigure() {
        let report = Report(published: [:]) { _ in }
        report.figure("  a new row (ms)", 120, digits: 1, atMost: 100)
        #expect(report.regressions == ["a new row (ms): 120.0, target <= 100.0"])
        #expect(report.publishedFigure("  a new row (ms)") == nil)
    }
}
