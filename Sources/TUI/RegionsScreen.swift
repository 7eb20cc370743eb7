import Explorer

/// iBeacon regions (`b`): each region inside or outside and since when, the beacons
/// heard in it with their RSSI and whether they hold it, then the latest transitions.
enum RegionsScreen {
    static let hintsSuffix = " · regions come from --region NAME=UUID[:MAJOR[:MINOR]]"

    static func draw(_ s: AppState, into g: inout CellGrid) {
        let p = s.regionWatch, cfg = p.config
        g.put("iBeacon regions", x: 1, y: 1, style: .title)
        let rule = "enter at ≥ \(cfg.enterRSSI) dBm · leave when nothing ≥ \(cfg.exitRSSI) dBm for \(formatFixed(cfg.exitAfter, 0)) s"
        g.put(rule, x: max(18, g.width - CellGrid.columns(of: rule) - 1), y: 1, style: .dimmed, maxWidth: g.width - 19)
        guard !p.regions.isEmpty else {
            g.put("No regions. Give some with --region NAME=UUID[:MAJOR[:MINOR]] (repeatable);", x: 1, y: 3, style: .dimmed)
            g.put("--enter-rssi, --exit-rssi and --exit-after set the thresholds.", x: 1, y: 4, style: .dimmed)
            return
        }
        let bottom = g.height - 2
        // Keep room for a few transitions below the regions.
        let regionsBottom = p.log.isEmpty ? bottom : max(5, bottom - min(6, p.log.count + 2))
        var y = 3
        for r in p.regions {
            guard y < regionsBottom else { break }
            drawRegion(r, s, y: &y, bottom: regionsBottom, into: &g)
            y += 1
        }
        guard !p.log.isEmpty, y < bottom - 1 else { return }
        g.put("TRANSITIONS", x: 1, y: y, style: Style(bold: true, dim: true))
        g.put("newest first", x: 13, y: y, style: .dimmed)
        y += 1
        for t in p.log.reversed() {
            guard y < bottom else { break }
            var x = g.put(t.at.clockTime, x: 1, y: y, style: .dimmed)
            x += g.put("  " + fit(t.kind == .enter ? "enter" : "exit", 6), x: 1 + x, y: y, style: t.kind == .enter ? .good : .warning)
            x += g.put("  " + fit(t.region, 16), x: 1 + x, y: y)
            if let b = t.beacon {
                g.put("  \(b.address)  \(b.major)/\(b.minor)  " + (b.rssi.map { "\($0) dBm" } ?? "RSSI n/a"), x: 1 + x, y: y, style: .dimmed,
                      maxWidth: max(0, g.width - x - 3))
            }
            y += 1
        }
    }

    static func drawRegion(_ r: RegionState, _ s: AppState, y: inout Int, bottom: Int, into g: inout CellGrid) {
        let cfg = s.regionWatch.config
        var x = g.put(r.inside ? "● " : "○ ", x: 1, y: y, style: r.inside ? .good : .dimmed)
        x += g.put(r.region.name, x: 1 + x, y: y, style: .title, maxWidth: 32)
        var state = r.inside ? "INSIDE" : "outside"
        if let since = r.since { state += " since \(since.clockTime) (\(age(s.now - since)))" }
        g.put("  " + state, x: 1 + x, y: y, style: r.inside ? .good : .plain, maxWidth: max(0, g.width - x - 3))
        y += 1
        guard y < bottom else { return }
        let reg = r.region
        g.put(reg.uuid.canonical.uppercased() + "  major " + (reg.major.map(String.init) ?? "any")
              + " · minor " + (reg.minor.map(String.init) ?? "any"), x: 5, y: y, style: .accent, maxWidth: g.width - 6)
        y += 1
        if r.inside, let held = r.heldAt {
            let left = cfg.exitAfter - (s.now - held)
            if s.now - held >= 1, left > 0, y < bottom {
                g.put("leaving in \(formatFixed(left.rounded(.up), 0)) s unless a beacon is heard at ≥ \(cfg.exitRSSI) dBm",
                      x: 5, y: y, style: .warning, maxWidth: g.width - 6)
                y += 1
            }
        }
        if r.beacons.isEmpty, y < bottom {
            g.put("no beacon of this region heard", x: 5, y: y, style: .dimmed)
            y += 1
        }
        for b in r.beacons.sorted(by: { ($0.rssi ?? -999) > ($1.rssi ?? -999) }) {
            guard y < bottom else { return }
            let why = b.rssi == nil ? "no RSSI: distance unknown"
                : b.rssi! < cfg.exitRSSI ? "below \(cfg.exitRSSI) dBm" : s.now - b.at >= cfg.exitAfter ? "not heard lately" : "holds it"
            var bx = g.put(b.address, x: 5, y: y)
            bx += g.put("  " + fit("\(b.major)/\(b.minor)", 11), x: 5 + bx, y: y, style: .dimmed)
            bx += g.put("  " + rightAligned(b.rssi.map { "\($0) dBm" } ?? "n/a", 8), x: 5 + bx, y: y,
                          style: (b.rssi ?? -999) >= cfg.enterRSSI ? .good : .plain)
            bx += g.put("  " + fit(age(s.now - b.at) + " ago", 8), x: 5 + bx, y: y, style: .dimmed)
            g.put("  " + why, x: 5 + bx, y: y, style: why == "holds it" ? .good : .dimmed, maxWidth: max(0, g.width - bx - 7))
            y += 1
        }
    }
}
