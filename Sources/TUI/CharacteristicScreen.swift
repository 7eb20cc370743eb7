import Explorer

/// One characteristic: its latest value as hex, text and decoded meaning, and the
/// history of values, newest first, scrolling live.
enum CharacteristicScreen {
    /// "reading…", "writing 3 bytes…", "turning notifications on…", "read waits for pairing…".
    static func underWay(_ op: GATTOperation) -> String {
        let what: String
        switch op.kind {
        case .read: what = "reading"
        case let .write(bytes, _): what = "writing \(bytes.count) byte\(bytes.count == 1 ? "" : "s")"
        case let .subscribe(on): what = "turning \(on ? "on" : "off")"
        case .readDescriptor: what = "reading the descriptor"
        case let .writeDescriptor(bytes): what = "writing \(bytes.count) byte\(bytes.count == 1 ? "" : "s") to the descriptor"
        }
        return op.waitingForPairing ? what + ", waiting for pairing…" : what + "…"
    }

    static func draw(_ s: AppState, _ pid: PeripheralID, _ cid: CharacteristicID, into g: inout CellGrid) {
        guard let p = s.peripherals[pid], let (svc, c) = p.characteristic(cid) else { return }
        var x = g.put(Names.characteristic(c, s), x: 1, y: 1, style: .title)
        g.put("  " + c.uuid.description, x: x + 1, y: 1, style: .accent)
        x = g.put("Service ", x: 1, y: 2, style: .dimmed)
        x += g.put("\(Names.service(svc.uuid)) (\(svc.uuid))", x: 1 + x, y: 2)
        x += g.put("   Properties ", x: 1 + x, y: 2, style: .dimmed)
        x += g.put(c.properties.flagNames.joined(separator: ", "), x: 1 + x, y: 2)
        if c.properties.canSubscribe {
            let on = s.subscriptions.contains(cid)
            x += g.put(c.properties.indicatesOnly ? "   Indicate " : "   Notify ", x: 1 + x, y: 2, style: .dimmed)
            x += g.put(on ? "on" : "off", x: 1 + x, y: 2, style: on ? .good : .plain)
            if on, let mtu = s.notifySockets[cid] { x += g.put(" (socket, MTU \(mtu))", x: 1 + x, y: 2, style: .dimmed) }
        }
        // What was sent and not yet answered: a bluetoothd or device that never answers
        // shows as this, and every key still works meanwhile.
        if let op = s.operations[cid] ?? s.selectedDescriptor(of: c).flatMap({ s.operations[$0.id] }) {
            g.put("   " + underWay(op), x: 1 + x, y: 2, style: .accent, maxWidth: max(0, g.width - x - 2))
        }
        let descriptors = c.descriptors.map { d -> String in descriptor(d, c, s) }
        if !descriptors.isEmpty {
            // Two lines at most: whole descriptors on the first, the rest below.
            x = g.put("Descriptors ", x: 1, y: 3, style: .dimmed)
            let room = g.width - x - 2
            var first: [String] = [], rest: [String] = []
            for d in descriptors {
                let line = (first + [d]).joined(separator: ", ")
                if rest.isEmpty && (first.isEmpty || CellGrid.columns(of: line) <= room) { first.append(d) } else { rest.append(d) }
            }
            g.put(first.joined(separator: ", "), x: 1 + x, y: 3, maxWidth: room)
            if !rest.isEmpty { g.put(rest.joined(separator: ", "), x: 1 + x, y: 4, maxWidth: room) }
        }

        let log = s.values[cid]
        let labelW = 9
        if let latest = log?.latest {
            g.put("Value", x: 1, y: 5, style: .dimmed)
            g.put(hex(latest.bytes), x: 1 + labelW, y: 5, style: .title, maxWidth: g.width - labelW - 2)
            g.put("Text", x: 1, y: 6, style: .dimmed)
            g.put("\"" + ValueDecoder.printableText(latest.bytes) + "\"", x: 1 + labelW, y: 6,
                  maxWidth: g.width - labelW - 2)
            let format = s.valueFormats[cid] ?? .decoded
            if format == .decoded {
                g.put("Decoded", x: 1, y: 7, style: .dimmed)
                g.put(s.decoded(c, latest.bytes) ?? "—", x: 1 + labelW, y: 7, style: .good,
                      maxWidth: g.width - labelW - 2)
            } else {
                g.put("As", x: 1, y: 7, style: .dimmed)
                let x = g.put(format.rawValue + "  ", x: 1 + labelW, y: 7, style: .accent)
                g.put(format.render(latest.bytes, uuid: c.uuid), x: 1 + labelW + x, y: 7, style: .good,
                      maxWidth: g.width - labelW - x - 2)
            }
            let meta = "\(latest.bytes.count) byte\(latest.bytes.count == 1 ? "" : "s"), \(origin(latest, c)) at \(latest.at.clockTime)"
            let mx = g.put(meta, x: 1 + labelW, y: 8, style: .dimmed)
            // A sparkline of the numbers a known characteristic carries (heart rate, battery, ...).
            let numbers = (log?.history ?? []).filter { $0.error == nil }.suffix(48).compactMap { s.number(c, $0.bytes) }
            if numbers.count >= 2 {
                g.put("  " + sparkline(numbers), x: 1 + labelW + mx, y: 8, style: .accent,
                      maxWidth: max(0, g.width - labelW - mx - 3))
            }
        } else {
            // Only what its properties allow.
            var ways: [String] = []
            if c.properties.contains(.read) { ways.append("r reads it") }
            if c.properties.canSubscribe { ways.append("n turns \(c.properties.contains(.notify) ? "notifications" : "indications") on") }
            if c.properties.contains(.write) || c.properties.contains(.writeWithoutResponse) { ways.append("w writes one") }
            g.put(ways.isEmpty ? "No value yet: it can be neither read, written nor subscribed to."
                               : "No value yet: " + ways.joined(separator: ", ") + ".", x: 1, y: 5, style: .dimmed)
        }

        if let target = s.attachedHooks[cid] {
            drawHook(target, s.hookActivity[cid] ?? HookActivity(), y: 9, into: &g)
        }

        let lost = Chrome.drawLinkLoss(s, pid, into: &g)
        if let stream = s.streams[cid] {
            drawMessages(stream, s, bottom: g.height - (lost ? 3 : 2), into: &g)
            return
        }
        let count = log?.count ?? 0, failures = log?.failures ?? 0
        g.put("HISTORY", x: 1, y: 10, style: Style(bold: true, dim: true))
        g.put("\(count) value\(count == 1 ? "" : "s")" + (failures > 0 ? ", \(failures) failed" : "") + ", newest first",
              x: 9, y: 10, style: .dimmed)
        let top = 11, visible = max(0, g.height - 13 - (lost ? 1 : 0))
        let history = log?.history ?? []
        let offset = min(s.historyOffset, max(0, history.count - 1))
        for i in 0..<min(visible, max(0, history.count - offset)) {
            let e = history[history.count - 1 - offset - i]
            let y = top + i
            var hx = g.put(e.at.clockTime, x: 1, y: y, style: .dimmed)
            hx += g.put("  " + fit(origin(e, c), c.properties.indicatesOnly ? 8 : 6), x: 1 + hx, y: y,
                        style: e.origin == .write ? .warning : .accent)
            let hexW = min(36, max(12, g.width / 3))
            if let error = e.error {
                // The bytes a write tried (as short as they are), then why it failed.
                if !e.bytes.isEmpty { hx += g.put("  " + hex(e.bytes), x: 1 + hx, y: y, maxWidth: hexW + 2) }
                g.put("  ✗ failed: " + error, x: 1 + hx, y: y, style: .error, maxWidth: max(0, g.width - hx - 3))
                continue
            }
            hx += g.put("  " + fit(hex(e.bytes), hexW), x: 1 + hx, y: y)
            let format = s.valueFormats[cid] ?? .decoded
            let meaning = format == .decoded
                ? s.decoded(c, e.bytes) ?? "\"" + ValueDecoder.printableText(e.bytes) + "\""
                : format.render(e.bytes, uuid: c.uuid)
            g.put("  " + meaning, x: 1 + hx, y: y, style: .plain, maxWidth: max(0, g.width - hx - 3))
        }
    }

    /// "read", "write", "notify", or "indicate" for a value notified by a characteristic
    /// that indicates (and does not notify).
    static func origin(_ e: ValueEntry, _ c: GATTCharacteristic) -> String {
        e.origin == .notify && c.properties.indicatesOnly ? "indicate" : e.origin.rawValue
    }

    /// The attached hook (`a`) and how its events fared.
    static func drawHook(_ target: HookTarget, _ a: HookActivity, y: Int, into g: inout CellGrid) {
        g.put("Hook", x: 1, y: y, style: .dimmed)
        var x = 9
        let room = max(10, g.width / 2 - x), summary = "↯ " + target.summary
        // Cut with an ellipsis, so a long command does not look like the whole of it.
        x += g.put(CellGrid.columns(of: summary) > room ? fit(summary, room) : summary, x: 1 + x, y: y, style: .accent)
        var info = "  \(a.fired) fired, \(a.delivered) delivered"
        if a.problems > 0 { info += ", \(a.problems) failed" }
        if let last = a.last { info += " · " + last.text }
        let bad = a.last?.isProblem ?? false
        g.put(info, x: 1 + x, y: y, style: bad ? .warning : .dimmed, maxWidth: max(0, g.width - x - 3))
    }

    /// One descriptor: its handle (as nRF Connect shows it), name and what it says, `[in
    /// brackets]` when selected with `D`, `(writable)` when `w` can write it.
    static func descriptor(_ d: GATTDescriptor, _ c: GATTCharacteristic, _ s: AppState) -> String {
        var text = (d.id.handleText.map { $0 + " " } ?? "") + descriptorValue(d, c, s)
        if d.canWrite { text += " (writable)" }
        return s.selectedDescriptor(of: c) == d ? "[" + text + "]" : text
    }

    /// A descriptor's name and value. The CCCD (0x2902) shows whether notifications are
    /// on (BlueZ writes it for us; reading it back would race).
    static func descriptorValue(_ d: GATTDescriptor, _ c: GATTCharacteristic, _ s: AppState) -> String {
        let name = AssignedNumbers.descriptorName(d.uuid) ?? d.uuid.description
        if d.uuid == "2902" {
            let kind = c.properties.contains(.notify) ? "notifications" : "indications"
            return "\(name): \(s.subscriptions.contains(c.id) ? kind + " on" : "off")"
        }
        guard let v = s.descriptorValues[d.id] else { return name }
        switch d.uuid {
        case "2901": return "\(name) “\(ValueDecoder.printableText(v))”"
        case "2904": return PresentationFormat(v).map { "\(name): \($0.summary)" } ?? "\(name) (malformed: \(hex(v)))"
        default: return DescriptorValue.decoded(d.uuid, v).map { "\(name): \($0.text)" } ?? "\(name) \(hex(v))"
        }
    }

    /// Whole messages, newest first: time, size, chunks, and the text (printable).
    static func drawMessages(_ stream: StreamAssembly, _ s: AppState, bottom end: Int, into g: inout CellGrid) {
        g.put("MESSAGES", x: 1, y: 10, style: Style(bold: true, dim: true))
        var info = "\(stream.completed) complete, ending \"\(ValueDecoder.printableText(stream.marker))\""
        if !stream.partial.isEmpty { info += " · receiving: \(stream.partial.count) bytes in \(stream.partialChunks) chunks" }
        if stream.overflowed > 0 { info += " · \(stream.overflowed) bytes dropped (message over 1 MiB)" }
        g.put(info, x: 10, y: 10, style: .dimmed, maxWidth: g.width - 11)
        var y = 11
        for m in stream.messages.reversed() {
            guard y < end else { break }
            var x = g.put(m.at.clockTime, x: 1, y: y, style: .dimmed)
            x += g.put("  \(m.bytes.count) bytes, \(m.chunks) chunks  ", x: 1 + x, y: y, style: .accent)
            // The first message shown gets the room left on screen; older ones a line each.
            if y == 11 {
                // Lines of the text, wrapped; the grid makes any control character visible.
                let width = g.width - 4
                let bottom = end - min(3, stream.messages.count - 1)
                y += 1
                for line in String(decoding: m.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
                    var rest = Substring(line)
                    repeat {
                        guard y < bottom else { break }
                        let piece = rest.prefix(width)
                        g.put(String(piece), x: 3, y: y)
                        rest = rest.dropFirst(piece.count)
                        y += 1
                    } while !rest.isEmpty
                    if y >= bottom { break }
                }
            } else {
                g.put(ValueDecoder.printableText(m.bytes), x: 1 + x, y: y, maxWidth: g.width - x - 2)
                y += 1
            }
        }
    }

    /// Values as bars from their minimum to their maximum, with the range.
    static func sparkline(_ values: [Double]) -> String {
        guard let lo = values.min(), let hi = values.max() else { return "" }
        return TUI.sparkline(values, lo: lo, hi: hi)
            + "  \(formatFixed(lo, lo == lo.rounded() ? 0 : 2))–\(formatFixed(hi, hi == hi.rounded() ? 0 : 2))"
    }
}
