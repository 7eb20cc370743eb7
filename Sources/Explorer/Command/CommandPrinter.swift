@preconcurrency import Glibc

/// Turns a command's output into lines: text for people (device text made harmless), or
/// JSON Lines for programs, each line an object that docs/output.schema.json describes.
/// Pure: the executable writes what it returns.
public struct CommandPrinter: Sendable {
    public enum Stream: Sendable { case stdout, stderr }
    public struct Line: Equatable, Sendable {
        public var stream: Stream
        public var text: String
    }

    public var json: Bool
    /// `notify --until --output FILE`: the message went to this file, not to stdout.
    public var messageFile: String?

    /// `--key`: opens encrypted advertisements in `scan`'s lines.
    public var keys: [String: Bytes]

    public init(json: Bool, messageFile: String? = nil, keys: [String: Bytes] = [:]) {
        self.json = json; self.messageFile = messageFile; self.keys = keys
    }

    /// `now`: the time of lines that carry none of their own (watch's commentary).
    public func lines(_ output: CommandOutput, now: Timestamp) -> [Line] {
        switch output {
        case let .devices(peripherals):
            guard json else { return peripherals.map { out(Self.deviceText($0, keys: keys)) } }
            let groups = Self.emitters(peripherals)
            return peripherals.map { p in
                let others = p.advertisement.beacons.compactMap(\.identity).flatMap { groups[$0] ?? [] }
                return out(Self.deviceJSON(p, keys: keys, sameEmitter: Array(Set(others)).filter { $0 != p.address }.sorted()))
            }
        case let .scanEvent(e):
            guard json else {
                let tag = ["new": "NEW", "change": "CHG", "gone": "DEL"][e.kind.rawValue]!
                return [out("\(e.at.clockTime)  \(tag)  " + Self.deviceText(e.peripheral, keys: keys))]
            }
            var head = JSONLine()
            head.string("t", e.at.iso8601); head.string("event", e.kind.rawValue)
            if !e.changed.isEmpty { head.strings("changed", e.changed) }
            return [out(Self.deviceJSON(e.peripheral, keys: keys, before: head))]
        case let .decoded(report):
            return json ? [out(Self.decodedJSON(report))] : Self.decodedText(report).map(out)
        case let .services(report):
            return json ? report.services.map { out(Self.serviceJSON($0, mtu: report.mtu)) } : Self.servicesText(report).map(out)
        case let .value(v):
            let who = v.named ? "\(v.address) \(v.uuid)  " : ""
            return [out(json ? Self.valueJSON(v) : TerminalSafe.text(who + hex(v.bytes) + (v.decoded.map { "  " + $0.text } ?? "")))]
        case let .wrote(w):
            guard json else {
                let how = w.descriptor != nil ? " to descriptor \(w.descriptor!)" : w.long ? " (long write)"
                    : w.type == .reliable ? " (reliable write)" : ""
                return [out("wrote \(w.bytes.count) byte\(w.bytes.count == 1 ? "" : "s")\(how)")]
            }
            var j = JSONLine()
            j.time("t", w.at); j.string("address", w.address); j.string("uuid", w.uuid.canonical)
            Self.descriptorFields(&j, w.descriptor, w.handle)
            j.hex("hex", w.bytes)
            j.string("writeType", w.type.rawValue)
            if w.long { j.bool("long", true) }
            return [out(j.finish())]
        case let .message(m):
            return messageLines(m)
        case let .streamWritten(w):
            return [out(json ? Self.streamJSON(w) : Self.streamText(w))]
        case let .watch(event, message, seq):
            guard json else { return [out("\(now.clockTime)  \(TerminalSafe.text(message))")] }
            var j = JSONLine()
            j.time("t", now); j.string("event", event); j.int("seq", seq); j.string("message", message)
            return [out(j.finish())]
        case let .region(t):
            if json { return [out(t.json)] }
            let b = t.beacon.map { "  \($0.address) \($0.major)/\($0.minor) \($0.rssi.map { "\($0) dBm" } ?? "RSSI n/a")" } ?? ""
            return [out("\(t.at.iso8601)  \(t.kind == .enter ? "enter" : "exit ")  \(TerminalSafe.text(t.region))\(b)")]
        case let .failure(message), let .warning(message):
            return [Line(stream: .stderr, text: "bleexplr: " + TerminalSafe.text(message))]
        case .benchEnd:
            return []   // the executable prints it, with its CPU time
        case let .serve(l):
            if json {
                var j = JSONLine()
                j.time("t", now); j.string("event", l.event)
                for f in l.fields { j.string(key: f.key, f.value) }
                return [out(j.finish())]
            }
            let text = l.fields.compactMap { f in f.value.map { "\(f.key)=\($0)" } }.joined(separator: " ")
            return [out(TerminalSafe.text("\(now.clockTime)  \(l.event)  \(text)"))]
        }
    }

    func out(_ text: String) -> Line { Line(stream: .stdout, text: text) }

    /// Writes lines, each to its stream; stdout is flushed (a line at a time for pipes).
    /// Prints and flushes the lines; what went wrong writing standard output, if anything.
    @discardableResult
    public static func write(_ lines: [Line]) -> String? {
        for line in lines {
            switch line.stream {
            case .stdout: print(line.text)
            case .stderr: fputs(line.text + "\n", stderr)
            }
        }
        return StandardOutput.problem()
    }

    // MARK: Values

    static func valueJSON(_ v: ValueReport) -> String {
        var j = JSONLine()
        j.time("t", v.at); j.string("address", v.address); j.string("uuid", v.uuid.canonical)
        Self.descriptorFields(&j, v.descriptor, v.handle)
        j.string("name", v.name)
        j.string("origin", v.origin.rawValue)
        j.int("mtu", v.mtu)
        if v.offset > 0 { j.int("offset", Int(v.offset)) }
        j.hex("hex", v.bytes)
        if let d = v.decoded {
            j.string("decoded", d.text)
            if d.malformed { j.bool("malformed", true) } else if !d.fields.isEmpty { j.raw("value", d.fieldsJSON) }
        }
        return j.finish()
    }

    /// `"descriptor"` and `"handle"` of a descriptor's value or write.
    static func descriptorFields(_ j: inout JSONLine, _ uuid: BLEUUID?, _ handle: UInt16?) {
        guard let uuid else { return }
        j.string("descriptor", uuid.canonical)
        j.string("handle", handle.map { "0x" + hex4($0).uppercased() })
    }

    func messageLines(_ m: MessageReport) -> [Line] {
        let seconds = (m.seconds * 1000).rounded() / 1000, rate = (m.kbitPerSecond * 10).rounded() / 10
        if json {
            var j = JSONLine()
            j.string("event", "message"); j.string("address", m.address); j.string("uuid", m.uuid.canonical)
            j.int("bytes", m.bytes.count); j.int("chunks", m.chunks); j.string("framing", m.framing.rawValue)
            if m.framing == .seq { j.int("reordered", m.reordered) }
            j.int("mtu", m.mtu)
            j.raw("seconds", JSONValue.number(seconds).serialized); j.raw("kbitPerSecond", JSONValue.number(rate).serialized)
            if messageFile == nil { j.hex("hex", m.bytes) }
            j.string("output", messageFile)
            return [out(j.finish())]
        }
        var lines: [Line] = []
        if messageFile == nil { lines.append(out(TerminalSafe.text(String(decoding: m.bytes, as: UTF8.self)))) }
        let to = messageFile.map { " to \($0)" } ?? ""
        let put = m.reordered > 0 ? ", \(m.reordered) out of order put back in place" : ""
        lines.append(Line(stream: .stderr, text: "\(m.bytes.count) bytes in \(m.chunks) notifications\(to), \(seconds) s, \(rate) kbit/s"
                          + (m.framing == .seq ? ", framing seq\(put)" : "")))
        return lines
    }

    /// `write --file`'s line: bytes, writes, seconds, writes/s, kbit/s, the path and the MTU.
    static func streamText(_ w: StreamWriteReport) -> String {
        let seconds = (w.seconds * 1000).rounded() / 1000
        let how = [w.path.rawValue, w.mtu.map { "MTU \($0)" } ?? "MTU not known", w.type.title]
            + (w.framing.map { ["framing \($0.rawValue)"] } ?? [])
        let end = w.confirmed ? "the device answered a read after the last write"
            : "not confirmed by the device: the time is bluetoothd's taking the last write"
        return "wrote \(w.bytes) bytes in \(w.chunks) writes of up to \(w.chunkSize) bytes in \(seconds) s: "
            + "\(Int(w.chunksPerSecond.rounded())) writes/s, \((w.kbitPerSecond * 10).rounded() / 10) kbit/s (\(how.joined(separator: ", ")); \(end))"
    }

    static func streamJSON(_ w: StreamWriteReport) -> String {
        func number(_ v: Double, _ places: Double) -> String { JSONValue.number((v * places).rounded() / places).serialized }
        var j = JSONLine()
        j.string("event", "stream-written"); j.string("address", w.address); j.string("uuid", w.uuid.canonical)
        j.int("bytes", w.bytes); j.int("chunks", w.chunks); j.int("chunkSize", w.chunkSize); j.int("mtu", w.mtu)
        j.string("path", w.path.rawValue); j.string("writeType", w.type.rawValue); j.string("framing", w.framing?.rawValue ?? "none")
        j.raw("seconds", number(w.seconds, 1000)); j.raw("queuedSeconds", number(w.queuedSeconds, 1000))
        j.raw("chunksPerSecond", number(w.chunksPerSecond, 10)); j.raw("kbitPerSecond", number(w.kbitPerSecond, 10))
        j.bool("confirmed", w.confirmed)
        return j.finish()
    }

    // MARK: Devices and services

    /// Everything the stack gave about a device's advertising, whole (`advertisement`).
    /// `sameEmitter`: the other addresses the same beacon was heard under.
    /// `before`: fields that come first (a live scan's `t`, `event`, `changed`).
    static func deviceJSON(_ p: Peripheral, keys: [String: Bytes] = [:], sameEmitter: [String] = [], before: JSONLine = JSONLine()) -> String {
        var j = before
        j.string("address", p.address); j.string("name", p.name); j.string("alias", p.alias); j.int("rssi", p.rssi)
        j.bool("connectable", p.connectable)
        j.string("addressType", p.bond.addressType)
        j.bool("paired", p.bond.paired); j.bool("bonded", p.bond.bonded)
        j.bool("trusted", p.bond.trusted); j.bool("blocked", p.bond.blocked)
        advertisement(&j, p.advertisement, address: p.address, keys: keys)
        var r = JSONLine()
        r.int("reports", p.rhythm.reports)
        if let i = p.rhythm.interval { r.raw("intervalMs", JSONValue.rounded(i * 1000, 1).serialized) }
        if let jt = p.rhythm.jitter { r.raw("jitterMs", JSONValue.rounded(jt * 1000, 1).serialized) }
        if let ps = p.rhythm.perSecond { r.raw("perSecond", JSONValue.rounded(ps, 2).serialized) }
        j.raw("rhythm", r.finish())
        if !sameEmitter.isEmpty { j.strings("sameEmitter", sameEmitter) }
        j.string("firstSeen", p.firstSeen.iso8601)
        j.string("lastSeen", p.lastSeen.iso8601)
        return j.finish()
    }

    /// Every entry as hex, the SIG's names for its companies and services, each decoded
    /// frame as fields, and the one-line summary people read (`scan` and `decode`).
    static func advertisement(_ j: inout JSONLine, _ adv: Advertisement, address: String? = nil, keys: [String: Bytes] = [:]) {
        j.strings("serviceUUIDs", adv.serviceUUIDs.map(\.canonical))
        j.stringMap("manufacturerData", adv.manufacturerData.keys.sorted().map {
            (RecordingFormat.companyKey($0), hex(adv.manufacturerData[$0]!, separator: ""))
        })
        let serviceDataUUIDs = adv.serviceData.keys.sorted { $0.canonical < $1.canonical }
        j.stringMap("serviceData", serviceDataUUIDs.map { ($0.canonical, hex(adv.serviceData[$0]!, separator: "")) })
        j.int("txPower", adv.txPower)
        j.int("flags", adv.flags.map(Int.init))
        j.int("appearance", adv.appearance.map(Int.init))
        if let a = adv.appearance { j.string("appearanceName", AssignedNumbers.appearanceName(a)) }
        j.stringMap("companies", adv.manufacturerData.keys.sorted().compactMap { k in
            AssignedNumbers.companyLegalName(k).map { (RecordingFormat.companyKey(k), $0) }
        })
        var services: [BLEUUID] = adv.serviceUUIDs
        for u in serviceDataUUIDs where !services.contains(u) { services.append(u) }
        j.stringMap("services", services.compactMap { u in AssignedNumbers.serviceLegalName(u).map { (u.canonical, $0) } })
        // Decoded once for all three: the first beacon, the frames as fields, the summary.
        let beacons = adv.beacons, entries = adv.entryFrames(address: address, keys: keys)
        if let b = beacons.first { j.raw("beacon", DecodedValue(b.summary, b.fields).fieldsJSON) }
        j.raw("frames", JSONLine.array((beacons.map(Advertisement.frame) + entries).map(\.json)))
        j.string("summary", adv.summary(beacons: beacons, entries: entries))
    }

    /// Beacon identity -> the addresses it was heard under (`AppState.sameEmitter`, for a
    /// whole list at once).
    static func emitters(_ peripherals: [Peripheral]) -> [String: [String]] {
        var groups: [String: [String]] = [:]
        for p in peripherals {
            for id in Set(p.advertisement.beacons.compactMap(\.identity)) { groups[id, default: []].append(p.address) }
        }
        return groups
    }

    static func deviceText(_ p: Peripheral, keys: [String: Bytes] = [:]) -> String {
        let rssi = p.rssi.map { String($0) } ?? "?"
        var line = "\(p.address)  \(rssi) dBm  \(p.alias.map { "\($0) (\(p.name ?? "unnamed"))" } ?? p.name ?? "(unnamed)")"
        let summary = p.advertisement.summary(address: p.address, keys: keys)
        if !summary.isEmpty { line += "  " + summary }
        return TerminalSafe.text(line)
    }

    /// `mtu`: the link's ATT MTU as BlueZ reports it (GattCharacteristic1.MTU), on every line.
    static func serviceJSON(_ s: ServicesReport.Service, mtu: Int? = nil) -> String {
        var j = JSONLine()
        j.string("uuid", s.service.uuid.canonical)
        j.string("name", AssignedNumbers.serviceName(s.service.uuid))
        j.string("path", s.service.id.path)
        j.string("handle", s.service.id.handleText)
        j.bool("primary", s.service.isPrimary)
        j.int("mtu", mtu)
        j.raw("characteristics", JSONLine.array(s.characteristics.map { c in
            var cj = JSONLine()
            cj.string("uuid", c.characteristic.uuid.canonical)
            cj.string("name", c.name)
            cj.string("path", c.characteristic.id.path)
            cj.string("handle", c.characteristic.id.handleText)
            cj.strings("properties", c.characteristic.properties.flagNames)
            cj.string("userDescription", c.userDescription)
            if let f = c.presentationFormat {
                var fj = JSONLine()
                fj.string("format", f.formatName); fj.int("exponent", Int(f.exponent))
                fj.string("unit", AssignedNumbers.unitName(f.unit)); fj.string("unitUUID", hex4(f.unit).uppercased())
                cj.raw("presentationFormat", fj.finish())
            }
            cj.raw("descriptors", JSONLine.array(c.characteristic.descriptors.map { d in
                var dj = JSONLine()
                dj.string("uuid", d.uuid.canonical); dj.string("name", AssignedNumbers.descriptorName(d.uuid)); dj.string("path", d.id.path)
                dj.string("handle", d.id.handleText); dj.bool("writable", d.writable)
                if let b = c.descriptorValues[d.id] {
                    dj.hex("hex", b)
                    if let v = DescriptorValue.decoded(d.uuid, b) {
                        dj.string("decoded", v.text)
                        if v.malformed { dj.bool("malformed", true) } else if !v.fields.isEmpty { dj.raw("value", v.fieldsJSON) }
                    }
                }
                return dj.finish()
            }))
            return cj.finish()
        }))
        return j.finish()
    }

    static func servicesText(_ r: ServicesReport) -> [String] {
        var lines: [String] = []
        for s in r.services {
            lines.append("\(s.service.uuid)  \(AssignedNumbers.serviceName(s.service.uuid) ?? "Unknown Service")")
            for c in s.characteristics {
                var line = "  \(c.characteristic.uuid)  \(c.name ?? "")  [\(c.characteristic.properties.flagNames.joined(separator: ", "))]"
                if let f = c.presentationFormat { line += "  (\(f.summary))" }
                lines.append(TerminalSafe.text(line))
            }
        }
        return lines
    }
}
