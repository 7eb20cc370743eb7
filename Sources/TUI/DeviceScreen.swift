import Explorer

/// A connected peripheral: its services and characteristics as a tree.
enum DeviceScreen {
    static let hints = Keymap.hints(.device)

    static func draw(_ s: AppState, _ pid: PeripheralID, into g: inout CellGrid) {
        guard let p = s.peripherals[pid] else { return }
        var x = g.put(p.displayName, x: 1, y: 1, style: .title, maxWidth: 32)
        x += g.put("  " + p.address, x: x + 1, y: 1)
        let connStyle: Style = p.connection == .connected ? .good : .accent
        x += g.put("  ● " + p.connection.label, x: x + 1, y: 1, style: connStyle)
        var facts: [String] = []
        if let r = p.rssi { facts.append("RSSI \(r) dBm") }
        if let m = p.mtu { facts.append("MTU \(m)") }
        if let t = p.bond.addressType { facts.append(t) }
        facts.append(p.bond.summary.isEmpty ? "not paired" : p.bond.summary)
        g.put("  " + facts.joined(separator: "  "), x: x + 1, y: 1, style: .dimmed)

        let rows = DeviceTree.rows(p, collapsed: s.device.collapsed)
        guard !rows.isEmpty else {
            g.put(p.services == nil ? "Resolving services…" : "No services.", x: 2, y: 3, style: .dimmed)
            return
        }
        let top = 3, visible = max(0, g.height - 5)
        let cursor = rows.firstIndex { $0.id == s.device.cursor } ?? 0
        let first = scrollTop(index: cursor, count: rows.count, visible: visible)
        let nameW = max(20, min(40, g.width - 44))
        for (i, row) in rows[first..<min(rows.count, first + visible)].enumerated() {
            let y = top + i
            switch row {
            case let .service(svc):
                let fold = s.device.collapsed.contains(svc.id) ? "▸ " : "▾ "
                g.put(fold + fit(Names.service(svc.uuid), nameW + 2), x: 1, y: y, style: .title)
                g.put(svc.uuid.description, x: nameW + 6, y: y, style: .accent)
                if !svc.isPrimary { g.put("secondary", x: g.width - 12, y: y, style: .dimmed) }
            case let .characteristic(_, c):
                g.put(fit(Names.characteristic(c, s), nameW), x: 5, y: y)
                g.put(c.uuid.description, x: nameW + 6, y: y, style: .accent, maxWidth: 12)
                let uuidW = max(4, CellGrid.columns(of: c.uuid.description))
                var cx = nameW + 6 + min(uuidW, 12) + 2
                cx += g.put(c.properties.short, x: cx, y: y, style: .dimmed)
                if s.subscriptions.contains(c.id) { cx += g.put("  ● live", x: cx, y: y, style: .good) }
                if let v = s.values[c.id]?.latest {
                    let text = s.decoded(c, v.bytes) ?? hex(v.bytes)
                    g.put("  " + text, x: cx, y: y, maxWidth: max(0, g.width - cx - 1))
                }
            }
            if first + i == cursor { g.paint(y: y, x: 1, width: g.width - 2, style: Style(reverse: true)) }
        }
    }
}
