#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// What a peripheral says about itself while advertising. Everything here is untrusted:
/// it arrives from any device in radio range.
public struct Advertisement: Equatable, Sendable {
    public var localName: String?
    public var serviceUUIDs: [BLEUUID]
    /// Keyed by Bluetooth SIG company identifier (0x004C Apple, ...).
    public var manufacturerData: ManufacturerData
    public var serviceData: [BLEUUID: Bytes]
    public var txPower: Int?
    public var flags: UInt8?
    public var appearance: UInt16?

    public init(localName: String? = nil, serviceUUIDs: [BLEUUID] = [],
                manufacturerData: ManufacturerData = [:], serviceData: [BLEUUID: Bytes] = [:],
                txPower: Int? = nil, flags: UInt8? = nil, appearance: UInt16? = nil) {
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.txPower = txPower
        self.flags = flags
        self.appearance = appearance
    }

    /// Beacon formats found in this advertisement.
    public var beacon: Beacon? { Beacon.decode(self) }

    /// Later reports only carry what changed (BlueZ sends property changes): merge them.
    public mutating func merge(_ other: Advertisement) {
        if let n = other.localName { localName = n }
        if !other.serviceUUIDs.isEmpty { serviceUUIDs = other.serviceUUIDs }
        // One company or none in a report: a plain loop costs half what `merge` does, and
        // none at all when there is nothing to merge (most reports carry no service data).
        if !other.manufacturerData.isEmpty {
            for (company, data) in other.manufacturerData { manufacturerData[company] = data }
        }
        if !other.serviceData.isEmpty {
            for (uuid, data) in other.serviceData { serviceData[uuid] = data }
        }
        if let t = other.txPower { txPower = t }
        if let f = other.flags { flags = f }
        if let a = other.appearance { appearance = a }
    }
}

public enum Beacon: Equatable, Sendable {
    case iBeacon(uuid: BLEUUID, major: UInt16, minor: UInt16, measuredPower: Int)
    case eddystoneUID(namespace: Bytes, instance: Bytes, txPower: Int)
    case eddystoneURL(url: String, txPower: Int)
    case eddystoneTLM(batteryMillivolts: Int, temperature: Double?, advCount: UInt32, uptimeTenths: UInt32)
    /// Ephemeral ID: 8 bytes that rotate; only the owner's resolver knows whose it is.
    case eddystoneEID(eid: Bytes, txPower: Int)
    /// AltBeacon (Radius Networks' open format): manufacturer data of any company, beacon
    /// code 0xBEAC, a 20-byte ID (shown as a UUID and two 16-bit numbers, as the
    /// reference library does), reference RSSI at 1 m, one byte for the manufacturer.
    case altBeacon(company: UInt16, id1: BLEUUID, id2: UInt16, id3: UInt16, referenceRSSI: Int, reserved: UInt8)
    case malformed(kind: String)

    static let eddystoneService: BLEUUID = "FEAA"

    public static func decode(_ adv: Advertisement) -> Beacon? {
        if let apple = adv.manufacturerData[0x004C], apple.count >= 2, apple[0] == 0x02, apple[1] == 0x15 {
            guard apple.count >= 23 else { return .malformed(kind: "iBeacon") }
            let uuid = BLEUUID(bigEndianBytes: apple[2..<18])
            return .iBeacon(uuid: uuid, major: be16(apple, 18), minor: be16(apple, 20),
                            measuredPower: Int(Int8(bitPattern: apple[22])))
        }
        for company in adv.manufacturerData.keys.sorted() {
            guard let d = adv.manufacturerData[company], d.count >= 2, d[0] == 0xBE, d[1] == 0xAC else { continue }
            guard d.count >= 24 else { return .malformed(kind: "AltBeacon") }
            return .altBeacon(company: company, id1: BLEUUID(bigEndianBytes: d[2..<18]), id2: be16(d, 18),
                              id3: be16(d, 20), referenceRSSI: Int(Int8(bitPattern: d[22])), reserved: d[23])
        }
        if let ed = adv.serviceData[eddystoneService], let frame = ed.first {
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
        return nil
    }

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
        case let .eddystoneTLM(mv, temp, _, _):
            let t = temp.map { " \(formatFixed($0, 1))°C" } ?? ""
            return "Eddystone-TLM \(mv) mV\(t)"
        case let .eddystoneEID(eid, _):
            return "Eddystone-EID \(hex(eid, separator: ""))"
        case let .altBeacon(_, id1, id2, id3, rssi, _):
            return "AltBeacon \(id1.canonical.prefix(8))… \(id2)/\(id3) @1m \(rssi)"
        case let .malformed(kind):
            return "\(kind) (malformed)"
        }
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
                    .init("uptimeSeconds", .number(Double(uptime) / 10))]
        case let .eddystoneEID(eid, tx):
            return [.init("kind", .string("eddystone-eid")), .init("eid", .string(hex(eid, separator: ""))), .init("txPower", n(tx))]
        case let .altBeacon(company, id1, id2, id3, rssi, reserved):
            return [.init("kind", .string("altbeacon")), .init("company", n(Int(company))), .init("id1", .string(id1.canonical)),
                    .init("id2", n(Int(id2))), .init("id3", n(Int(id3))), .init("referenceRSSI", n(rssi)),
                    .init("reserved", n(Int(reserved)))]
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
}


func be16(_ b: Bytes, _ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
func be32(_ b: Bytes, _ i: Int) -> UInt32 {
    UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
}
func le16(_ b: Bytes, _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }

/// Eddystone-URL: a scheme byte, then text where bytes 0x00-0x0D expand to TLDs.
func expandEddystoneURL(scheme: UInt8, encoded: ArraySlice<UInt8>) -> String? {
    let schemes = ["http://www.", "https://www.", "http://", "https://"]
    let codes = [".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
                 ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov"]
    guard Int(scheme) < schemes.count, encoded.count <= 17 else { return nil }
    var url = schemes[Int(scheme)]
    for b in encoded {
        if Int(b) < codes.count { url += codes[Int(b)] }
        else if b > 0x20 && b < 0x7F { url.append(Character(Unicode.Scalar(b))) }
        else { return nil }
    }
    return url
}

/// `01 ff 3a` (or with another separator).
public func hex(_ bytes: some Collection<UInt8>, separator: String = " ") -> String {
    let digits = Array("0123456789abcdef")
    var out = ""
    out.reserveCapacity(bytes.count * (2 + separator.count))
    var first = true
    for b in bytes {
        if !first { out += separator }
        first = false
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0x0F)])
    }
    return out
}

/// `004c`: a 16-bit value as four lowercase hex digits (company ids, handles).
public func hex4(_ v: UInt16) -> String {
    let h = String(v, radix: 16)
    return String(repeating: "0", count: 4 - h.count) + h
}

/// Fixed-point formatting without Foundation: `formatFixed(21.456, 2) == "21.46"`.
public func formatFixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "NaN" : (value > 0 ? "+inf" : "-inf") }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 1e17 else { return value > 0 ? "\(value)" : "\(value)" }
    let n = Int64(scaled)
    let intPart = n / Int64(scale)
    var frac = String(n % Int64(scale))
    while frac.count < decimals { frac = "0" + frac }
    let sign = value < 0 && n != 0 ? "-" : ""
    return decimals == 0 ? "\(sign)\(intPart)" : "\(sign)\(intPart).\(frac)"
}
