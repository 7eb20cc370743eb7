/// What an advertisement's entries say, decoded: every beacon, sensor reading and vendor
/// message found in its manufacturer data and service data. The scan list, the details
/// panel, `scan --json` and the recording all show these, from this one place.
public struct AdvertisementFrame: Equatable, Sendable {
    /// The entry the frame was read from.
    public enum Origin: Equatable, Sendable {
        case manufacturer(UInt16)
        case service(BLEUUID)
    }

    public var origin: Origin
    /// Its text (one line) and its fields, `kind` first.
    public var value: DecodedValue

    public init(_ origin: Origin, _ value: DecodedValue) { self.origin = origin; self.value = value }

    /// `ibeacon`, `eddystone-tlm`, `bthome`…: the first field.
    public var kind: String { value.fields.first { $0.key == "kind" }?.value.string ?? "unknown" }

    /// `{"kind":"ibeacon","company":"004c","text":"iBeacon …","value":{"uuid":…}}`.
    public var json: String {
        var j = JSONLine()
        j.string("kind", kind)
        switch origin {
        case let .manufacturer(company): j.string("company", hex4(company))
        case let .service(uuid): j.string("service", uuid.canonical)
        }
        j.string("text", value.text)
        if value.malformed { j.bool("malformed", true) }
        var v = JSONLine()
        for f in value.fields where f.key != "kind" { v.raw(key: f.key, f.value.serialized) }
        j.raw("value", v.finish())
        return j.finish()
    }
}

extension Advertisement {
    /// Every frame, in a stable order: beacons first (in the order `Beacon.all` gives),
    /// then the sensor and vendor decoders' frames by company, then by service. `address`
    /// and `keys` (bind keys by upper-case address) open encrypted frames that need them.
    public func frames(address: String? = nil, keys: [String: Bytes] = [:]) -> [AdvertisementFrame] {
        beacons.map(Self.frame) + entryFrames(address: address, keys: keys)
    }

    static func frame(_ b: Beacon) -> AdvertisementFrame {
        let origin: AdvertisementFrame.Origin = b.carrier.map { .manufacturer($0) } ?? .service(b.service ?? Beacon.eddystoneService)
        var malformed = false
        if case .malformed = b { malformed = true }
        return AdvertisementFrame(origin, DecodedValue(b.text, b.fields, malformed: malformed))
    }

    /// What the sensor and vendor decoders read from the entries.
    func entryFrames(address: String?, keys: [String: Bytes]) -> [AdvertisementFrame] {
        var out: [AdvertisementFrame] = []
        for company in manufacturerData.keys.sorted() {
            out += VendorFrames.manufacturer(company, manufacturerData[company]!, in: self).map { AdvertisementFrame(.manufacturer(company), $0) }
        }
        for u in serviceData.keys.sorted(by: { $0.canonical < $1.canonical }) {
            let data = serviceData[u]!
            if BTHome.isBTHome(u), let v = BTHome.decode(u, data, address: address, key: address.flatMap { keys[$0.uppercased()] }) {
                out.append(AdvertisementFrame(.service(u), v))
            }
            out += VendorFrames.service(u, data).map { AdvertisementFrame(.service(u), $0) }
        }
        return out
    }

    /// One line for a person: the frames' texts, then the companies and services no frame
    /// already stands for (by name where the SIG lists it), Tx power.
    public func summary(address: String? = nil, keys: [String: Bytes] = [:]) -> String {
        summary(beacons: beacons, entries: entryFrames(address: address, keys: keys))
    }

    /// The same from frames already decoded (`scan --json` prints both).
    func summary(beacons: [Beacon], entries: [AdvertisementFrame]) -> String {
        // Beacons in their short form: a list row has no room for a whole UUID.
        var parts = beacons.map(\.summary) + entries.map(\.value.text)
        let shownCompanies = Set(beacons.compactMap(\.carrier) + entries.compactMap { if case let .manufacturer(c) = $0.origin { c } else { nil } })
        let shownServices = Set(beacons.compactMap { $0.carrier == nil ? $0.service ?? Beacon.eddystoneService : nil }
                                + entries.compactMap { if case let .service(u) = $0.origin { u } else { nil } })
        for k in manufacturerData.keys.sorted() where !shownCompanies.contains(k) {
            parts.append(AssignedNumbers.companyName(k) ?? "0x" + hex4(k).uppercased())
        }
        var services = serviceUUIDs.filter { !shownServices.contains($0) }
        for u in serviceData.keys.sorted(by: { $0.canonical < $1.canonical })
        where !shownServices.contains(u) && !services.contains(u) { services.append(u) }
        parts += services.map { AssignedNumbers.serviceName($0) ?? $0.description }
        if let tx = txPower { parts.append("tx \(tx) dBm") }
        return parts.joined(separator: " · ")
    }
}

/// Bind keys for encrypted advertisements (BTHome), from `--key ADDRESS=HEX`: secrets,
/// kept in memory only, never written to a recording or printed.
public enum BindKeys {
    public struct ParseError: Error, Equatable { public let message: String }

    /// `A4:C1:38:8D:18:B2=231d39c1d7cc1ab1aee224cd096db932` -> the upper-case address and 16 bytes.
    public static func parse(_ arg: String) -> Result<(String, Bytes), ParseError> {
        let parts = arg.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let address = PeripheralID.address(String(parts[0])), let key = parseHex(String(parts[1])),
              key.count == 16 else {
            return .failure(ParseError(message: "--key takes ADDRESS=KEY with a 16-byte key in hex (32 digits), "
                                       + "like A4:C1:38:8D:18:B2=231d39c1d7cc1ab1aee224cd096db932"))
        }
        return .success((address, key))
    }
}
