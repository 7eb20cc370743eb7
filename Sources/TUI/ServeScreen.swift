import Explorer

/// `serve` on a terminal: the served peripheral, its subscriptions, the centrals that asked
/// for something, and the latest requests, newest first.
public enum ServeScreen {
    public static let hints = "q quit (unregisters) · stdin: notify UUID VALUE"

    static func describe(_ a: ServeState.Advertising) -> (String, Style) {
        switch a {
        case .registering: return ("registering…", .warning)
        case let .advertising(adapter): return ("advertising on \(adapter)", .good)
        case let .failed(m): return ("failed: \(m)", .error)
        case .bluezGone: return ("bluetoothd is gone: will register again when it returns", .warning)
        case .stopped: return ("stopped", .dimmed)
        }
    }

    public static func render(_ s: ServeState, width: Int, height: Int) -> CellGrid {
        var g = CellGrid(width: width, height: height)
        guard width >= 40, height >= 10 else {
            g.put("Terminal too small", x: 0, y: 0, style: .title)
            return g
        }
        g.clear(x: 0, y: 0, width: width, height: 1, style: .bar)
        var x = g.put(" bleexplr ", x: 0, y: 0, style: Style(bold: true, reverse: true))
        x += g.put("│ serving ", x: x, y: 0, style: .bar)
        g.put(s.name ?? "(no name)", x: x, y: 0, style: Style(bold: true, reverse: true), maxWidth: width - x - 1)

        var y = 2
        let (state, style) = describe(s.advertising)
        g.put("Advertising  ", x: 1, y: y, style: .title)
        g.put(state, x: 14, y: y, style: style, maxWidth: width - 15)
        y += 1
        g.put("From         ", x: 1, y: y, style: .title)
        g.put(s.source, x: 14, y: y, maxWidth: width - 15)
        y += 1
        let centrals = s.centrals.keys.sorted()
        g.put("Centrals     ", x: 1, y: y, style: .title)
        g.put(centrals.isEmpty ? "none has asked yet" : centrals.joined(separator: ", "), x: 14, y: y,
              style: centrals.isEmpty ? .dimmed : .plain, maxWidth: width - 15)
        y += 2
        g.put("Characteristics", x: 1, y: y, style: .title)
        y += 1
        for svc in s.services {
            guard y < height / 2 + 2 else { break }
            g.put(svc.uuid.description + "  " + (AssignedNumbers.serviceName(svc.uuid) ?? ""), x: 2, y: y, style: .accent,
                  maxWidth: width - 3)
            y += 1
            for c in svc.characteristics where y < height / 2 + 2 {
                let sub = s.subscriptions.contains(c.uuid) ? "  ● subscribed" : ""
                g.put("\(c.uuid)  \(AssignedNumbers.characteristicName(c.uuid) ?? "")  [\(c.flags.joined(separator: " "))]\(sub)",
                      x: 4, y: y, maxWidth: width - 5)
                y += 1
            }
        }
        if let st = s.stream { g.put("Stream  " + st, x: 1, y: y, style: .accent, maxWidth: width - 2); y += 1 }
        if let r = s.received { g.put("Receive  " + r, x: 1, y: y, style: .accent, maxWidth: width - 2); y += 1 }
        y += 1
        g.put("Latest requests", x: 1, y: y, style: .title)
        y += 1
        for e in s.log.reversed() where y < height - 2 {
            var line = e.at.clockTime + "  " + e.what
            if let u = e.uuid { line += "  " + u.description }
            if let c = e.central { line += "  by " + c }
            if let b = e.bytes { line += "  " + hex(b.prefix(24)) + (b.count > 24 ? " …" : "") }
            g.put(line, x: 2, y: y, maxWidth: width - 3)
            y += 1
        }
        g.put(hints, x: 0, y: height - 2, style: .dimmed, maxWidth: width)
        g.clear(x: 0, y: height - 1, width: width, height: 1, style: .bar)
        g.put(" \(s.subscriptions.count) subscription\(s.subscriptions.count == 1 ? "" : "s") · \(s.centrals.count) central\(s.centrals.count == 1 ? "" : "s") · \(s.log.count) events",
              x: 0, y: height - 1, style: .bar, maxWidth: width - 1)
        return g
    }
}
