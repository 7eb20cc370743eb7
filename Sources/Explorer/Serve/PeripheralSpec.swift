/// What `bleexplr serve` plays: an advertisement and a GATT tree with initial values
/// (docs/serve.md). Read from a JSON file, or made from a recorded device (`--clone`).
public struct PeripheralSpec: Equatable, Sendable {
    public var localName: String?
    public var advertisedServices: [BLEUUID]
    public var manufacturerData: [UInt16: Bytes]
    public var serviceData: [BLEUUID: Bytes]
    public var services: [ServiceSpec]

    public init(localName: String?, advertisedServices: [BLEUUID] = [], manufacturerData: [UInt16: Bytes] = [:],
                serviceData: [BLEUUID: Bytes] = [:], services: [ServiceSpec]) {
        self.localName = localName; self.advertisedServices = advertisedServices
        self.manufacturerData = manufacturerData; self.serviceData = serviceData; self.services = services
    }

    public struct ReadError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The characteristic flags BlueZ accepts (GattCharacteristic1.Flags).
    public static let characteristicFlags: Set<String> = [
        "broadcast", "read", "write-without-response", "write", "notify", "indicate", "authenticated-signed-writes",
        "extended-properties", "reliable-write", "writable-auxiliaries", "encrypt-read", "encrypt-write",
        "encrypt-authenticated-read", "encrypt-authenticated-write", "secure-read", "secure-write", "authorize",
    ]
    public static let descriptorFlags: Set<String> = [
        "read", "write", "encrypt-read", "encrypt-write", "encrypt-authenticated-read", "encrypt-authenticated-write",
        "secure-read", "secure-write", "authorize",
    ]

    public static func parse(_ text: String) throws(ReadError) -> PeripheralSpec {
        let v: JSONValue
        do { v = try JSONValue.parse(text) } catch { throw ReadError(description: "not JSON: \(error)") }
        guard v.object != nil else { throw ReadError(description: "the spec is a JSON object (see docs/serve.md)") }
        var spec = PeripheralSpec(localName: try optionalString(v, "name", "name"), services: [])
        if let name = spec.localName, name.utf8.count > 29 { throw ReadError(description: "name: at most 29 bytes") }
        // Every central that scans shows the name: no control character (TerminalSafe's rule).
        if let bad = spec.localName?.unicodeScalars.first(where: TerminalSafe.isUnsafe) {
            let hex = String(bad.value, radix: 16, uppercase: true)
            throw ReadError(description: "name: no control characters (it has U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex))")
        }
        guard let services = v["services"]?.array, !services.isEmpty else {
            throw ReadError(description: "services: a list of at least one service")
        }
        for (i, s) in services.enumerated() { spec.services.append(try service(s, "services[\(i)]")) }
        if let adv = v["advertise"] {
            guard adv.object != nil else { throw ReadError(description: "advertise: an object") }
            spec.advertisedServices = try uuids(adv["serviceUUIDs"], "advertise.serviceUUIDs")
            for (k, value) in adv["manufacturerData"]?.object ?? [:] {
                guard let company = UInt16(k.hasPrefix("0x") ? String(k.dropFirst(2)) : k, radix: 16) else {
                    throw ReadError(description: "advertise.manufacturerData: '\(k)' is not a company id like 004c")
                }
                spec.manufacturerData[company] = try bytes(value, "advertise.manufacturerData.\(k)")
            }
            for (k, value) in adv["serviceData"]?.object ?? [:] {
                guard let u = BLEUUID(k) else { throw ReadError(description: "advertise.serviceData: '\(k)' is not a UUID") }
                spec.serviceData[u] = try bytes(value, "advertise.serviceData.\(k)")
            }
        } else {
            spec.advertisedServices = spec.services.filter(\.primary).prefix(1).map(\.uuid)
        }
        guard spec.advertisingSize <= 31 else {
            throw ReadError(description: "the advertisement needs \(spec.advertisingSize) bytes, and holds 31 (flags 3, "
                            + "name 2 + its length, 16-bit UUIDs 2 + 2 each, 128-bit 2 + 16, data 4 + its length): "
                            + "shorten the name or advertise less")
        }
        return spec
    }

    /// Bytes of legacy advertising data this advertisement takes (BlueZ adds the flags).
    public var advertisingSize: Int {
        let short = advertisedServices.filter { ($0.shortValue ?? .max) <= 0xFFFF }.count
        let long = advertisedServices.count - short
        var n = 3 + (localName.map { 2 + $0.utf8.count } ?? 0)
        if short > 0 { n += 2 + 2 * short }
        if long > 0 { n += 2 + 16 * long }
        for (_, v) in manufacturerData { n += 4 + v.count }
        for (k, v) in serviceData { n += 2 + (k.shortValue.map { $0 <= 0xFFFF ? 2 : 16 } ?? 16) + v.count }
        return n
    }

    static func service(_ s: JSONValue, _ at: String) throws(ReadError) -> ServiceSpec {
        guard let uuid = s["uuid"]?.string.flatMap(BLEUUID.init) else { throw ReadError(description: "\(at).uuid: a UUID") }
        var out = ServiceSpec(uuid: uuid, primary: s["primary"]?.bool ?? true, characteristics: [])
        for (i, c) in (s["characteristics"]?.array ?? []).enumerated() {
            let cat = "\(at).characteristics[\(i)]"
            guard let cu = c["uuid"]?.string.flatMap(BLEUUID.init) else { throw ReadError(description: "\(cat).uuid: a UUID") }
            let flags = try strings(c["properties"], "\(cat).properties", allowed: characteristicFlags)
            guard !flags.isEmpty else { throw ReadError(description: "\(cat).properties: at least one, e.g. [\"read\"]") }
            var ch = CharacteristicSpec(uuid: cu, flags: flags, value: try optionalBytes(c["value"], "\(cat).value"))
            for (j, d) in (c["descriptors"]?.array ?? []).enumerated() {
                let dat = "\(cat).descriptors[\(j)]"
                guard let du = d["uuid"]?.string.flatMap(BLEUUID.init) else { throw ReadError(description: "\(dat).uuid: a UUID") }
                guard du != "2902" else { throw ReadError(description: "\(dat): BlueZ makes the 2902 (CCC) descriptor itself") }
                var dflags = ["read"]
                if d["properties"] != nil { dflags = try strings(d["properties"], "\(dat).properties", allowed: descriptorFlags) }
                ch.descriptors.append(DescriptorSpec(uuid: du, flags: dflags, value: try optionalBytes(d["value"], "\(dat).value")))
            }
            out.characteristics.append(ch)
        }
        return out
    }

    static func optionalString(_ v: JSONValue, _ key: String, _ at: String) throws(ReadError) -> String? {
        guard let x = v[key] else { return nil }
        guard let s = x.string else { throw ReadError(description: "\(at): a string") }
        return s
    }

    static func uuids(_ v: JSONValue?, _ at: String) throws(ReadError) -> [BLEUUID] {
        guard let v else { return [] }
        guard let a = v.array else { throw ReadError(description: "\(at): a list of UUIDs") }
        var out: [BLEUUID] = []
        for x in a {
            guard let u = x.string.flatMap(BLEUUID.init) else { throw ReadError(description: "\(at): '\(x)' is not a UUID") }
            out.append(u)
        }
        return out
    }

    static func strings(_ v: JSONValue?, _ at: String, allowed: Set<String>) throws(ReadError) -> [String] {
        guard let a = v?.array else { throw ReadError(description: "\(at): a list of flags") }
        var out: [String] = []
        for x in a {
            guard let s = x.string, allowed.contains(s) else {
                throw ReadError(description: "\(at): unknown flag \(x.string.map { "'\($0)'" } ?? "(not a string)")")
            }
            out.append(s)
        }
        return out
    }

    static func optionalBytes(_ v: JSONValue?, _ at: String) throws(ReadError) -> Bytes {
        guard let v else { return [] }
        return try bytes(v, at)
    }

    /// `"01ff"` (hex), `{"hex": "01ff"}` or `{"text": "hello"}`; at most 512 bytes (ATT's limit).
    static func bytes(_ v: JSONValue, _ at: String) throws(ReadError) -> Bytes {
        let b: Bytes?
        if let s = v.string ?? v["hex"]?.string {
            b = parseHex(String(s.filter { $0 != " " }))
        } else if let t = v["text"]?.string {
            b = Array(t.utf8)
        } else {
            b = nil
        }
        guard let b else { throw ReadError(description: "\(at): hex (\"01ff\", {\"hex\": \"01ff\"}) or {\"text\": \"…\"}") }
        guard b.count <= 512 else { throw ReadError(description: "\(at): at most 512 bytes") }
        return b
    }
}

public struct ServiceSpec: Equatable, Sendable {
    public var uuid: BLEUUID
    public var primary: Bool
    public var characteristics: [CharacteristicSpec]
    public init(uuid: BLEUUID, primary: Bool = true, characteristics: [CharacteristicSpec]) {
        self.uuid = uuid; self.primary = primary; self.characteristics = characteristics
    }
}

public struct CharacteristicSpec: Equatable, Sendable {
    public var uuid: BLEUUID
    public var flags: [String]
    public var value: Bytes
    public var descriptors: [DescriptorSpec]
    public init(uuid: BLEUUID, flags: [String], value: Bytes = [], descriptors: [DescriptorSpec] = []) {
        self.uuid = uuid; self.flags = flags; self.value = value; self.descriptors = descriptors
    }
}

public struct DescriptorSpec: Equatable, Sendable {
    public var uuid: BLEUUID
    public var flags: [String]
    public var value: Bytes
    public init(uuid: BLEUUID, flags: [String] = ["read"], value: Bytes = []) {
        self.uuid = uuid; self.flags = flags; self.value = value
    }
}

extension PeripheralSpec {
    /// The service `serve --stream` adds when no spec names its characteristic.
    public static let streamService: BLEUUID = "626c6578-0000-4000-8000-00000000a000"

    /// `serve --stream --char UUID`: a service holding UUID (read, notify), unless the spec
    /// has that characteristic already; with seq framing, its user description says so
    /// (`StreamFraming.announced`), so that a bleexplr central reads the frames right.
    public mutating func addStream(_ char: BLEUUID, framing: StreamFraming) {
        guard !services.contains(where: { $0.characteristics.contains { $0.uuid == char } }) else { return }
        let said = framing == .seq ? [DescriptorSpec(uuid: "2901", value: Array(StreamFraming.seqDescription.utf8))] : []
        services.append(ServiceSpec(uuid: Self.streamService, characteristics: [
            CharacteristicSpec(uuid: char, flags: ["read", "notify"], value: Array("EOM".utf8), descriptors: said),
        ]))
    }

    /// `serve --receive FILE --char UUID`: a service holding UUID (write without response,
    /// write, read: a read says what came), unless the spec has it; nil then, or an error
    /// when the spec's UUID takes no write.
    public mutating func addReceiver(_ char: BLEUUID) -> String? {
        if let c = services.flatMap(\.characteristics).first(where: { $0.uuid == char }) {
            return c.flags.contains("write") || c.flags.contains("write-without-response") ? nil
                : "--char \(char): the spec's characteristic takes no write (flags \(c.flags.joined(separator: ", ")))"
        }
        services.append(ServiceSpec(uuid: Self.streamService, characteristics: [
            CharacteristicSpec(uuid: char, flags: ["read", "write", "write-without-response"], value: StreamReceive.tallyValue(0, 0)),
        ]))
        return nil
    }
}
