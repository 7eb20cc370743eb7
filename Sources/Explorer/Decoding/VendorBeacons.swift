/// Microsoft's beacons in manufacturer data 0x0006, from Microsoft's public documents.
/// The first byte is the scenario: 0x03 Swift Pair ("Swift Pair", Windows hardware design
/// guidelines), 0x01 the Connected Devices Platform beacon ([MS-CDP] 2.2.2.2.3, "Bluetooth:
/// Advertising Beacon"). Other scenarios are not decoded.
enum MicrosoftBeacon {
    static let company: UInt16 = 0x0006

    /// nil for a scenario this decoder does not know.
    static func decode(_ b: Bytes) -> DecodedValue? {
        switch b.first {
        case 0x03?: return swiftPair(b)
        case 0x01?: return cdp(b)
        default: return nil
        }
    }

    /// Swift Pair: 0x03, sub-scenario, a reserved byte (0x80, "reserved RSSI"), then by
    /// sub-scenario: 0x00 pairing over LE, the display name; 0x01 pairing over BR/EDR, the
    /// BR/EDR address (6 bytes), the classic device icon (Class of Device, 3 bytes), the
    /// name; 0x02 LE and BR/EDR, the icon, the name. The name is optional UTF-8 to the end.
    static func swiftPair(_ b: Bytes) -> DecodedValue? {
        guard b.count >= 3 else { return .malformed("Swift Pair", b) }
        let sub = b[1]
        var fields: [DecodedValue.Field] = [.kind("swift-pair"), .int("subScenario", sub)]
        var parts = ["Swift Pair"]
        var nameStart: Int?
        switch sub {
        case 0x00:
            parts.append("LE")
            nameStart = 3
        case 0x01:
            guard b.count >= 12 else { return .malformed("Swift Pair", b) }
            parts.append("BR/EDR")
            // Bluetooth addresses travel least significant byte first.
            fields.append(.string("address", macText(b[3..<9].reversed())))
            fields.append(.int("classOfDevice", UInt32(b[9]) | UInt32(b[10]) << 8 | UInt32(b[11]) << 16))
            nameStart = 12
        case 0x02:
            guard b.count >= 6 else { return .malformed("Swift Pair", b) }
            parts.append("LE and BR/EDR")
            fields.append(.int("classOfDevice", UInt32(b[3]) | UInt32(b[4]) << 8 | UInt32(b[5]) << 16))
            nameStart = 6
        default:
            parts.append("sub-scenario \(hexByte(sub))")
        }
        if let start = nameStart, start < b.count {
            parts.append(quotedName(b[start...]))
            fields.append(.string("name", rawName(b[start...])))
        }
        return DecodedValue(parts.joined(separator: " · "), fields)
    }

    /// [MS-CDP] device types (section 2.2.2.2.2).
    static let deviceTypes: [UInt8: String] = [
        1: "Xbox One", 6: "Apple iPhone", 7: "Apple iPad", 8: "Android device", 9: "Windows 10 Desktop",
        11: "Windows 10 Phone", 12: "Linux device", 13: "Windows IoT", 14: "Surface Hub", 15: "Windows laptop",
        16: "Windows tablet",
    ]

    /// CDP: 0x01, version (3 high bits) and device type (5 low bits), version and flags
    /// (low 5 bits 00001: Nearby Share open to everyone), flags and device status (0x20: the
    /// Bluetooth address can serve as device id; low nibble: extended device status), a
    /// 4-byte salt, then the salted device hash.
    static func cdp(_ b: Bytes) -> DecodedValue {
        guard b.count >= 8 else { return .malformed("Microsoft CDP beacon", b) }
        let version = b[1] >> 5, type = b[1] & 0x1F
        let typeName = deviceTypes[type]
        let everyone = b[2] & 0x1F == 0x01
        var text = "Microsoft CDP · " + (typeName ?? "device type \(type)") + " · v\(version)"
        if everyone { text += " · Nearby Share: everyone" }
        return DecodedValue(text, [
            .kind("microsoft-cdp"), .int("version", version), .int("deviceType", type),
            .init("deviceTypeName", typeName.map { .string($0) } ?? .null),
            .bool("nearbyShareEveryone", everyone), .bool("bluetoothAddressAsDeviceID", b[3] & 0x20 != 0),
            .int("deviceStatus", b[3] & 0x0F), .bytes("salt", b[4..<8]), .bytes("deviceHash", b[8...]),
        ])
    }
}

/// Google Fast Pair service data 0xFE2C ("Fast Pair: Provider", the advertising signal).
/// Discoverable (pairing mode), the data is the 3-byte model id. Not discoverable, it is
/// account data: a version-and-flags byte (0x00), then fields each led by a byte
/// 0bLLLLTTTT (length, type): the account key filter (type 0: show the pairing UI, 2: hide
/// it), the salt (1), battery levels (3 show, 4 hide). Only the form is a claim: the filter
/// is a Bloom filter over keys the seeker holds, and means nothing without them.
enum FastPair {
    static let service: BLEUUID = "FE2C"

    static let fieldTypes: [UInt8: String] = [
        0: "account key filter (show UI)", 1: "salt", 2: "account key filter (hide UI)",
        3: "battery (show UI)", 4: "battery (hide UI)",
    ]

    static func decode(_ b: Bytes) -> DecodedValue {
        if b.count == 3 {
            let model = be24(b, 0)
            let text = "Fast Pair model 0x" + hex(b, separator: "").uppercased()
            return DecodedValue(text, [.kind("fast-pair"), .string("form", "model-id"), .int("modelID", model)])
        }
        guard let header = b.first, b.count >= 2 else { return .malformed("Fast Pair", b) }
        var fields: [DecodedValue.Field] = [.kind("fast-pair"), .string("form", "account-key"), .int("version", header >> 4),
                                            .int("flags", header & 0x0F)]
        // Only version 0 is specified; a later one keeps its bytes to itself.
        guard header >> 4 == 0 else {
            return DecodedValue("Fast Pair account data, version \(header >> 4) (not decoded)", fields + [.bytes("data", b.dropFirst())])
        }
        var i = 1
        var listed: [JSONValue] = []
        var names: [String] = []
        while i < b.count {
            let length = Int(b[i] >> 4), type = b[i] & 0x0F
            guard length <= b.count - i - 1 else {
                return .malformed("Fast Pair", because: "field type \(type) declares \(length) bytes, \(b.count - i - 1) follow")
            }
            let value = b[(i + 1)..<(i + 1 + length)]
            listed.append(.object(["type": .number(Double(type)), "value": .string(hex(value, separator: ""))]))
            names.append(fieldTypes[type] ?? "field type \(type)")
            i += 1 + length
        }
        fields.append(.init("fields", .array(listed)))
        let empty = b.count == 2 && b[1] == 0
        let text = "Fast Pair account data (not discoverable)" + (empty ? " · no account keys" : " · " + names.joined(separator: ", "))
        return DecodedValue(text, fields)
    }
}

/// Exposure Notification service data 0xFD6F (Apple and Google, "Exposure Notification:
/// Bluetooth Specification" v1.2): a 16-byte Rolling Proximity Identifier and 4 bytes of
/// Associated Encrypted Metadata (version and transmit power, readable only with the
/// day's key). Shown as they are, the metadata flagged encrypted.
enum ExposureNotification {
    static let service: BLEUUID = "FD6F"

    static func decode(_ b: Bytes) -> DecodedValue {
        guard b.count == 20 else { return .malformed("Exposure Notification", b) }
        let rpi = b[0..<16], metadata = b[16..<20]
        return DecodedValue("Exposure Notification · RPI \(hex(rpi, separator: "")) · metadata \(hex(metadata, separator: "")) (encrypted)", [
            .kind("exposure-notification"), .bytes("rpi", rpi), .bytes("metadata", metadata), .bool("encrypted", true),
        ])
    }
}
