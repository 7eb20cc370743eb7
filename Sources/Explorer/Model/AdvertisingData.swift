/// Raw advertising and scan-response payloads (Core Specification Supplement, Part A):
/// a run of `length, type, data` structures. BlueZ hands bleexplr these already split
/// into properties; this parser is for raw payloads (HCI captures, other backends) and
/// is what the fuzz target feeds first. A structure that runs past the end is dropped
/// and reported; a zero length ends the payload (the rest is padding).
public enum AdvertisingData {
    public struct Parsed: Equatable, Sendable {
        public var advertisement: Advertisement
        /// Why parsing stopped early, if it did ("malformed: ...").
        public var malformed: String?
    }

    /// One AD structure as it came: where it starts, its type and its data.
    public struct Structure: Equatable, Sendable {
        public var offset: Int
        public var type: UInt8
        public var data: Bytes
        /// The Assigned Numbers name of the type ("Complete Local Name"), if it has one.
        public var typeName: String? { AdvertisingData.typeNames[type] }
    }

    /// The structures of a payload, in order, up to padding or one that runs past the end
    /// (`parse` says which).
    public static func structures(_ b: Bytes) -> [Structure] {
        var out: [Structure] = []
        var i = 0
        while i < b.count {
            let length = Int(b[i])
            guard length > 0, i + 1 + length <= b.count else { break }
            out.append(Structure(offset: i, type: b[i + 1], data: Array(b[(i + 2)..<(i + 1 + length)])))
            i += 1 + length
        }
        return out
    }

    /// An advertisement as AD structures again, from the properties a stack hands over
    /// (BlueZ splits what it hears into Device1 properties and keeps no raw bytes): flags,
    /// name, UUID lists, TX power, appearance, service data, manufacturer data, each as its
    /// type and bytes would read on the air. Advertising and scan response cannot be told
    /// apart from BlueZ's properties, so they come as one.
    public static func structures(of adv: Advertisement) -> [Structure] {
        var out: [Structure] = []
        var offset = 0
        func add(_ type: UInt8, _ data: Bytes) {
            out.append(Structure(offset: offset, type: type, data: data))
            offset += 2 + data.count
        }
        func le(_ v: UInt16) -> Bytes { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        /// 2, 4 or 16 bytes, little-endian, as the air carries a UUID.
        func air(_ u: BLEUUID) -> Bytes {
            if let v = u.shortValue {
                let bytes = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
                return v <= 0xFFFF ? Array(bytes.prefix(2)) : bytes
            }
            let digits = Array(u.canonical.filter { $0 != "-" })
            return stride(from: 30, through: 0, by: -2).map { UInt8(String(digits[$0..<$0 + 2]), radix: 16)! }
        }
        /// The UUID list and service-data types for each width (Core Supplement, part A 1.1, 1.11).
        func width(_ u: BLEUUID) -> Int { air(u).count }
        if let f = adv.flags { add(0x01, [f]) }
        if let n = adv.localName { add(0x09, Array(n.utf8)) }
        for (w, type) in [(2, UInt8(0x03)), (4, 0x05), (16, 0x07)] {
            let list = adv.serviceUUIDs.filter { width($0) == w }
            if !list.isEmpty { add(type, list.flatMap(air)) }
        }
        if let t = adv.txPower { add(0x0A, [UInt8(bitPattern: Int8(clamping: t))]) }
        if let a = adv.appearance { add(0x19, le(a)) }
        for u in adv.serviceData.keys.sorted(by: { $0.canonical < $1.canonical }) {
            let type: UInt8 = width(u) == 2 ? 0x16 : width(u) == 4 ? 0x20 : 0x21
            add(type, air(u) + adv.serviceData[u]!)
        }
        for c in adv.manufacturerData.keys.sorted() { add(0xFF, le(c) + adv.manufacturerData[c]!) }
        return out
    }

    /// Assigned Numbers, "Common Data Types".
    public static let typeNames: [UInt8: String] = [
        0x01: "Flags", 0x02: "Incomplete List of 16-bit Service UUIDs", 0x03: "Complete List of 16-bit Service UUIDs",
        0x04: "Incomplete List of 32-bit Service UUIDs", 0x05: "Complete List of 32-bit Service UUIDs",
        0x06: "Incomplete List of 128-bit Service UUIDs", 0x07: "Complete List of 128-bit Service UUIDs",
        0x08: "Shortened Local Name", 0x09: "Complete Local Name", 0x0A: "Tx Power Level", 0x0D: "Class of Device",
        0x0E: "Simple Pairing Hash C-192", 0x0F: "Simple Pairing Randomizer R-192", 0x10: "Device ID / Security Manager TK Value",
        0x11: "Security Manager Out of Band Flags", 0x12: "Peripheral Connection Interval Range",
        0x14: "List of 16-bit Service Solicitation UUIDs", 0x15: "List of 128-bit Service Solicitation UUIDs",
        0x16: "Service Data - 16-bit UUID", 0x17: "Public Target Address", 0x18: "Random Target Address", 0x19: "Appearance",
        0x1A: "Advertising Interval", 0x1B: "LE Bluetooth Device Address", 0x1C: "LE Role",
        0x1D: "Simple Pairing Hash C-256", 0x1E: "Simple Pairing Randomizer R-256",
        0x1F: "List of 32-bit Service Solicitation UUIDs", 0x20: "Service Data - 32-bit UUID", 0x21: "Service Data - 128-bit UUID",
        0x22: "LE Secure Connections Confirmation Value", 0x23: "LE Secure Connections Random Value", 0x24: "URI",
        0x25: "Indoor Positioning", 0x26: "Transport Discovery Data", 0x27: "LE Supported Features",
        0x28: "Channel Map Update Indication", 0x29: "PB-ADV", 0x2A: "Mesh Message", 0x2B: "Mesh Beacon", 0x2C: "BIGInfo",
        0x2D: "Broadcast_Code", 0x2E: "Resolvable Set Identifier", 0x2F: "Advertising Interval - long",
        0x30: "Broadcast_Name", 0x31: "Encrypted Advertising Data", 0x32: "Periodic Advertising Response Timing Information",
        0x34: "Electronic Shelf Label", 0x3D: "3D Information Data", 0xFF: "Manufacturer Specific Data",
    ]

    public static func parse(_ b: Bytes) -> Parsed {
        var adv = Advertisement()
        var i = 0
        while i < b.count {
            let length = Int(b[i])
            if length == 0 { break }
            guard i + 1 + length <= b.count else {
                return Parsed(advertisement: adv, malformed: "malformed: structure at \(i) needs \(length) bytes, \(b.count - i - 1) left")
            }
            let type = b[i + 1]
            let data = Array(b[(i + 2)..<(i + 1 + length)])
            apply(type, data, to: &adv)
            i += 1 + length
        }
        return Parsed(advertisement: adv, malformed: nil)
    }

    static func apply(_ type: UInt8, _ d: Bytes, to adv: inout Advertisement) {
        switch type {
        case 0x01: if let f = d.first { adv.flags = f }
        case 0x02, 0x03: adv.serviceUUIDs += uuids(d, width: 2)
        case 0x04, 0x05: adv.serviceUUIDs += uuids(d, width: 4)
        case 0x06, 0x07: adv.serviceUUIDs += uuids(d, width: 16)
        case 0x08: if adv.localName == nil { adv.localName = name(d) }
        case 0x09: adv.localName = name(d)
        case 0x0A: if let t = d.first { adv.txPower = Int(Int8(bitPattern: t)) }
        case 0x19: if d.count >= 2 { adv.appearance = le16(d, 0) }
        case 0x16: serviceData(d, width: 2, &adv)
        case 0x20: serviceData(d, width: 4, &adv)
        case 0x21: serviceData(d, width: 16, &adv)
        case 0xFF:
            if d.count >= 2 { adv.manufacturerData[le16(d, 0)] = Array(d[2...]) }
        default: break
        }
    }

    /// A name ends at its first NUL, as BlueZ reads it (devices pad names with zeros).
    static func name(_ d: Bytes) -> String {
        String(decoding: d.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// UUIDs in little-endian order, as the air carries them; a trailing partial one is dropped.
    static func uuids(_ d: Bytes, width: Int) -> [BLEUUID] {
        stride(from: 0, to: d.count - width + 1, by: width).map { uuid(d[$0..<$0 + width]) }
    }

    static func uuid(_ s: ArraySlice<UInt8>) -> BLEUUID {
        if s.count == 16 { return BLEUUID(bigEndianBytes: ArraySlice(s.reversed())) }
        var v: UInt32 = 0
        for byte in s.reversed() { v = v << 8 | UInt32(byte) }
        return BLEUUID(short: v)
    }

    static func serviceData(_ d: Bytes, width: Int, _ adv: inout Advertisement) {
        guard d.count >= width else { return }
        adv.serviceData[uuid(d[0..<width])] = Array(d[width...])
    }
}
