/// Every parser that takes bytes from strangers, fed the same bytes: the fuzz target
/// (Sources/FuzzDecoders) and the property tests share this, so a new decoder is fuzzed
/// once it is listed here.
public enum UntrustedInput {
    /// Characteristics `ValueDecoder` knows; each gets the bytes.
    public static let decodedCharacteristics: [BLEUUID] = [
        "2A00", "2A01", "2A06", "2A07", "2A19", "2A1C", "2A1D", "2A24", "2A25", "2A26", "2A27", "2A28", "2A29",
        "2A2B", "2A37", "2A38", "2A53", "2A5B", "2A6D", "2A6E", "2A6F", "FFE1",
    ]

    /// All display text produced from `b`, in order: advertisement fields and beacon,
    /// every characteristic decoder, the presentation format read from the first 7 bytes
    /// applied to the rest, every explicit value format. Nothing here may trap or loop.
    public static func texts(_ b: Bytes) -> [String] {
        var out: [String] = []
        let parsed = AdvertisingData.parse(b)
        if let m = parsed.malformed { out.append(m) }
        var adv = parsed.advertisement
        if let beacon = adv.beacon { out.append(beacon.summary) }
        // The same bytes as manufacturer and service data, where the beacon formats look.
        adv = Advertisement(manufacturerData: [0x004C: b, 0x0118: b], serviceData: ["FEAA": b])
        if let beacon = adv.beacon { out.append(beacon.summary) }
        // Every beacon, and the sensor formats, as service data (BTHome with and without a key).
        adv = Advertisement(localName: "sps", serviceUUIDs: ["FFF0"],
                            manufacturerData: [0x004C: b, 0x0118: b, 0x0006: b, 0x0499: b, 0x0001: b, 0xEC88: b],
                            serviceData: ["FEAA": b, "FED8": b, "FCD2": b, "181C": b, "181E": b, "FE95": b, "FE2C": b, "FD6F": b])
        out += adv.frames(address: "A4:C1:38:8D:18:B2", keys: ["A4:C1:38:8D:18:B2": Array(repeating: 0x5A, count: 16)]).map(\.value.text)
        out += adv.frames().map(\.json)
        out += CommandPrinter.decodedText(DecodeReport([b, Array(b.reversed())]))
        for uuid in decodedCharacteristics {
            if let text = ValueDecoder.decode(uuid, b) { out.append(text) }
            if let n = ValueDecoder.number(uuid, b) { out.append(formatFixed(n, 2)) }
        }
        if let format = PresentationFormat(Array(b.prefix(7))) {
            out.append(format.summary)
            if let text = format.render(Array(b.dropFirst(7))) { out.append(text) }
            if let n = format.number(Array(b.dropFirst(7))) { out.append(formatFixed(n, 2)) }
        }
        for format in ValueFormat.allCases where format != .decoded {
            out.append(format.render(b, uuid: "2A37"))
        }
        return out
    }
}
