/// Apple's manufacturer data (company 0x004C) when it is not an iBeacon: Continuity
/// messages, a list of TLVs (type byte, length byte, payload). Apple publishes none of
/// this; the type numbers and names are those of the public reverse-engineering work:
/// Martin et al., "Handoff All Your Privacy" (PETS 2019) with its message notes
/// (furiousMAC/continuity), Celosia & Cunche, "Discontinued Privacy" (PETS 2020), and for
/// Find My, Heinrich et al., "Who Can Find My Devices?" (PETS 2021).
///
/// Each TLV is shown by its type and length, and nothing more: the payload fields those
/// write-ups describe are partly guesses ("not sure what this is") and change between iOS
/// releases, so naming, say, the Nearby Info action nibble would be a claim this decoder
/// cannot back. The one layout detail taken is public: Apple's HomeKit Accessory Protocol
/// specification gives HomeKit's length byte as subtype (3 high bits) and length (5 low).
enum AppleContinuity {
    static let company: UInt16 = 0x004C

    /// iBeacon is type 0x02 (02 15 …); it is decoded with the other beacons, so its TLV is
    /// skipped here, whole or cut short.
    static let iBeaconType: UInt8 = 0x02
    static let homeKitType: UInt8 = 0x06

    static let names: [UInt8: String] = [
        0x03: "AirPrint",
        0x05: "AirDrop",
        0x06: "HomeKit",
        0x07: "Proximity Pairing (AirPods)",
        0x08: "Hey Siri",
        0x09: "AirPlay Target",
        0x0A: "AirPlay Source",
        0x0B: "Magic Switch",
        0x0C: "Handoff",
        0x0D: "Tethering Target",
        0x0E: "Tethering Source",
        0x0F: "Nearby Action",
        0x10: "Nearby Info",
        0x12: "Find My (offline finding)",
    ]

    /// Every TLV in the entry, in order, iBeacon left out. A TLV whose length runs past
    /// the entry ends the list with a malformed value (what came before it stands),
    /// except after an iBeacon: vendors that ride on iBeacon append bytes of their own
    /// (Jaalee a battery byte), and those belong to the beacon's display, not to Continuity.
    static func decode(_ data: Bytes) -> [DecodedValue] {
        var out: [DecodedValue] = []
        var i = 0
        var afterIBeacon = false
        while i < data.count {
            let type = data[i]
            guard i + 1 < data.count else {
                if type != iBeaconType && !afterIBeacon {
                    out.append(.malformed("Apple Continuity", because: "type \(hexByte(type)) without a length byte"))
                }
                break
            }
            let declared = data[i + 1]
            let length = type == homeKitType ? Int(declared & 0x1F) : Int(declared)
            let start = i + 2
            guard length <= data.count - start else {
                if type != iBeaconType && !afterIBeacon {
                    out.append(.malformed("Apple Continuity", because:
                        "type \(hexByte(type)) declares \(length) bytes, \(data.count - start) follow"))
                }
                break
            }
            if type == iBeaconType {
                afterIBeacon = true
            } else {
                out.append(message(type, declared: declared, payload: data[start..<(start + length)]))
            }
            i = start + length
        }
        return out
    }

    static func message(_ type: UInt8, declared: UInt8, payload: ArraySlice<UInt8>) -> DecodedValue {
        let name = names[type]
        let text = (name.map { "Apple \($0)" } ?? "Apple Continuity type \(hexByte(type))") + " (len \(payload.count))"
        var fields: [DecodedValue.Field] = [
            .kind("apple-continuity"), .int("type", type), .init("name", name.map { .string($0) } ?? .null),
            .int("length", payload.count),
        ]
        if type == homeKitType { fields.append(.int("subtype", declared >> 5)) }
        fields.append(.bytes("payload", payload))
        return DecodedValue(text, fields)
    }
}
