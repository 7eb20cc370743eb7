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
