import Explorer

/// The frame around every screen: breadcrumb on top, message line and status bar below.
enum Chrome {
    static func breadcrumb(_ s: AppState) -> [String] {
        var parts = ["Scan"]
        switch s.route {
        case .scan: break
        case let .details(pid):
            parts.append((s.peripherals[pid]?.displayName ?? pid.rawValue) + " (advertisement)")
        case let .device(pid):
            parts.append(s.peripherals[pid]?.displayName ?? pid.rawValue)
        case let .characteristic(pid, cid):
            let p = s.peripherals[pid]
            parts.append(p?.displayName ?? pid.rawValue)
            if let (_, c) = p?.characteristic(cid) { parts.append(Names.characteristic(c, s)) }
        case .regions:
            parts.append("Regions")
        }
        return parts
    }

    static func drawTop(_ s: AppState, into g: inout CellGrid) {
        g.clear(x: 0, y: 0, width: g.width, height: 1, style: .bar)
        var x = g.put(" bleexplr ", x: 0, y: 0, style: Style(bold: true, reverse: true))
        x += g.put("│ ", x: x, y: 0, style: .bar)
        let parts = breadcrumb(s)
        for (i, part) in parts.enumerated() {
            if i > 0 { x += g.put(" › ", x: x, y: 0, style: .bar) }
            x += g.put(part, x: x, y: 0, style: Style(bold: i == parts.count - 1, reverse: true), maxWidth: 40)
        }
        drawLinks(s, after: x, into: &g)
    }

    /// The links held, numbered for `1`–`9`, after the breadcrumb: shown while one of them
    /// is not the screen's own (a single link on its own screen says nothing new). The
    /// link on screen is bold; ● ready, ◐ on its way, ○ down (its screen kept). Names are
    /// cut, then left out, then the last links give way to "+N"; the scan list's filters
    /// and order, on the right, keep their room.
    static func drawLinks(_ s: AppState, after used: Int, into g: inout CellGrid) {
        let here = s.route.linkScreen
        guard s.links.order.contains(where: { $0 != here }) else { return }
        let reserved = s.route == .scan ? ScanScreen.viewWidth(s, g.width) + 1 : 1
        let room = g.width - used - 3 - reserved
        typealias Item = (label: String, mark: String, id: PeripheralID)
        func items(_ nameWidth: Int) -> [Item] {
            s.links.order.enumerated().map { i, id in
                let name = s.peripherals[id]?.displayName ?? id.rawValue
                let cut = nameWidth == 0 ? "" : (CellGrid.columns(of: name) > nameWidth ? fit(name, nameWidth) : name) + " "
                return ("\(i + 1) " + cut, mark(s, id), id)
            }
        }
        func width(_ list: [Item], more: Int) -> Int {
            list.reduce(0) { $0 + CellGrid.columns(of: $1.label) + 3 } - 2 + (more > 0 ? 3 + String(more).count : 0)
        }
        var shown = items(14), more = 0
        if width(shown, more: 0) > room { shown = items(8) }
        while shown.count > 1, width(shown, more: more) > room { shown.removeLast(); more += 1 }
        if width(shown, more: more) > room {
            shown = items(0); more = 0
            while !shown.isEmpty, width(shown, more: more) > room { shown.removeLast(); more += 1 }
        }
        guard !shown.isEmpty else { return }
        var x = used + 3
        for (i, item) in shown.enumerated() {
            if i > 0 { x += g.put("  ", x: x, y: 0, style: .bar) }
            x += g.put(item.label, x: x, y: 0, style: Style(bold: item.id == here, reverse: true))
            let color: Color = item.mark == "●" ? .green : item.mark == "◐" ? .cyan : .yellow
            x += g.put(item.mark, x: x, y: 0, style: Style(color: color, bold: item.id == here, reverse: true))
        }
        if more > 0 { g.put("  +\(more)", x: x, y: 0, style: .bar) }
    }

    static func mark(_ s: AppState, _ id: PeripheralID) -> String {
        switch s.peripherals[id]?.connection ?? .disconnected {
        case .connected: return "●"
        case .connecting, .resolvingServices, .readingDescriptors, .disconnecting: return "◐"
        case .disconnected, .failed: return "○"
        }
    }

    static func drawBottom(_ s: AppState, hints: String, into g: inout CellGrid) {
        let msgY = g.height - 2, barY = g.height - 1
        g.clear(x: 0, y: msgY, width: g.width, height: 1)
        if let input = s.input {
            let prompt: String
            switch input.purpose {
            case .filter: prompt = "/ filter: "
            case let .write(pid, cid):
                let type = s.peripherals[pid]?.characteristic(cid).map { s.writeType($0.1) } ?? .request
                prompt = (type == .request ? "write" : type.title) + " (hex 01 ff, or \"text\"): "
            case let .writeDescriptor(_, did): prompt = "write descriptor \(did.handleText ?? "") (hex 01 ff, or \"text\"): "
            case .hook: prompt = "hook (exec CMD · post URL · off): "
            case .alias: prompt = "alias (empty: none): "
            case let .uuidName(uuid): prompt = "name for \(uuid) (empty: none): "
            }
            var x = g.put(prompt, x: 0, y: msgY, style: .accent)
            x = drawLine(input, x: x, y: msgY, room: g.width - x - 1, into: &g)
            if case let .hook(_, cid) = input.purpose, input.text.isEmpty, let current = s.attachedHooks[cid] {
                x += g.put("  now: " + current.typed, x: x, y: msgY, style: .dimmed)
            }
            if let a = s.alert, a.level == .error {
                let text = "  " + a.message
                g.put(text, x: max(x + 2, g.width - CellGrid.columns(of: text)), y: msgY, style: .error)
            }
        } else if let a = s.alert, !s.log.shown {   // the log lists it; its keys matter more
            let style: Style = a.level == .error ? .error : a.level == .warning ? .warning : .good
            g.put(a.message, x: 0, y: msgY, style: style)
        } else {
            g.put(wholeItems(hints, g.width), x: 0, y: msgY, style: .dimmed)
        }

        g.clear(x: 0, y: barY, width: g.width, height: 1, style: .bar)
        var items: [String] = []
        if let r = s.replay { items.append(r.summary) }
        switch s.adapter.power {
        case .absent: items.append("no adapter")
        case .poweredOff: items.append("\(s.adapter.name) powered off (P powers it on)")
        case .on: items.append("\(s.adapter.name) on")
        }
        items.append(s.adapter.discovering ? "scanning" : "scan off")
        if case let .on(path) = s.recording { items.append("● REC \(path)") }
        if !s.regionWatch.regions.isEmpty {
            let inside = s.regionWatch.regions.filter(\.inside).map(\.region.name)
            items.append(inside.isEmpty ? "⌂ outside" : "⌂ " + inside.joined(separator: ","))
        }
        if !s.attachedHooks.isEmpty {
            let fired = s.hookActivity.values.reduce(0) { $0 + $1.fired }
            let problems = s.hookActivity.values.reduce(0) { $0 + $1.problems }
            items.append("↯\(fired) fired" + (problems > 0 ? ", \(problems) failed" : ""))
        }
        let devices = "\(s.peripherals.count) device\(s.peripherals.count == 1 ? "" : "s")"
        // The count is never cut: the rest gives way to it, and everything to "? help"
        // (the bottom-right cell cannot be written on most terminals: it stops one short).
        let count = " · " + (s.scan.isFiltering ? "\(s.peripherals.shown.count) of \(devices)" : devices)
        let room = g.width - 9
        let left = " " + items.joined(separator: " · ")
        var x = g.put(fit(left, min(CellGrid.columns(of: left), max(0, room - CellGrid.columns(of: count)))), x: 0, y: barY, style: .bar)
        x += g.put(count, x: x, y: barY, style: .bar, maxWidth: max(0, room - x))
        if let err = s.lastError, room - x > 6 {
            g.put("  ✗ " + err, x: x, y: barY, style: Style(color: .red, reverse: true), maxWidth: room - x - 1)
        }
        g.put("? help", x: g.width - 7, y: barY, style: .bar)
    }

    /// The line above the message line while the link of the screen's peripheral is lost
    /// (`LinkLoss`): drawn, and true, so the screen keeps that row for it.
    @discardableResult
    static func drawLinkLoss(_ s: AppState, _ pid: PeripheralID, into g: inout CellGrid) -> Bool {
        guard let loss = s.linkLoss[pid], let p = s.peripherals[pid] else { return false }
        var text = loss.banner(p.connection, canReconnect: s.replay == nil)
        guard !text.isEmpty else { return false }
        // Too wide (60 columns, a long reason): the reason gives way, never the way back.
        let over = CellGrid.columns(of: text) + 2 - g.width
        if over > 0 {
            var cut = loss
            cut.reason = String(fit(loss.reason, max(4, CellGrid.columns(of: loss.reason) - over)).reversed().drop { $0 == " " }.reversed())
            text = cut.banner(p.connection, canReconnect: s.replay == nil)
        }
        let y = g.height - 3
        g.clear(x: 0, y: y, width: g.width, height: 1)
        let x = g.put(" " + text, x: 0, y: y, style: p.connection.isLinkUp ? .accent : .warning, maxWidth: g.width - 1)
        let when = "  since " + loss.at.clockTime
        if !p.connection.isLinkUp, x + CellGrid.columns(of: when) < g.width { g.put(when, x: x, y: y, style: .dimmed) }
        return true
    }

    /// The line's text with the cursor (▏) before the character it is on; a line wider
    /// than `room` shows the part around the cursor, cut ends marked with …. Returns the
    /// column after it.
    static func drawLine(_ input: InputLine, x: Int, y: Int, room: Int, into g: inout CellGrid) -> Int {
        let chars = Array(input.text)
        let cursor = min(input.cursor, chars.count)
        func width(_ cs: ArraySlice<Character>) -> Int { cs.reduce(0) { $0 + CellGrid.columns(of: String($1)) } }
        var start = 0, end = chars.count
        if width(chars[...]) + 1 > room, room > 4 {
            // The cursor a quarter from the right end, or at the end; the rest fills the room.
            start = cursor
            while start > 0, width(chars[(start - 1)..<cursor]) + 2 <= room * 3 / 4 { start -= 1 }
            end = cursor
            while end < chars.count, width(chars[start..<(end + 1)]) + 3 <= room { end += 1 }
            while start > 0, width(chars[(start - 1)..<end]) + 3 <= room { start -= 1 }
        }
        var cx = x
        if start > 0 { cx += g.put("…", x: cx, y: y, style: .dimmed) }
        cx += g.put(String(chars[start..<cursor]), x: cx, y: y)
        cx += g.put("▏", x: cx, y: y, style: .accent)
        cx += g.put(String(chars[cursor..<end]), x: cx, y: y)
        if end < chars.count { cx += g.put("…", x: cx, y: y, style: .dimmed) }
        return cx
    }

    /// As many of the " · "-separated items as fit in `width` columns, whole.
    static func wholeItems(_ line: String, _ width: Int) -> String {
        guard CellGrid.columns(of: line) > width else { return line }
        var out = ""
        for item in line.split(separator: " · ").map(String.init) {
            let next = out.isEmpty ? item : out + " · " + item
            if CellGrid.columns(of: next) > width { break }
            out = next
        }
        return out
    }
}

/// Names for display: the standard name or the UUID.
enum Names {
    static func service(_ u: BLEUUID) -> String { AssignedNumbers.serviceName(u) ?? "Unknown Service" }
    static func characteristic(_ u: BLEUUID) -> String { AssignedNumbers.characteristicName(u) ?? "Unknown Characteristic" }

    /// The standard name, with the device's own user description (0x2901) when it gave one.
    static func characteristic(_ c: GATTCharacteristic, _ s: AppState) -> String {
        guard let ud = s.userDescription(c) else { return characteristic(c.uuid) }
        guard let name = AssignedNumbers.characteristicName(c.uuid) else { return "“\(ud)”" }
        return "\(name) “\(ud)”"
    }
}

/// Left-pads or cuts to a width (in columns).
func fit(_ s: String, _ width: Int) -> String {
    let cols = CellGrid.columns(of: s)
    if cols <= width { return cols == width ? s : s + String(repeating: " ", count: width - cols) }
    if cols == s.utf8.count, width > 0 {   // only ASCII: a byte a column
        return String(decoding: s.utf8.prefix(width - 1), as: UTF8.self) + "…"
    }
    var out = "", used = 0
    for ch in s {
        let w = CellGrid.columns(of: String(ch))
        if used + w > width - 1 { break }
        out.append(ch); used += w
    }
    return out + "…" + String(repeating: " ", count: max(0, width - used - 1))
}

func rightAligned(_ s: String, _ width: Int) -> String {
    let cols = CellGrid.columns(of: s)
    return cols >= width ? s : String(repeating: " ", count: width - cols) + s
}

/// "3s", "2m", "1h"
func age(_ seconds: Double) -> String {
    let s = max(0, Int(seconds))
    if s < 60 { return "\(s)s" }
    if s < 3600 { return "\(s / 60)m" }
    return "\(s / 3600)h"
}

/// A scroll bar in column `x` beside `visible` rows from `y` (nothing when all fit): a
/// dimmed track with the shown part as a thumb, so the column titles keep their row.
func scrollBar(x: Int, y: Int, visible: Int, first: Int, count: Int, into g: inout CellGrid) {
    guard count > visible, visible > 0 else { return }
    let thumb = max(1, visible * visible / count)
    // At the bottom only at the end of the list, at the top only at its start.
    let start = first + visible >= count ? visible - thumb : min(visible - thumb - 1, (first * visible + count - 1) / count)
    for i in 0..<visible {
        let on = i >= start && i < start + thumb
        g.put(on ? "█" : "│", x: x, y: y + i, style: on ? .accent : .dimmed)
    }
}

/// First row to show so that `index` stays visible, keeping it near the middle.
func scrollTop(index: Int, count: Int, visible: Int) -> Int {
    guard count > visible, visible > 0 else { return 0 }
    return max(0, min(count - visible, index - visible / 2))
}

/// Values as eight-level bars between `lo` and `hi` (clamped; flat when lo == hi).
/// Used for RSSI history (-100...-30 dBm) and numeric characteristic values.
func sparkline(_ values: [Double], lo: Double, hi: Double) -> String {
    let bars = Array("▁▂▃▄▅▆▇█")
    return String(values.map { v in
        guard hi > lo else { return bars[3] }
        return bars[max(0, min(7, Int(((v - lo) / (hi - lo) * 7).rounded())))]
    })
}
