/// Vendor formats a real room is full of, decoded from their public specifications or
/// public write-ups: Apple Continuity, Microsoft Swift Pair and CDP, Google Fast Pair,
/// Exposure Notification, Ruuvi, Xiaomi MiBeacon, and a short table of formats that put
/// their data where a registered format belongs (`UnregisteredUse`).
///
/// Beacons with a layout of their own (iBeacon, AltBeacon, Eddystone, UriBeacon, BTHome)
/// are decoded elsewhere; these decoders leave them alone. Everything here is untrusted
/// input: a short or odd entry gives a malformed value, never a trap or a read past the
/// end, and nothing is decoded that the format does not say (encrypted payloads are
/// shown as encrypted, unknown types by their number and length).
public enum VendorFrames {
    /// A manufacturer-data entry (company id, payload without the id), decoded; [] when no
    /// decoder knows it. An array: one entry can hold several frames (Continuity TLVs).
    ///
    /// `advertisement` is the rest of what the device sent (its name, its service UUIDs).
    /// Only the unregistered-use patterns read it: Inkbird and SensorPush put readings in
    /// the company-id bytes, so nothing in the entry itself says whose data it is.
    public static func manufacturer(_ company: UInt16, _ data: Bytes, in advertisement: Advertisement? = nil) -> [DecodedValue] {
        if let note = UnregisteredUse.note(company, data, in: advertisement) { return [note] }
        switch company {
        case AppleContinuity.company: return AppleContinuity.decode(data)
        case MicrosoftBeacon.company: return MicrosoftBeacon.decode(data).map { [$0] } ?? []
        case Ruuvi.company: return Ruuvi.decode(data).map { [$0] } ?? []
        default: return []
        }
    }

    /// A service-data entry, decoded; [] when no decoder knows it.
    public static func service(_ uuid: BLEUUID, _ data: Bytes) -> [DecodedValue] {
        switch uuid {
        case FastPair.service: return [FastPair.decode(data)]
        case ExposureNotification.service: return [ExposureNotification.decode(data)]
        case MiBeacon.service: return [MiBeacon.decode(data)]
        case PvvxThermometer.service: return PvvxThermometer.decode(data).map { [$0] } ?? []
        default: return []
        }
    }
}

// Small shared pieces for the vendor decoders: how a field is spelt, and how bytes read.

extension DecodedValue.Field {
    static func kind(_ name: String) -> Self { .init("kind", .string(name)) }
    static func int(_ key: String, _ value: some BinaryInteger) -> Self { .init(key, .number(Double(value))) }
    static func string(_ key: String, _ value: String) -> Self { .init(key, .string(value)) }
    static func bool(_ key: String, _ value: Bool) -> Self { .init(key, .bool(value)) }
    /// Bytes as one lowercase hex string without separators (`"2660ee34"`).
    static func bytes(_ key: String, _ value: some Collection<UInt8>) -> Self { .init(key, .string(hex(value, separator: ""))) }
    /// A reading the format marks "not available": the key is there, its value null.
    static func missing(_ key: String) -> Self { .init(key, .null) }
}

extension DecodedValue {
    /// A malformed value whose text says what was wrong ("type 0x01 declares 2 bytes, 0 follow").
    static func malformed(_ what: String, because reason: String) -> DecodedValue {
        DecodedValue("malformed \(what) (\(reason))", malformed: true)
    }
}

/// `0x1A2B`, upper-case: how ids (company, product, object) read in text.
func hexID(_ v: UInt16) -> String { "0x" + hex4(v).uppercased() }

/// `0x0F`, upper-case.
func hexByte(_ v: UInt8) -> String { "0x" + hex([v]).uppercased() }

/// `CB:B8:33:4C:88:4F` from six bytes in the order given.
func macText(_ b: some Collection<UInt8>) -> String { hex(b, separator: ":").uppercased() }

/// Big-endian 24-bit value (Ruuvi E1 luminosity, sequence; Fast Pair model id).
func be24(_ b: Bytes, _ i: Int) -> UInt32 { UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) }

/// Little-endian 24-bit value (MiBeacon illuminance).
func le24(_ b: Bytes, _ i: Int) -> UInt32 { UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 }

/// Device text for a terminal line, quoted: UTF-8 up to the first NUL (as BlueZ cuts
/// names), with `·` where a byte is not printable.
func quotedName(_ b: ArraySlice<UInt8>) -> String { "\"" + ValueDecoder.printableText(Array(untilNUL(b))) + "\"" }

/// The same text for programs: decoded as it came (JSON output escapes it).
func rawName(_ b: ArraySlice<UInt8>) -> String { String(decoding: untilNUL(b), as: UTF8.self) }

private func untilNUL(_ b: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    b.firstIndex(of: 0).map { b[..<$0] } ?? b
}
