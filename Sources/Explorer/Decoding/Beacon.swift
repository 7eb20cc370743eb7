#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The beacon formats, each from its public layout: Apple's iBeacon, AltBeacon, Google's
/// Eddystone (UID, URL, TLM, encrypted TLM, EID) and its predecessor UriBeacon.
public enum Beacon: Equatable, Sendable {
    case iBeacon(uuid: BLEUUID, major: UInt16, minor: UInt16, measuredPower: Int)
    case eddystoneUID(namespace: Bytes, instance: Bytes, txPower: Int)
    case eddystoneURL(url: String, txPower: Int)
    case eddystoneTLM(batteryMillivolts: Int, temperature: Double?, advCount: UInt32, uptimeTenths: UInt32)
    /// Encrypted TLM (version 1): only the owner's key opens it. Salt and MIC are nil when
    /// the frame is cut before them.
    case eddystoneEncryptedTLM(data: Bytes, salt: UInt16?, mic: UInt16?)
    /// Ephemeral ID: 8 bytes that rotate; only the owner's resolver knows whose it is.
    case eddystoneEID(eid: Bytes, txPower: Int)
    /// UriBeacon (service 0xFED8), Eddystone-URL's forerunner: flags, tx power, a URI.
    case uriBeacon(url: String, txPower: Int, flags: UInt8)
    /// AltBeacon (Radius Networks' open format): manufacturer data of any company, beacon
    /// code 0xBEAC, a 20-byte ID (shown as a UUID and two 16-bit numbers, as the
    /// reference library does), reference RSSI at 1 m, one byte for the manufacturer
    /// (missing in the short form some beacons send).
    case altBeacon(company: UInt16, id1: BLEUUID, id2: UInt16, id3: UInt16, referenceRSSI: Int, reserved: UInt8?)
    case malformed(kind: String)

    static let eddystoneService: BLEUUID = "FEAA"
    static let uriBeaconService: BLEUUID = "FED8"

    /// The first beacon: an iBeacon first (the region watch looks for it), then AltBeacon,
    /// Eddystone, UriBeacon. The region watch asks for every report heard: it stops at the
    /// first one found rather than decoding them all.
    public static func decode(_ adv: Advertisement) -> Beacon? {
        var first: Beacon?
        each(adv) { first = $0; return false }
        return first
    }

    /// Every beacon the advertisement carries: manufacturer entries in company order, then
    /// Eddystone and UriBeacon service data.
    public static func all(_ adv: Advertisement) -> [Beacon] {
        var found: [Beacon] = []
        each(adv) { found.append($0); return true }
        return found
    }

    /// Hands each beacon to `body`, in that order, while it returns true.
    static func each(_ adv: Advertisement, _ body: (Beacon) -> Bool) {
        if let apple = adv.manufacturerData[0x004C], let b = iBeacon(apple), !body(b) { return }
        for company in adv.manufacturerData.keys.sorted() {
            if let b = altBeacon(company, adv.manufacturerData[company]!), !body(b) { return }
        }
        if let ed = adv.serviceData[eddystoneService], let b = eddystone(ed), !body(b) { return }
        if let uri = adv.serviceData[uriBeaconService], let b = uriBeacon(uri) { _ = body(b) }
    }

    /// Apple's iBeacon: type 0x02, length 0x15, UUID, major, minor, measured power.
    static func iBeacon(_ d: Bytes) -> Beacon? {
        guard d.count >= 2, d[0] == 0x02, d[1] == 0x15 else { return nil }
        guard d.count >= 23 else { return .malformed(kind: "iBeacon") }
        return .iBeacon(uuid: BLEUUID(bigEndianBytes: d[2..<18]), major: be16(d, 18), minor: be16(d, 20),
                        measuredPower: Int(Int8(bitPattern: d[22])))
    }

    static func altBeacon(_ company: UInt16, _ d: Bytes) -> Beacon? {
        guard d.count >= 2, d[0] == 0xBE, d[1] == 0xAC else { return nil }
        guard d.count >= 23 else { return .malformed(kind: "AltBeacon") }
        return .altBeacon(company: company, id1: BLEUUID(bigEndianBytes: d[2..<18]), id2: be16(d, 18), id3: be16(d, 20),
                          referenceRSSI: Int(Int8(bitPattern: d[22])), reserved: d.count > 23 ? d[23] : nil)
    }

    /// Eddystone's frames (google/eddystone protocol-specification.md). A frame type the
    /// specification does not define (vendors put their own there) is no beacon: its bytes
    /// stay shown as service data.
    static func eddystone(_ ed: Bytes) -> Beacon? {
        guard let frame = ed.first else { return nil }
        switch frame {
        case 0x00:
            guard ed.count >= 18 else { return .malformed(kind: "Eddystone-UID") }
            return .eddystoneUID(namespace: Array(ed[2..<12]), instance: Array(ed[12..<18]),
                                 txPower: Int(Int8(bitPattern: ed[1])))
        case 0x10:
            guard ed.count >= 3, let url = expandEddystoneURL(scheme: ed[2], encoded: ed[3...]) else {
                return .malformed(kind: "Eddystone-URL")
            }
            return .eddystoneURL(url: url, txPower: Int(Int8(bitPattern: ed[1])))
        case 0x20 where ed.count >= 2 && ed[1] == 1:
            // Version 1: 12 bytes of encrypted TLM, a 16-bit salt, a 16-bit check.
            guard ed.count >= 14 else { return .malformed(kind: "Eddystone-eTLM") }
            return .eddystoneEncryptedTLM(data: Array(ed[2..<14]), salt: ed.count >= 16 ? be16(ed, 14) : nil,
                                          mic: ed.count >= 18 ? be16(ed, 16) : nil)
        case 0x20:
            guard ed.count >= 14, ed[1] == 0 else { return .malformed(kind: "Eddystone-TLM") }
            let raw = Int16(bitPattern: be16(ed, 4))
            let temp: Double? = raw == Int16(bitPattern: 0x8000) ? nil : Double(raw) / 256
            return .eddystoneTLM(batteryMillivolts: Int(be16(ed, 2)), temperature: temp,
                                 advCount: be32(ed, 6), uptimeTenths: be32(ed, 10))
        case 0x30:
            guard ed.count >= 10 else { return .malformed(kind: "Eddystone-EID") }
            return .eddystoneEID(eid: Array(ed[2..<10]), txPower: Int(Int8(bitPattern: ed[1])))
        default:
            return nil
        }
    }

    /// UriBeacon: flags, tx power, then a URI whose first byte is a scheme code and whose
    /// bytes 0x00-0x0D expand as in Eddystone-URL.
    static func uriBeacon(_ d: Bytes) -> Beacon? {
        guard d.count >= 3, let url = expandEddystoneURL(scheme: d[2], encoded: d[3...], schemes: uriBeaconSchemes) else {
            return d.isEmpty ? nil : .malformed(kind: "UriBeacon")
        }
        return .uriBeacon(url: url, txPower: Int(Int8(bitPattern: d[1])), flags: d[0])
    }

    static let uriBeaconSchemes = ["http://www.", "https://www.", "http://", "https://", "urn:uuid:"]

    /// Estimated distance in metres from the measured power at 1 m (log-distance path
    /// loss with exponent 2): a rough guide, as every beacon app shows.
    public static func distance(rssi: Int, measuredPower: Int) -> Double {
        let exponent = max(-6, min(6, Double(measuredPower - rssi) / 20))
        return pow(10, exponent)
    }

    /// Short, single-line description for the scan list.
    public var summary: String {
        switch self {
        case let .iBeacon(uuid, major, minor, power):
            return "iBeacon \(uuid.canonical.prefix(8))… \(major)/\(minor) @1m \(power)"
        case let .eddystoneUID(ns, inst, _):
            return "Eddystone-UID \(hex(ns, separator: ""))/\(hex(inst, separator: ""))"
        case let .eddystoneURL(url, _):
            return "Eddystone-URL \(url)"
        case let .eddystoneTLM(mv, temp, count, uptime):
            let t = temp.map { " \(formatFixed($0, 1))°C" } ?? ""
            return "Eddystone-TLM \(mv) mV\(t) #\(count) up \(Self.uptime(uptime))"
        case .eddystoneEncryptedTLM:
            return "Eddystone-eTLM (encrypted)"
        case let .eddystoneEID(eid, _):
            return "Eddystone-EID \(hex(eid, separator: ""))"
        case let .uriBeacon(url, _, _):
            return "UriBeacon \(url)"
        case let .altBeacon(_, id1, id2, id3, rssi, _):
            return "AltBeacon \(id1.canonical.prefix(8))… \(id2)/\(id3) @1m \(rssi)"
        case let .malformed(kind):
            return "\(kind) (malformed)"
        }
    }

    /// The whole of it in one line (`scan --json`'s frames, `decode`): every identifier
    /// whole.
    public var text: String {
        switch self {
        case let .iBeacon(uuid, major, minor, power):
            return "iBeacon \(uuid.canonical.uppercased()) major \(major) minor \(minor), \(power) dBm at 1 m"
        case let .eddystoneUID(ns, inst, tx):
            return "Eddystone-UID namespace \(hex(ns, separator: "")) instance \(hex(inst, separator: "")), \(tx) dBm at 0 m"
        case let .eddystoneURL(url, tx):
            return "Eddystone-URL \(url), \(tx) dBm at 0 m"
        case let .eddystoneTLM(mv, temp, count, uptime):
            let t = temp.map { "\(formatFixed($0, 2)) °C" } ?? "no temperature"
            return "Eddystone-TLM \(mv) mV, \(t), \(count) frames sent, up \(formatFixed(Double(uptime) / 10, 1)) s"
        case let .eddystoneEncryptedTLM(data, _, _):
            return "Eddystone-eTLM encrypted telemetry (\(data.count) bytes)"
        case let .eddystoneEID(eid, tx):
            return "Eddystone-EID \(hex(eid, separator: "")), \(tx) dBm at 0 m"
        case let .uriBeacon(url, tx, _):
            return "UriBeacon \(url), \(tx) dBm at 0 m"
        case let .altBeacon(company, id1, id2, id3, rssi, _):
            return "AltBeacon \(id1.canonical.uppercased()) \(id2)/\(id3), \(rssi) dBm at 1 m, company 0x\(hex4(company).uppercased())"
        case let .malformed(kind):
            return "\(kind) (malformed)"
        }
    }

    /// `3d 4h`, `12 min`, `40 s`: an uptime in tenths of a second, roughly.
    static func uptime(_ tenths: UInt32) -> String {
        let s = Int(tenths / 10)
        if s >= 86_400 { return "\(s / 86_400)d \(s % 86_400 / 3_600)h" }
        if s >= 3_600 { return "\(s / 3_600)h \(s % 3_600 / 60)min" }
        if s >= 60 { return "\(s / 60) min" }
        return "\(s) s"
    }

    /// The beacon's fields for programs (`scan --json`): every field whole, numbers as
    /// numbers, `kind` first.
    public var fields: [DecodedValue.Field] {
        func n(_ v: Int) -> JSONValue { .number(Double(v)) }
        switch self {
        case let .iBeacon(uuid, major, minor, power):
            return [.init("kind", .string("ibeacon")), .init("uuid", .string(uuid.canonical)), .init("major", n(Int(major))),
                    .init("minor", n(Int(minor))), .init("power", n(power))]
        case let .eddystoneUID(ns, inst, tx):
            return [.init("kind", .string("eddystone-uid")), .init("namespace", .string(hex(ns, separator: ""))),
                    .init("instance", .string(hex(inst, separator: ""))), .init("txPower", n(tx))]
        case let .eddystoneURL(url, tx):
            return [.init("kind", .string("eddystone-url")), .init("url", .string(url)), .init("txPower", n(tx))]
        case let .eddystoneTLM(mv, temp, count, uptime):
            return [.init("kind", .string("eddystone-tlm")), .init("batteryMillivolts", n(mv)),
                    .init("celsius", temp.map { .number($0) } ?? .null), .init("advCount", n(Int(count))),
                    .init("uptimeSeconds", .number(Double(uptime) / 10)), .init("uptimeTenths", n(Int(uptime)))]
        case let .eddystoneEncryptedTLM(data, salt, mic):
            return [.init("kind", .string("eddystone-etlm")), .init("encrypted", .bool(true)),
                    .init("data", .string(hex(data, separator: ""))), .init("salt", salt.map { n(Int($0)) } ?? .null),
                    .init("mic", mic.map { n(Int($0)) } ?? .null)]
        case let .eddystoneEID(eid, tx):
            return [.init("kind", .string("eddystone-eid")), .init("eid", .string(hex(eid, separator: ""))), .init("txPower", n(tx))]
        case let .uriBeacon(url, tx, flags):
            return [.init("kind", .string("uribeacon")), .init("url", .string(url)), .init("txPower", n(tx)),
                    .init("flags", n(Int(flags)))]
        case let .altBeacon(company, id1, id2, id3, rssi, reserved):
            return [.init("kind", .string("altbeacon")), .init("company", n(Int(company))), .init("id1", .string(id1.canonical)),
                    .init("id2", n(Int(id2))), .init("id3", n(Int(id3))), .init("referenceRSSI", n(rssi)),
                    .init("reserved", reserved.map { n(Int($0)) } ?? .null)]
        case let .malformed(kind):
            return [.init("kind", .string(kind)), .init("malformed", .bool(true))]
        }
    }

    /// The company whose manufacturer data carries this beacon (the scan list shows the
    /// beacon instead of the company).
    public var carrier: UInt16? {
        switch self {
        case .iBeacon, .malformed(kind: "iBeacon"): return 0x004C
        case let .altBeacon(company, _, _, _, _, _): return company
        default: return nil
        }
    }

    /// What names the emitter whatever address it uses: a beacon that rotates its random
    /// address keeps this (`AppState.sameEmitter`). Nil for frames that change by design
    /// (TLM, EID) or say nothing of who sends them.
    public var identity: String? {
        switch self {
        case let .iBeacon(uuid, major, minor, _): return "ibeacon \(uuid.canonical) \(major) \(minor)"
        case let .altBeacon(company, id1, id2, id3, _, _): return "altbeacon \(company) \(id1.canonical) \(id2) \(id3)"
        case let .eddystoneUID(ns, inst, _): return "eddystone-uid \(hex(ns, separator: "")) \(hex(inst, separator: ""))"
        case let .eddystoneURL(url, _): return "eddystone-url \(url)"
        case let .uriBeacon(url, _, _): return "uribeacon \(url)"
        default: return nil
        }
    }

    /// The service whose data carries this beacon.
    public var service: BLEUUID? {
        switch self {
        case .eddystoneUID, .eddystoneURL, .eddystoneTLM, .eddystoneEncryptedTLM, .eddystoneEID: return Self.eddystoneService
        case .uriBeacon, .malformed(kind: "UriBeacon"): return Self.uriBeaconService
        case .malformed(let kind) where kind.hasPrefix("Eddystone"): return Self.eddystoneService
        default: return nil
        }
    }
}
