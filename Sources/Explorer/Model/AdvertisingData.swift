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
        case 0x08: if adv.localName == nil { adv.localName = String(decoding: d, as: UTF8.self) }
        case 0x09: adv.localName = String(decoding: d, as: UTF8.self)
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
