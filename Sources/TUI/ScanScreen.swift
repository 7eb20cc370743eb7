import Explorer

/// Scan list: every peripheral heard, with live RSSI, advertisement summary and age.
enum ScanScreen {
    static func draw(_ s: AppState, into g: inout CellGrid) {
        let shown = s.peripherals.shown
        // The address's kind (public, static, RPA, NRPA) where there is room for it: 80
        // columns and more; the details (i) say it at any width.
        let typeW = g.width >= 80 ? 7 : 0
        let nameW = max(12, min(32, (g.width - 48 - typeW) / 2))
        let summaryX = 2 + nameW + 1 + 17 + 1 + typeW + 10 + 1
        let summaryW = max(0, g.width - summaryX - 5)
        var header = "  " + fit("NAME", nameW) + " " + fit("ADDRESS", 17) + " " + (typeW > 0 ? fit("TYPE", typeW) : "")
            + fit("RSSI", 10) + " "
        // The last column is the age, or the advertising interval when the list is sorted by it.
        let byInterval = s.scan.sort == .interval
        header += byInterval ? fit("ADVERTISEMENT", summaryW - 1) + "EVERY" : fit("ADVERTISEMENT", summaryW) + rightAligned("AGE", 4)
        g.put(header, x: 0, y: 1, style: Style(bold: true, dim: true))

        drawView(s, into: &g)
        let top = 2, visible = max(0, g.height - 4)
        if shown.isEmpty {
            let hidden = !s.peripherals.isEmpty
            let msg = !s.scan.filter.isEmpty
                ? "No device matches \"\(s.scan.filter)\" (Esc clears the filter)."
                : hidden ? "\(s.peripherals.count) devices hidden by c, u or the RSSI floor (+ -)."
                : (s.adapter.discovering ? "Scanning… no devices yet." : "Scan is off: press s to scan.")
            g.put(msg, x: 2, y: top + 1, style: .dimmed)
            if s.scan.filter.isEmpty, s.rssiFilterOn, let started = s.scanStartedAt, s.now - started > 10 {
                // The kernel drops reports with RSSI 127 ("not available") once an RSSI
                // filter is set; some controllers send nothing else.
                g.put("Nothing heard in \(Int(s.now - started)) s with the RSSI filter on. Some controllers report no RSSI,",
                      x: 2, y: top + 3, style: .warning)
                g.put("and the kernel then drops every report: try bleexplr --rssi-floor off.", x: 2, y: top + 4, style: .warning)
            }
            return
        }
        let cursorIndex = ScanQuery.cursorIndex(s) ?? 0
        let first = scrollTop(index: cursorIndex, count: shown.count, visible: visible)
        for (row, id) in zip(first..., shown.ids(in: first..<min(shown.count, first + visible))) {
            guard let p = s.peripherals[id] else { continue }
            let y = top + row - first
            let selected = row == cursorIndex
            let stale = s.isStale(p)
            let base: Style = stale ? .dimmed : .plain
            var x = g.put(selected ? "▶ " : "  ", x: 0, y: y, style: .accent)
            if let name = p.alias ?? p.name, !name.isEmpty {   // the configuration's alias first
                g.put(name, x: x, y: y, style: Style(bold: p.connection != .disconnected, dim: stale), fitting: nameW)
            } else {
                g.put("(unnamed)", x: x, y: y, style: .dimmed)
            }
            x += nameW + 1
            g.put(p.address, x: x, y: y, style: base)
            x += 18
            if typeW > 0 {
                g.put(p.bond.addressKind(p.address)?.short ?? "", x: x, y: y, style: .dimmed)
                x += typeW
            }
            g.put(rssiText(p), x: x, y: y, style: p.rssiStale || stale ? .dimmed : rssiStyle(p.rssi))
            x += 11
            let (summary, sStyle) = self.summary(p, s)
            g.put(summary, x: x, y: y, style: stale ? .dimmed : sStyle, fitting: max(0, summaryW - (byInterval ? 2 : 1)))
            let last = byInterval ? interval(p.rhythm.interval) : stale ? "stale" : age(s.now - p.lastSeen)
            g.put(rightAligned(last, 5), x: g.width - 6, y: y, style: .dimmed)
            if selected { g.paint(y: y, x: 2, width: g.width - 2, style: Style(reverse: true)) }
        }
        // Where the rows are in the list: beside them, not over the column titles.
        scrollBar(x: g.width - 1, y: top, visible: visible, first: first, count: shown.count, into: &g)
    }

    /// On the right of the top bar: every filter that hides devices (text, RSSI floor,
    /// connectable only, named only), and the order, so a filtered list never looks whole.
    static func drawView(_ s: AppState, into g: inout CellGrid) {
        let (shown, sort) = view(s, g.width)
        let x = g.width - CellGrid.columns(of: shown) - CellGrid.columns(of: sort)
        g.put(shown, x: x, y: 0, style: Style(color: .yellow, bold: true, reverse: true))
        g.put(sort, x: x + CellGrid.columns(of: shown), y: 0, style: .bar)
    }

    /// The columns the filters and the order take at the right of the top bar.
    static func viewWidth(_ s: AppState, _ width: Int) -> Int {
        let (shown, sort) = view(s, width)
        return CellGrid.columns(of: shown) + CellGrid.columns(of: sort)
    }

    static func view(_ s: AppState, _ width: Int) -> (filters: String, sort: String) {
        var active: [String] = []
        if !s.scan.filter.isEmpty { active.append("filter \"" + fit(s.scan.filter, min(24, CellGrid.columns(of: s.scan.filter))) + "\"") }
        if let floor = s.scan.minRSSI { active.append("≥\(floor) dBm") }
        let only = (s.scan.connectableOnly ? ["connectable"] : []) + (s.scan.hideUnnamed ? ["named"] : [])
        if !only.isEmpty { active.append("only " + only.joined(separator: ", ")) }
        let filters = active.isEmpty ? "" : " " + active.joined(separator: " · ") + " ·"
        let sort = " sort \(s.scan.sort.rawValue)"
        let room = width - CellGrid.columns(of: Chrome.breadcrumb(s).joined(separator: " › ")) - 12
        return (fit(filters, max(0, min(CellGrid.columns(of: filters), room - CellGrid.columns(of: sort)))), sort)
    }

    /// `102ms`, `1.3s`, `12s`: five columns at most; `—` before a second report.
    static func interval(_ seconds: Double?) -> String {
        guard let v = seconds else { return "—" }
        if v < 1 { return "\(Int((v * 1000).rounded()))ms" }
        if v < 10 { return formatFixed(v, 1) + "s" }
        return v < 1000 ? "\(Int(v.rounded()))s" : ">999s"
    }

    static func rssiText(_ p: Peripheral) -> String {
        guard let r = p.rssi else { return "  ?" }
        return rightAligned(String(r), 4) + " " + bar(r)
    }

    /// Five cells from -100 dBm (empty) to -40 dBm (full).
    static func bar(_ rssi: Int) -> String {
        bars[max(0, min(5, (min(max(rssi, -200), 100) + 100 + 6) / 12))]   // any Int, without overflow
    }

    private static let bars = (0...5).map { String(repeating: "█", count: $0) + String(repeating: "░", count: 5 - $0) }

    static func rssiStyle(_ rssi: Int?) -> Style {
        guard let r = rssi else { return .dimmed }
        return r >= -65 ? .good : r >= -80 ? .warning : Style(color: .red)
    }

    static func summary(_ p: Peripheral, _ s: AppState) -> (String, Style) {
        // A link Pair opened stays up: its row still says it is paired.
        let bond = p.bond.summary.isEmpty ? "" : " · " + p.bond.summary
        switch p.connection {
        case .disconnected: break
        case .connected: return ("● connected" + bond, .good)
        case let .failed(reason): return ("✗ " + reason, .error)
        default: return (p.connection.label + "…" + bond, .accent)
        }
        // Paired, trusted, blocked first: they decide what connecting will do.
        var line = p.bond.summary
        for part in [RowSummaries.shared.summary(p, keys: s.bindKeys), p.connectable ? "" : "non-connectable"] where !part.isEmpty {
            line += line.isEmpty ? part : " · " + part
        }
        return (line, .plain)
    }

    /// `0x004C`
    static func format4(_ k: UInt16) -> String { "0x" + hex4(k).uppercased() }
}
