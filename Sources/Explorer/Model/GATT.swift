public struct CharacteristicProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let broadcast = Self(rawValue: 1 << 0)
    public static let read = Self(rawValue: 1 << 1)
    public static let writeWithoutResponse = Self(rawValue: 1 << 2)
    public static let write = Self(rawValue: 1 << 3)
    public static let notify = Self(rawValue: 1 << 4)
    public static let indicate = Self(rawValue: 1 << 5)
    public static let authenticatedSignedWrites = Self(rawValue: 1 << 6)
    public static let reliableWrite = Self(rawValue: 1 << 7)

    /// Names as BlueZ spells them in GattCharacteristic1.Flags, in display order.
    public static let names: [(Self, String)] = [
        (.read, "read"), (.write, "write"), (.writeWithoutResponse, "write-without-response"),
        (.notify, "notify"), (.indicate, "indicate"), (.broadcast, "broadcast"),
        (.authenticatedSignedWrites, "authenticated-signed-writes"), (.reliableWrite, "reliable-write"),
    ]

    public init(flags: [String]) {
        var p: Self = []
        for f in flags { if let m = Self.names.first(where: { $0.1 == f }) { p.insert(m.0) } }
        self = p
    }

    public var flagNames: [String] { Self.names.filter { contains($0.0) }.map(\.1) }

    /// Compact form for narrow columns: `R W Wn N I`.
    public var short: String {
        var parts: [String] = []
        if contains(.read) { parts.append("read") }
        if contains(.write) { parts.append("write") }
        if contains(.writeWithoutResponse) { parts.append("write-no-rsp") }
        if contains(.notify) { parts.append("notify") }
        if contains(.indicate) { parts.append("indicate") }
        return parts.joined(separator: " ")
    }

    public var canSubscribe: Bool { contains(.notify) || contains(.indicate) }

    /// It indicates and does not notify: its values arrive as indications (BlueZ
    /// subscribes with notifications when it can do both).
    public var indicatesOnly: Bool { contains(.indicate) && !contains(.notify) }
}

public struct GATTDescriptor: Equatable, Sendable, Identifiable {
    public var id: AttributeID
    public var uuid: BLEUUID
    /// Its flags (BlueZ: GattDescriptor1.Flags) allow a write.
    public var writable: Bool
    public init(id: AttributeID, uuid: BLEUUID, writable: Bool = false) {
        self.id = id; self.uuid = uuid; self.writable = writable
    }

    /// The flags BlueZ spells that allow a write.
    public static let writeFlags: Set<String> = ["write", "encrypt-write", "encrypt-authenticated-write", "secure-write"]

    /// Whether a remote descriptor takes a write: its GattDescriptor1.Flags when BlueZ gives
    /// them; without them (none, or empty: ATT has no way to ask a peer for a descriptor's
    /// permissions, and BlueZ 5.66 gives none), what the Core Specification says:
    /// 0x2900 and 0x2904 are read-only (and the CCCD 0x2902 is notify's), 0x2901 is writable when the characteristic says
    /// writable-auxiliaries, anything else is left to the device to answer.
    public static func writable(_ uuid: BLEUUID, flags: [String]?, characteristicFlags: [String]) -> Bool {
        if let flags, !flags.isEmpty { return flags.contains { writeFlags.contains($0) } }
        switch uuid {
        case "2900", "2904": return false
        case "2902": return false   // notify's: never written here
        case "2901": return characteristicFlags.contains("writable-auxiliaries")
        default: return true
        }
    }

    /// The descriptors read by their UUID, parsed once: a literal is parsed again at every
    /// comparison, and a recorded notification names its characteristic by its 0x2901.
    public static let userDescriptionUUID: BLEUUID = "2901"
    public static let presentationFormatUUID: BLEUUID = "2904"

    /// The CCCD (0x2902) is notify's: it is never written here.
    public var isClientConfiguration: Bool { uuid == "2902" }
    /// Written by `write --descriptor` and `D` in the app.
    public var canWrite: Bool { writable && !isClientConfiguration }
}

public struct GATTCharacteristic: Equatable, Sendable, Identifiable {
    public var id: CharacteristicID
    public var uuid: BLEUUID
    public var properties: CharacteristicProperties
    public var descriptors: [GATTDescriptor]
    public init(id: CharacteristicID, uuid: BLEUUID, properties: CharacteristicProperties,
                descriptors: [GATTDescriptor] = []) {
        self.id = id; self.uuid = uuid; self.properties = properties; self.descriptors = descriptors
    }
}

public struct GATTService: Equatable, Sendable, Identifiable {
    public var id: AttributeID
    public var uuid: BLEUUID
    public var isPrimary: Bool
    public var characteristics: [GATTCharacteristic]
    public init(id: AttributeID, uuid: BLEUUID, isPrimary: Bool = true, characteristics: [GATTCharacteristic]) {
        self.id = id; self.uuid = uuid; self.isPrimary = isPrimary; self.characteristics = characteristics
    }
}
