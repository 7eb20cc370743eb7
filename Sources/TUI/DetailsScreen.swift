import Explorer

/// Everything a device broadcasts, before connecting (or for a beacon, instead of it):
/// decoded advertisement fields, beacon contents with a distance estimate, RSSI history.
enum DetailsScreen {
    static func draw(_ s: AppState, _ pid: PeripheralID, into g: inout CellGrid) {
        guard let p = s.peripherals[pid] else { return }
        var x = g.put(p.alias.map { "\($0) (\(p.name ?? "unnamed"))" } ?? p.name ?? "(unnamed)", x: 1, y: 1, style: .title, maxWidth: 32)
        x += g.put("  " + p.address, x: x + 1, y: 1)
        x += g.put(p.connectable ? "  connectable" : "  non-connectable", x: x + 1, y: 1,
                   style: p.connectable ? .good : .warning)
        if let r = p.rssi {
            x += g.put("  RSSI \(r) dBm", x: x + 1, y: 1, style: p.rssiStale || s.isStale(p) ? .dimmed : ScanScreen.rssiStyle(r))
            g.put("  " + sparkline(p.rssiHistory.samples.map(Double.init), lo: -100, hi: -30), x: x + 1, y: 1,
                  style: .accent, maxWidth: max(0, g.width - x - 3))
        }
        let labelW = 15
        var y = 3
        let valueW = max(1, g.width - labelW - 2)
        func row(_ label: String, _ value: String, _ style: Style = .plain) {
            // Long values (manufacturer data) wrap onto the next lines.
            var rest = Substring(value)
            var first = true
            repeat {
                guard y < g.height - 3 else { return }
                if first { g.put(label, x: 1, y: y, style: .dimmed) }
                var piece = rest.prefix(valueW)
                if piece.count < rest.count, let space = piece.lastIndex(of: " ") { piece = rest[..<space] }
                g.put(String(piece), x: 1 + labelW, y: y, style: style, maxWidth: valueW)
                rest = rest.dropFirst(piece.count).drop(while: { $0 == " " })
                first = false
                y += 1
            } while !rest.isEmpty
        }
        let adv = p.advertisement
        if let n = adv.localName { row("Local name", n) }
        if let f = adv.flags { row("Flags", "0x" + hex([f]) + ": " + flagNames(f)) }
        if !adv.serviceUUIDs.isEmpty {
            row("Services", adv.serviceUUIDs.map { u in AssignedNumbers.serviceName(u).map { "\(u) \($0)" } ?? u.description }
                .joined(separator: ", "))
        }
        for k in adv.manufacturerData.keys.sorted() {
            let company = AssignedNumbers.companyName(k).map { " \($0)" } ?? ""
            row("Manufacturer", "\(ScanScreen.format4(k))\(company): \(hex(adv.manufacturerData[k]!))")
        }
        for u in adv.serviceData.keys.sorted() {
            let name = AssignedNumbers.serviceName(u).map { " \($0)" } ?? ""
            row("Service data", "\(u)\(name): \(hex(adv.serviceData[u]!))")
        }
        if let t = adv.txPower { row("TX power", "\(t) dBm") }
        if let a = adv.appearance {
            row("Appearance", ScanScreen.format4(a) + (AssignedNumbers.appearanceName(a).map { " " + $0 } ?? " (\(a))"))
        }
        for b in adv.beacons {
            switch b {
            case let .iBeacon(uuid, major, minor, power):
                row("iBeacon", "UUID \(uuid.canonical.uppercased())", .good)
                var line = "major \(major), minor \(minor), measured power \(power) dBm"
                if let r = p.rssi { line += ", about \(formatFixed(Beacon.distance(rssi: r, measuredPower: power), 1)) m" }
                row("", line, .good)
            case let .eddystoneUID(ns, inst, tx):
                row("Eddystone-UID", "namespace \(hex(ns, separator: "")), instance \(hex(inst, separator: "")), tx \(tx) dBm", .good)
            case let .eddystoneURL(url, tx):
                row("Eddystone-URL", "\(url)  (tx \(tx) dBm at 0 m)", .good)
            case let .eddystoneTLM(mv, temp, count, uptime):
                let t = temp.map { "\(formatFixed($0, 2)) °C" } ?? "no temperature"
                row("Eddystone-TLM", "battery \(mv) mV, \(t), \(count) frames, up \(formatFixed(Double(uptime) / 10, 1)) s", .good)
            case let .eddystoneEncryptedTLM(data, salt, mic):
                let check = [salt.map { "salt 0x" + hex4($0) }, mic.map { "check 0x" + hex4($0) }].compactMap { $0 }
                row("Eddystone-eTLM", (["encrypted telemetry \(hex(data, separator: ""))"] + check).joined(separator: ", "), .good)
            case let .eddystoneEID(eid, tx):
                row("Eddystone-EID", "ephemeral ID \(hex(eid, separator: "")), tx \(tx) dBm at 0 m", .good)
            case let .uriBeacon(url, tx, flags):
                row("UriBeacon", "\(url)  (tx \(tx) dBm at 0 m, flags 0x\(hex([flags])))", .good)
            case let .altBeacon(company, id1, id2, id3, rssi, reserved):
                row("AltBeacon", "ID1 \(id1.canonical.uppercased())", .good)
                var line = "ID2 \(id2), ID3 \(id3), reference RSSI \(rssi) dBm"
                if let r = p.rssi { line += ", about \(formatFixed(Beacon.distance(rssi: r, measuredPower: rssi), 1)) m" }
                row("", line, .good)
                let by = AssignedNumbers.companyName(company) ?? ScanScreen.format4(company)
                row("", "by \(by)" + (reserved.map { ", manufacturer byte 0x\(hex([$0]))" } ?? ", short form"), .good)
            case let .malformed(kind):
                row(kind, "malformed: too short or invalid", .warning)
            }
        }
        // Sensor and vendor frames: "BTHome v2 · 23.97 °C · …" as the label, then the rest.
        for f in adv.frames(address: p.address, keys: s.bindKeys).dropFirst(adv.beacons.count) {
            let text = f.value.text
            let cut = text.firstRange(of: " · ")
            row(String(cut.map { text[..<$0.lowerBound] } ?? Substring(text)).prefix(labelW - 1).description,
                cut.map { String(text[$0.upperBound...]) } ?? "", f.value.malformed ? .warning : .good)
        }
        y += 1
        if let rhythm = Self.rhythm(p.rhythm) { row("Advertising", rhythm) }
        let others = s.sameEmitter(as: pid)
        if !others.isEmpty {
            let shown = others.prefix(3).map(\.address).joined(separator: ", ") + (others.count > 3 ? ", …" : "")
            row("Same beacon", "also heard as \(others.count) other address\(others.count == 1 ? "" : "es") (rotation): \(shown)", .accent)
        }
        row("First seen", "\(p.firstSeen.clockTime) UTC, \(age(s.now - p.firstSeen)) ago")
        row("Last seen", s.isStale(p) ? "\(age(s.now - p.lastSeen)) ago (stale)" : "\(age(s.now - p.lastSeen)) ago")
        if p.connection != .disconnected { row("Connection", p.connection.label, .accent) }
        if let k = p.bond.addressKind(p.address) { row("Address type", k.text) }
        row("Pairing", p.bond.summary.isEmpty ? "not paired" : p.bond.summary.split(separator: "·").joined(separator: ", "))
        // The advertisement as AD structures: what the firmware sent, as far as BlueZ's
        // properties tell it (BlueZ keeps no raw bytes, nor which came in the scan response).
        y += 1
        var first = true
        for st in AdvertisingData.structures(of: adv) {
            row(first ? "Raw (BlueZ)" : "", "\(hex([UInt8(st.data.count + 1)])) \(hex([st.type])) \(st.typeName ?? "?"): \(hex(st.data))", .dimmed)
            first = false
        }
    }

    /// `every 102 ms (±4 ms), 9.8 a second, 523 reports`.
    static func rhythm(_ r: AdvertisingRhythm) -> String? {
        guard let i = r.interval else { return r.reports > 0 ? "\(r.reports) report\(r.reports == 1 ? "" : "s")" : nil }
        func ms(_ s: Double) -> String { s >= 10 ? formatFixed(s, 0) + " s" : formatFixed(s * 1000, 0) + " ms" }
        let rate = r.perSecond.flatMap { $0 >= 1 ? ", " + formatFixed($0, 1) + " a second" : nil } ?? ""
        return "every \(ms(i)) (±\(ms(r.jitter ?? 0)))\(rate), \(r.reports) reports"
    }

    /// Advertising flags (Core Supplement, part A 1.3).
    static func flagNames(_ f: UInt8) -> String {
        let names = ["LE Limited Discoverable", "LE General Discoverable", "BR/EDR Not Supported",
                     "LE and BR/EDR (controller)", "LE and BR/EDR (host)"]
        let set = names.enumerated().filter { f & (1 << $0.offset) != 0 }.map(\.element)
        return set.isEmpty ? "none" : set.joined(separator: ", ")
    }
}
