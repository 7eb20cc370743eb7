/// Xiaomi MiBeacon, service data 0xFE95, per Xiaomi's public MiBeacon and BLE Object
/// documents (MiEcosystem miio_open, "米家BLE MiBeacon协议" and "米家BLE Object定义"). All
/// numbers are little-endian:
///
///     frame control (2) · product id (2) · frame counter (1) · MAC (6, if bit 4)
///     · capability (1, if bit 5) · I/O capability (2, v5 and capability bit 5)
///     · objects (if bit 6) · random number (3) and MIC (4), if encrypted (bit 3)
///
/// Frame control: bit 3 encrypted, 4 MAC included, 5 capability included, 6 object
/// included, 7 mesh, bits 12-15 the version. An object is id (2), length (1), data.
///
/// Encrypted frames (AES-CCM with the device's bind key) show their header and the sizes
/// of what is hidden, never values: a decoder without the key that read the ciphertext as
/// an object would print a plausible, wrong temperature. Frames before v4 used an older,
/// undocumented encryption; their encrypted bytes are shown whole. A mesh frame's layout
/// after the header is not in the public documents, so its rest is shown raw.
enum MiBeacon {
    static let service: BLEUUID = "FE95"

    struct FrameControl {
        let raw: UInt16
        var encrypted: Bool { raw & 0x0008 != 0 }
        var macIncluded: Bool { raw & 0x0010 != 0 }
        var capabilityIncluded: Bool { raw & 0x0020 != 0 }
        var objectIncluded: Bool { raw & 0x0040 != 0 }
        var mesh: Bool { raw & 0x0080 != 0 }
        var version: Int { Int(raw >> 12) }
    }

    static func decode(_ b: Bytes) -> DecodedValue {
        guard b.count >= 5 else { return .malformed("MiBeacon", b) }
        let fc = FrameControl(raw: le16(b, 0))
        let product = le16(b, 2), counter = b[4]
        var fields: [DecodedValue.Field] = [
            .kind("mibeacon"), .int("version", fc.version), .int("productID", product), .int("frameCounter", counter),
            .int("frameControl", fc.raw), .bool("encrypted", fc.encrypted), .bool("macIncluded", fc.macIncluded),
            .bool("capabilityIncluded", fc.capabilityIncluded), .bool("objectIncluded", fc.objectIncluded),
            .bool("mesh", fc.mesh),
        ]
        var parts = ["MiBeacon v\(fc.version) \(hexID(product)) #\(counter)"]
        var i = 5
        if fc.macIncluded {
            guard b.count >= i + 6 else { return .malformed("MiBeacon", because: "MAC flagged, \(b.count - i) bytes follow") }
            fields.append(.string("mac", macText(b[i..<(i + 6)].reversed())))
            i += 6
        }
        if fc.capabilityIncluded {
            guard b.count > i else { return .malformed("MiBeacon", because: "capability flagged, nothing follows") }
            let capability = b[i]
            fields.append(.int("capability", capability))
            i += 1
            // Only v5 carries the I/O capability (capability bit 5); earlier versions
            // leave that bit undefined.
            if fc.version >= 5, capability & 0x20 != 0 {
                guard b.count >= i + 2 else { return .malformed("MiBeacon", because: "I/O capability flagged, \(b.count - i) bytes follow") }
                fields.append(.bytes("ioCapability", b[i..<(i + 2)]))
                i += 2
            }
        }
        let rest = b[i...]
        if fc.mesh {
            parts.append("mesh")
            if !rest.isEmpty { fields.append(.bytes("rest", rest)) }
        } else if fc.encrypted && fc.objectIncluded {
            if fc.version >= 4 {
                guard rest.count >= 7 else { return .malformed("MiBeacon", because: "encrypted, \(rest.count) bytes for random number and MIC") }
                let cipher = rest.dropLast(7), random = rest.dropLast(4).suffix(3), mic = rest.suffix(4)
                parts.append("encrypted (\(cipher.count)-byte object)")
                fields += [.bytes("ciphertext", cipher), .bytes("random", random), .bytes("mic", mic)]
            } else {
                parts.append("encrypted (\(rest.count) bytes, legacy)")
                fields.append(.bytes("ciphertext", rest))
            }
        } else if fc.objectIncluded {
            switch objects(rest) {
            case let .failure(error): return .malformed("MiBeacon", because: error.description)
            case let .success(decoded):
                for o in decoded {
                    parts.append(o.text)
                    fields += o.fields
                }
                let raw = decoded.filter { $0.fields.isEmpty }
                if !raw.isEmpty {
                    fields.append(.init("objects", .array(raw.map { .object(["id": .number(Double($0.id)), "data": .string($0.hex)]) })))
                }
            }
        } else if !rest.isEmpty {
            fields.append(.bytes("rest", rest))
        }
        return DecodedValue(parts.joined(separator: " · "), fields)
    }

    /// One object: its reading as text and fields, or, when the id or its length is not
    /// one of the documented properties, no fields (it is then listed raw).
    struct Object {
        let id: UInt16
        let hex: String
        let text: String
        let fields: [DecodedValue.Field]
    }

    static func objects(_ b: ArraySlice<UInt8>) -> Result<[Object], ObjectError> {
        let b = Array(b)
        var out: [Object] = []
        var i = 0
        while i < b.count {
            guard b.count - i >= 3 else { return .failure(ObjectError("\(b.count - i) bytes left, an object takes 3 or more")) }
            let id = le16(b, i), length = Int(b[i + 2])
            guard length <= b.count - i - 3 else {
                return .failure(ObjectError("object \(hexID(id)) declares \(length) bytes, \(b.count - i - 3) follow"))
            }
            out.append(object(id, Array(b[(i + 3)..<(i + 3 + length)])))
            i += 3 + length
        }
        return .success(out)
    }

    struct ObjectError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    /// The documented properties this decoder reads: temperature (0.1 °C, signed),
    /// humidity (0.1 %), illuminance (lux, 3 bytes), soil moisture (%), soil conductivity
    /// (µS/cm), battery (%), temperature and humidity together, formaldehyde (0.01 mg/m³).
    static func object(_ id: UInt16, _ d: Bytes) -> Object {
        func reading(_ text: String, _ fields: [DecodedValue.Field]) -> Object { Object(id: id, hex: hex(d, separator: ""), text: text, fields: fields) }
        func celsius(_ at: Int) -> Double { Double(Int16(bitPattern: le16(d, at))) / 10 }
        func tenths(_ at: Int) -> Double { Double(le16(d, at)) / 10 }
        switch (id, d.count) {
        case (0x1004, 2): return reading("\(formatFixed(celsius(0), 1)) °C", [.init("celsius", .rounded(celsius(0), 1))])
        case (0x1006, 2): return reading("\(formatFixed(tenths(0), 1)) %", [.init("humidity", .rounded(tenths(0), 1))])
        case (0x1007, 3): return reading("\(le24(d, 0)) lux", [.int("lux", le24(d, 0))])
        case (0x1008, 1): return reading("moisture \(d[0]) %", [.int("moisture", d[0])])
        case (0x1009, 2): return reading("conductivity \(le16(d, 0)) µS/cm", [.int("conductivity", le16(d, 0))])
        case (0x100A, 1): return reading("battery \(d[0]) %", [.int("battery", d[0])])
        case (0x100D, 4):
            return reading("\(formatFixed(celsius(0), 1)) °C · \(formatFixed(tenths(2), 1)) %",
                           [.init("celsius", .rounded(celsius(0), 1)), .init("humidity", .rounded(tenths(2), 1))])
        case (0x1010, 2):
            let mg = Double(le16(d, 0)) / 100
            return reading("formaldehyde \(formatFixed(mg, 2)) mg/m³", [.init("formaldehyde", .rounded(mg, 2))])
        default:
            return Object(id: id, hex: hex(d, separator: ""), text: "object \(hexID(id))" + (d.isEmpty ? "" : " \(hex(d, separator: ""))"), fields: [])
        }
    }
}
