/// Every parser that takes bytes from strangers, fed the same bytes: the fuzz target
/// (Sources/FuzzDecoders) and the property tests share this, so a new decoder is fuzzed
/// once it is listed here.
public enum UntrustedInput {
    /// Characteristics `ValueDecoder` knows; each gets the bytes.
    public static let decodedCharacteristics: [BLEUUID] = [
        "2A00", "2A01", "2A06", "2A07", "2A19", "2A1C", "2A1D", "2A24", "2A25", "2A26", "2A27", "2A28", "2A29",
        "2A2B", "2A37", "2A38", "2A53", "2A5B", "2A6D", "2A6E", "2A6F", "FFE1",
    ]

    /// The parsers in families, each given the same bytes: `texts` runs them all (the
    /// property tests); the fuzz target runs one per input, picked by its first byte, so an
    /// execution costs one family's work and the fuzzer can shape an input for that family.
    public static let families: [(name: String, texts: @Sendable (Bytes) -> [String])] = [
        ("advertising data and beacons", beacons),
        ("sensor and vendor frames", frames),
        ("frames as JSON", framesJSON),
        ("decode", { CommandPrinter.decodedText(DecodeReport([$0, Array($0.reversed())])) }),
        ("characteristic decoders", characteristics),
        ("presentation format", presentationFormat),
        ("value formats", { b in ValueFormat.allCases.filter { $0 != .decoded }.map { $0.render(b, uuid: "2A37") } }),
    ]

    /// All display text produced from `b`, in order: advertisement fields and beacon,
    /// every characteristic decoder, the presentation format read from the first 7 bytes
    /// applied to the rest, every explicit value format. Nothing here may trap or loop.
    public static func texts(_ b: Bytes) -> [String] {
        families.flatMap { $0.texts(b) }
    }

    static func beacons(_ b: Bytes) -> [String] {
        var out: [String] = []
        let parsed = AdvertisingData.parse(b)
        if let m = parsed.malformed { out.append(m) }
        if let beacon = parsed.advertisement.beacon { out.append(beacon.summary) }
        // The same bytes as manufacturer and service data, where the beacon formats look.
        let adv = Advertisement(manufacturerData: [0x004C: b, 0x0118: b], serviceData: ["FEAA": b])
        if let beacon = adv.beacon { out.append(beacon.summary) }
        return out
    }

    /// Every beacon, and the sensor formats, as service data (BTHome with and without a key).
    static func sensorAdvertisement(_ b: Bytes) -> Advertisement {
        Advertisement(localName: "sps", serviceUUIDs: ["FFF0"],
                      manufacturerData: [0x004C: b, 0x0118: b, 0x0006: b, 0x0499: b, 0x0001: b, 0xEC88: b],
                      serviceData: ["FEAA": b, "FED8": b, "FCD2": b, "181C": b, "181E": b, "FE95": b, "FE2C": b, "FD6F": b])
    }

    static func frames(_ b: Bytes) -> [String] {
        sensorAdvertisement(b).frames(address: "A4:C1:38:8D:18:B2", keys: ["A4:C1:38:8D:18:B2": Array(repeating: 0x5A, count: 16)])
            .map(\.value.text)
    }

    static func framesJSON(_ b: Bytes) -> [String] { sensorAdvertisement(b).frames().map(\.json) }

    static func characteristics(_ b: Bytes) -> [String] {
        var out: [String] = []
        for uuid in decodedCharacteristics {
            if let text = ValueDecoder.decode(uuid, b) { out.append(text) }
            if let n = ValueDecoder.number(uuid, b) { out.append(formatFixed(n, 2)) }
        }
        return out
    }

    static func presentationFormat(_ b: Bytes) -> [String] {
        guard let format = PresentationFormat(Array(b.prefix(7))) else { return [] }
        var out = [format.summary]
        if let text = format.render(Array(b.dropFirst(7))) { out.append(text) }
        if let n = format.number(Array(b.dropFirst(7))) { out.append(formatFixed(n, 2)) }
        return out
    }
}
