/// What a descriptor's value says, for the ones whose meaning the Core Specification
/// fixes: 0x2900 Extended Properties, 0x2901 User Description, 0x2902 Client
/// Characteristic Configuration, 0x2903 Server Characteristic Configuration, 0x2904
/// Presentation Format. Others have no decoding (nil). The bytes are the device's:
/// untrusted, any length.
public enum DescriptorValue {
    public static func decoded(_ uuid: BLEUUID, _ b: Bytes) -> DecodedValue? {
        switch uuid {
        case "2900":
            guard b.count == 2 else { return .malformed("extended properties", b) }
            let bits = UInt16(b[0]) | UInt16(b[1]) << 8
            let reliable = bits & 1 != 0, auxiliaries = bits & 2 != 0
            let names = (reliable ? ["reliable write"] : []) + (auxiliaries ? ["writable auxiliaries"] : [])
            return DecodedValue(names.isEmpty ? "none" : names.joined(separator: ", "),
                                [.init("reliableWrite", .bool(reliable)), .init("writableAuxiliaries", .bool(auxiliaries))])
        case "2901":
            let text = ValueDecoder.printableText(b)
            return DecodedValue("“\(text)”", [.init("text", .string(text))])
        case "2902":
            guard b.count == 2 else { return .malformed("client characteristic configuration", b) }
            let notify = b[0] & 1 != 0, indicate = b[0] & 2 != 0
            let names = (notify ? ["notifications"] : []) + (indicate ? ["indications"] : [])
            return DecodedValue(names.isEmpty ? "off" : names.joined(separator: ", ") + " on",
                                [.init("notify", .bool(notify)), .init("indicate", .bool(indicate))])
        case "2903":
            guard b.count == 2 else { return .malformed("server characteristic configuration", b) }
            let broadcast = b[0] & 1 != 0
            return DecodedValue(broadcast ? "broadcast on" : "broadcast off", [.init("broadcast", .bool(broadcast))])
        case "2904":
            guard let f = PresentationFormat(b) else { return .malformed("presentation format", b) }
            var fields: [DecodedValue.Field] = [.init("format", .string(f.formatName)), .init("exponent", .number(Double(f.exponent)))]
            if let unit = AssignedNumbers.unitName(f.unit) { fields.append(.init("unit", .string(unit))) }
            return DecodedValue(f.summary, fields)
        default:
            return nil
        }
    }
}
