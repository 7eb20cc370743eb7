#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A recording read back (docs/recording.md): the backend events it holds, in order, with
/// their times. The file is untrusted: a line that does not read as an event is skipped
/// and counted; only a file that is not a recording at all is an error.
public struct Recording: Sendable {
    public var backend: String
    public var adapter: String
    public var started: Timestamp?
    public var events: RecordedEvents
    /// Lines that were not JSON, or not an event this version understands.
    public var skipped: Int
    /// Lines that are not backend events (commands, actions, regions): read and left out.
    public var other: Int

    public var start: Timestamp { events.first?.at ?? started ?? Timestamp(0) }
    public var end: Timestamp { events.last?.at ?? start }

    public struct ReadError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The largest file read (a recording of a long, busy session is tens of MB).
    public static let maxBytes = 512 << 20
    /// The longest line read: a longer one is skipped (and counted) as it streams past.
    public static let maxLineBytes = 16 << 20

    /// The recording at `path`, with every event it holds. The file is read a line at a
    /// time (`read`): only the events stay in memory, never the file's text beside them.
    public static func load(path: String) throws(ReadError) -> Recording {
        var events = RecordedEvents()
        var r = try read(path: path) { events.append(($0, $1)) }
        r.events = events
        return r
    }

    /// Reads the recording at `path` a line at a time, handing each event to `body` as it is
    /// read; the recording returned has its header and counts, and no events (`serve
    /// --clone` keeps only what it needs of them).
    public static func read(path: String, _ body: (Timestamp, BackendEvent) -> Void) throws(ReadError) -> Recording {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(description: "cannot read \(path): \(errnoText())") }
        defer { close(fd) }
        // A regular file says its size: one too large is refused before a byte is read
        // (a 1 GiB file in no time and no memory); a pipe is cut off as it reads.
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) > maxBytes {
            throw ReadError(description: "\(path) is larger than \(maxBytes >> 20) MB (\(Int(st.st_size) >> 20) MB)")
        }
        var reader = Reader(name: path)
        var refused: ReadError?
        do throws(FileBytes.ReadError) {
            try FileBytes.forEachLine(fd, limit: maxBytes, maxLine: maxLineBytes, name: path) { line in
                guard let line else { reader.tooLong(); return true }
                do throws(ReadError) { try reader.line(String(decoding: line, as: UTF8.self), body) } catch {
                    refused = error
                    return false
                }
                return true
            }
        } catch { throw ReadError(description: error.description) }
        if let refused { throw refused }
        return try reader.finish()
    }

    /// A recording's text, all of it in memory (tests, the fuzz targets).
    public static func parse(_ text: String, name: String = "the file") throws(ReadError) -> Recording {
        var reader = Reader(name: name)
        var events = RecordedEvents()
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            try reader.line(String(line)) { events.append(($0, $1)) }
        }
        var r = try reader.finish()
        r.events = events
        return r
    }

    /// A recording's lines, one after the other: the header first, then events.
    struct Reader {
        let name: String
        var shared = Shared()
        /// Set by the header line.
        var recording: Recording?
        var last: Timestamp?
        /// Lines too long to read before the header: the header is not first.
        var early = 0

        init(name: String) { self.name = name }

        mutating func tooLong() {
            if recording == nil { early += 1 } else { recording!.skipped += 1 }
        }

        mutating func line(_ text: String, _ body: (Timestamp, BackendEvent) -> Void) throws(ReadError) {
            if text.isEmpty { return }
            guard recording != nil else { return try header(text) }
            guard let v = try? JSONValue.parse(text), let type = v["type"]?.string else { recording!.skipped += 1; return }
            // An agent's request is not asked again in a replay: it is only counted.
            if ["command", "hook", "action", "region", "agent"].contains(type) { recording!.other += 1; return }
            guard let at = v["t"]?.string.flatMap({ Timestamp(iso8601: $0) }), let event = RecordedEvent.event(type, v) else {
                recording!.skipped += 1
                return
            }
            // Time never runs backwards in a replay: a line out of order plays at once.
            let t = max(at, last ?? at)
            last = t
            body(t, shared.event(event))
        }

        mutating func header(_ text: String) throws(ReadError) {
            guard early == 0, let header = try? JSONValue.parse(text), header["type"]?.string == "header",
                  let format = header["format"]?.int else {
                throw ReadError(description: "\(name) is not a bleexplr recording (its first line is not a recording header)")
            }
            guard format <= RecordingFormat.version else {
                throw ReadError(description: "\(name) was recorded in format \(format); this bleexplr reads format \(RecordingFormat.version)")
            }
            recording = Recording(backend: header["backend"]?.string ?? "?", adapter: header["adapter"]?.string ?? "?",
                                  started: header["started"]?.string.flatMap { Timestamp(iso8601: $0) }, events: [],
                                  skipped: 0, other: 0)
        }

        func finish() throws(ReadError) -> Recording {
            guard let recording, early == 0 else {
                throw ReadError(description: "\(name) is not a bleexplr recording (its first line is not a recording header)")
            }
            return recording
        }
    }
}

/// One recorded line back into the event it was written from (`RecordingFormat.line`).
enum RecordedEvent {
    static func event(_ type: String, _ v: JSONValue) -> BackendEvent? {
        let address = v["address"]?.string
        let id = address.map(PeripheralID.init)
        switch type {
        case "adapter":
            guard let name = v["adapter"]?.string, let power = v["power"]?.string.flatMap(AdapterPower.init(rawValue:)) else {
                return nil
            }
            return .adapterChanged(AdapterStatus(name: name, power: power, discovering: v["discovering"]?.bool ?? false))
        case "advertisement":
            guard let address, let adv = advertisement(v) else { return nil }
            // Bounded as the BlueZ backend bounds a live report: an RSSI of 2^63 in a file
            // someone sent is no RSSI, and a 64 KiB name no name.
            return .advertisementReceived(ReportBounds.report(AdvertisementReport(
                id: PeripheralID(address), address: address, name: v["name"]?.string, rssi: v["rssi"]?.int,
                connectable: v["connectable"]?.bool, advertisement: adv)))
        case "rssi-lost": return id.map { .rssiLost($0) }
        case "removed": return id.map { .peripheralRemoved($0) }
        case "connection":
            guard let id else { return nil }
            switch v["state"]?.string ?? "" {
            case "connecting": return .connecting(id, attempt: min(max(v["attempt"]?.int ?? 1, 1), 1000))
            case "connected": return .connected(id)
            case "failed": return .connectFailed(id, error(v) ?? .failed(""))
            case "disconnected":
                let reason: DisconnectReason
                switch v["reason"]?.string ?? "" {
                case "remote": reason = .remote
                case "timeout": reason = .timeout
                case "local": reason = .local
                default: reason = .other(v["message"]?.string ?? "disconnected")
                }
                return .disconnected(id, reason)
            default: return nil
            }
        case "services":
            guard let id, let list = v["services"]?.array else { return nil }
            var services: [GATTService] = []
            for s in list {
                guard let svc = service(s) else { return nil }
                services.append(svc)
            }
            return .servicesResolved(id, services, mtu: v["mtu"]?.int.flatMap { (23...517).contains($0) ? $0 : nil })
        case "read":
            guard let cid = path(v) else { return nil }
            if let e = error(v) { return .readCompleted(cid, .failure(e)) }
            return bytes(v).map { .readCompleted(cid, .success($0)) }
        case "write":
            guard let cid = path(v), let b = bytes(v) else { return nil }
            return .writeCompleted(cid, b, v["writeType"]?.string.flatMap(WriteType.init(rawValue:)) ?? .request, error(v))
        case "notify-state":
            guard let cid = path(v), let enabled = v["enabled"]?.bool else { return nil }
            return .notifyChanged(cid, enabled: enabled, error(v))
        case "notify-acquired":
            guard let cid = path(v), let mtu = v["mtu"]?.int, (23...517).contains(mtu) else { return nil }
            return .notificationsAcquired(cid, mtu: mtu)
        case "write-acquired":
            guard let cid = path(v), let mtu = v["mtu"]?.int, (23...517).contains(mtu) else { return nil }
            return .writeAcquired(cid, mtu: mtu)
        case "write-not-acquired":
            guard let cid = path(v), let reason = v["message"]?.string else { return nil }
            return .writeNotAcquired(cid, reason: TerminalSafe.text(ReportBounds.prefix(reason, bytes: 1024)),
                                     mtu: v["mtu"]?.int.flatMap { (23...517).contains($0) ? $0 : nil })
        case "writes-flushed":
            return path(v).map { .writesFlushed($0) }
        case "notification":
            guard let cid = path(v), let b = bytes(v) else { return nil }
            return .valueNotified(cid, b)
        case "descriptor-read":
            guard let did = path(v) else { return nil }
            if let e = error(v) { return .descriptorRead(did, .failure(e)) }
            return bytes(v).map { .descriptorRead(did, .success($0)) }
        case "descriptor-write":
            guard let did = path(v), let b = bytes(v) else { return nil }
            return .descriptorWritten(did, b, error(v))
        case "pair": return id.map { .pairCompleted($0, error(v)) }
        case "bond":
            guard let id else { return nil }
            let at = v["addressType"]?.string
            return .bondChanged(id, Bond(paired: v["paired"]?.bool ?? false, bonded: v["bonded"]?.bool ?? false,
                                         trusted: v["trusted"]?.bool ?? false, blocked: v["blocked"]?.bool ?? false,
                                         addressType: at == "public" || at == "random" ? at : nil))
        case "unreadable":
            guard let object = v["object"]?.string, let property = v["property"]?.string else { return nil }
            switch v["problem"]?.string {
            case "missing": return .propertyUnreadable(UnreadableProperty(object: object, property: property, problem: .missing))
            case "wrong-type":
                guard let sent = v["sent"]?.string, let expected = v["expected"]?.string else { return nil }
                return .propertyUnreadable(UnreadableProperty(object: object, property: property,
                                                              problem: .wrongType(sent: sent, expected: expected)))
            default: return nil
            }
        case "error":
            guard let e = error(v) else { return nil }
            return v["context"]?.string == "scan" ? .scanFailed(e) : .failure(e)
        default:
            return nil
        }
    }

    static func path(_ v: JSONValue) -> AttributeID? {
        guard let p = v["path"]?.string, !p.isEmpty else { return nil }
        return AttributeID(p)
    }

    static func bytes(_ v: JSONValue) -> Bytes? { v["hex"]?.string.flatMap(parseHex) }

    static func error(_ v: JSONValue) -> BackendError? {
        guard let e = v["error"], let name = e["name"]?.string else { return nil }
        return BackendError(name: name, message: e["message"]?.string ?? "")
    }

    static func advertisement(_ v: JSONValue) -> Advertisement? {
        var a = Advertisement(localName: v["localName"]?.string, txPower: v["txPower"]?.int,
                              flags: v["flags"]?.int.flatMap { UInt8(exactly: $0) },
                              appearance: v["appearance"]?.int.flatMap { UInt16(exactly: $0) })
        for u in v["serviceUUIDs"]?.array ?? [] {
            guard let uuid = u.string.flatMap(BLEUUID.init) else { return nil }
            a.serviceUUIDs.append(uuid)
        }
        for (k, value) in v["manufacturerData"]?.object ?? [:] {
            guard let company = UInt16(k, radix: 16), let b = value.string.flatMap(parseHex) else { return nil }
            a.manufacturerData[company] = b
        }
        for (k, value) in v["serviceData"]?.object ?? [:] {
            guard let uuid = BLEUUID(k), let b = value.string.flatMap(parseHex) else { return nil }
            a.serviceData[uuid] = b
        }
        return a
    }

    static func service(_ s: JSONValue) -> GATTService? {
        guard let id = path(s), let uuid = s["uuid"]?.string.flatMap(BLEUUID.init) else { return nil }
        var chars: [GATTCharacteristic] = []
        for c in s["characteristics"]?.array ?? [] {
            guard let cid = path(c), let cu = c["uuid"]?.string.flatMap(BLEUUID.init) else { return nil }
            let flags = (c["properties"]?.array ?? []).compactMap(\.string)
            var descriptors: [GATTDescriptor] = []
            for d in c["descriptors"]?.array ?? [] {
                guard let did = path(d), let du = d["uuid"]?.string.flatMap(BLEUUID.init) else { return nil }
                descriptors.append(GATTDescriptor(id: did, uuid: du, writable: d["writable"]?.bool == true))
            }
            chars.append(GATTCharacteristic(id: cid, uuid: cu, properties: CharacteristicProperties(flags: flags),
                                            descriptors: descriptors))
        }
        return GATTService(id: id, uuid: uuid, isPrimary: s["primary"]?.bool ?? true, characteristics: chars)
    }
}

/// Lowercase or uppercase hex without separators; nil for anything else.
public func parseHex(_ s: String) -> Bytes? {
    let u = Array(s.utf8)
    guard u.count % 2 == 0 else { return nil }
    func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x61 + 10
        case 0x41...0x46: return c - 0x41 + 10
        default: return nil
        }
    }
    var out = Bytes()
    out.reserveCapacity(u.count / 2)
    var i = 0
    while i < u.count {
        guard let hi = nibble(u[i]), let lo = nibble(u[i + 1]) else { return nil }
        out.append(hi << 4 | lo)
        i += 2
    }
    return out
}
