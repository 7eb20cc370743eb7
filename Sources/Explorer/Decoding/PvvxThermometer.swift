/// The custom firmware for Xiaomi's LYWSD03MMC and its kin (atc1441's and pvvx's
/// ATC_MiThermometer, github.com/pvvx/ATC_MiThermometer, README "Custom format"): readings in
/// service data under 0x181A, the SIG's Environmental Sensing UUID, in layouts of its own
/// that the length tells apart. Encrypted frames are shown as such: counter and check only.
enum PvvxThermometer {
    static let service: BLEUUID = "181A"

    static func decode(_ d: Bytes) -> DecodedValue? {
        func i16le(_ i: Int) -> Int { Int(Int16(bitPattern: le16(d, i))) }
        func u16le(_ i: Int) -> Int { Int(le16(d, i)) }
        func i16be(_ i: Int) -> Int { Int(Int16(bitPattern: be16(d, i))) }
        func u16be(_ i: Int) -> Int { Int(be16(d, i)) }
        switch d.count {
        case 15:   // pvvx: MAC (little-endian), 0.01 °C, 0.01 %, mV, %, counter, flags; all little-endian
            let c = Double(i16le(6)) / 100, h = Double(u16le(8)) / 100, mv = u16le(10)
            return DecodedValue("pvvx thermometer · \(formatFixed(c, 2)) °C · \(formatFixed(h, 2)) % · \(mv) mV · battery \(d[12]) %",
                                [.kind("pvvx"), .string("mac", macText(d[0..<6].reversed())), .init("temperature", .number(c)),
                                 .init("humidity", .number(h)), .int("batteryMillivolts", mv), .int("battery", d[12]),
                                 .int("counter", d[13]), .int("flags", d[14])])
        case 13:   // atc1441: MAC, 0.1 °C, %, %, mV, counter; big-endian
            let c = Double(i16be(6)) / 10, mv = u16be(10)
            return DecodedValue("atc1441 thermometer · \(formatFixed(c, 1)) °C · \(d[8]) % · \(mv) mV · battery \(d[9]) %",
                                [.kind("atc1441"), .string("mac", macText(d[0..<6])), .init("temperature", .number(c)),
                                 .int("humidity", d[8]), .int("battery", d[9]), .int("batteryMillivolts", mv), .int("counter", d[12])])
        case 11, 8:   // encrypted pvvx (6 bytes of readings) or atc1441 (3): counter, readings, 4-byte check
            let kind = d.count == 11 ? "pvvx" : "atc1441"
            return DecodedValue("\(kind) thermometer · encrypted (counter \(d[0]))",
                                [.kind(kind), .bool("encrypted", true), .int("counter", d[0]),
                                 .bytes("data", d[1..<(d.count - 4)]), .bytes("mic", d[(d.count - 4)...])])
        default:
            return nil   // 0x181A as the SIG meant it, or a layout this does not know: shown as bytes
        }
    }
}
