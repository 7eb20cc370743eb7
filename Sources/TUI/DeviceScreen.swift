import Explorer

/// A connected peripheral: its services and characteristics as a tree.
enum DeviceScreen {
    static func draw(_ s: AppState, _ pid: PeripheralID, into g: inout CellGrid) {
        guard let p = s.peripherals[pid] else { return }
        var x = g.put(p.displayName, x: 1, y: 1, style: .title, maxWidth: 32)
        x += g.put("  " + p.address, x: x + 1, y: 1)
        let connStyle: Style = p.connection == .connected ? .good : .accent
        x += g.put("  ● " + p.connection.label, x: x + 1, y: 1, style: connStyle)
        var facts: [String] = []
        if let r = p.rssi { facts.append("RSSI \(r) dBm") }
        if let m = p.mtu { facts.append("MTU \(m)") }
        facts.append(p.bond.summary.isEmpty ? "not paired" : p.bond.summary)
        if let k = p.bond.addressKind(p.address) { facts.append(k.text) }
        // Whole facts, as many as fit: a cut "MTU" reads as a fact of its own.
        x += 1
        for f in facts where x + 2 + CellGrid.columns(of: f) < g.width {
            x += g.put("  " + f, x: x, y: 1, style: .dimmed)
        }

        let rows = DeviceTree.rows(p, collapsed: s.device.collapsed)
        guard !rows.isEmpty else {
            Chrome.drawLinkLoss(s, pid, into: &g)
            g.put(p.services == nil ? "Resolving services…" : "No services.", x: 2, y: 3, style: .dimmed)
            return
        }
        let lost = Chrome.drawLinkLoss(s, pid, into: &g)
        let top = 3, visible = max(0, g.height - 5 - (lost ? 1 : 0))
        let cursor = rows.firstIndex { $0.id == s.device.cursor } ?? 0
        let first = scrollTop(index: cursor, count: rows.count, visible: visible)
        let nameW = max(20, min(40, g.width - 44))
        // 128-bit UUIDs whole when there is room for them and the rest of the row.
        let longUUIDs = (p.services ?? []).flatMap { [$0.uuid] + $0.characteristics.map(\.uuid) }
            .map(\.description).filter { $0.count == 36 }
        let uuidRoom = g.width - (nameW + 6) - 2 - 24 >= 36 ? 36 : 20
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
                let uuid = Self.uuidText(c.uuid.description, among: longUUIDs, room: uuidRoom)
                g.put(uuid, x: nameW + 6, y: y, style: .accent)
                var cx = nameW + 6 + max(4, CellGrid.columns(of: uuid)) + 2
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

    /// A UUID in `room` columns. A 128-bit one that does not fit keeps its first group, the
    /// group where it differs from the device's other 128-bit UUIDs (vendors number their
    /// characteristics inside one base) and its end: `B1E5E1A0-0002…C0FFEE`.
    static func uuidText(_ u: String, among others: [String], room: Int) -> String {
        guard u.count == 36, room < 36 else { return u }
        let chars = Array(u)
        let others = others.filter { $0 != u && $0.count == 36 }.map(Array.init)
        let head = String(chars[0..<8]), tail = String(chars[30..<36])
        // The first group (or two) that, with the head and the tail, tells it from every other one.
        func separates(_ groups: [Range<Int>]) -> Bool {
            others.allSatisfy { o in ([0..<8, 30..<36] + groups).contains { r in r.contains { o[$0] != chars[$0] } } }
        }
        let middle: [Range<Int>] = [9..<13, 14..<18, 19..<23]
        let choices = middle.map { [$0] } + [[middle[0], middle[1]], [middle[0], middle[2]], [middle[1], middle[2]]]
        guard let shown = choices.first(where: separates) ?? (separates([24..<30]) ? nil : [middle[0]]) else {
            return head + "…" + String(chars[24..<36])
        }
        var text = head, end = 8
        for g in shown {
            text += (g.lowerBound == end + 1 ? "-" : "…") + String(chars[g])
            end = g.upperBound
        }
        return text + "…" + tail
    }
}
