#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// What a peripheral says about itself while advertising. Everything here is untrusted:
/// it arrives from any device in radio range.
public struct Advertisement: Hashable, Sendable {
    public var localName: String?
    public var serviceUUIDs: [BLEUUID]
    /// Keyed by Bluetooth SIG company identifier (0x004C Apple, ...).
    public var manufacturerData: ManufacturerData
    public var serviceData: [BLEUUID: Bytes]
    public var txPower: Int?
    public var flags: UInt8?
    public var appearance: UInt16?

    public init(localName: String? = nil, serviceUUIDs: [BLEUUID] = [],
                manufacturerData: ManufacturerData = [:], serviceData: [BLEUUID: Bytes] = [:],
                txPower: Int? = nil, flags: UInt8? = nil, appearance: UInt16? = nil) {
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.txPower = txPower
        self.flags = flags
        self.appearance = appearance
    }

    /// The first beacon found in this advertisement (iBeacon before the others): what the
    /// region watch and the scan list's short summary use.
    public var beacon: Beacon? { Beacon.decode(self) }

    /// Every beacon frame in this advertisement, in the order the entries are listed: an
    /// iBeacon that also sends Eddystone-TLM gives both.
    public var beacons: [Beacon] { Beacon.all(self) }

    /// Later reports only carry what changed (BlueZ sends property changes): merge them.
    public mutating func merge(_ other: Advertisement) {
        if let n = other.localName { localName = n }
        if !other.serviceUUIDs.isEmpty { serviceUUIDs = other.serviceUUIDs }
        // One company or none in a report: a plain loop costs half what `merge` does, and
        // none at all when there is nothing to merge (most reports carry no service data).
        if !other.manufacturerData.isEmpty {
            for (company, data) in other.manufacturerData { manufacturerData[company] = data }
        }
        if !other.serviceData.isEmpty {
            for (uuid, data) in other.serviceData { serviceData[uuid] = data }
        }
        if let t = other.txPower { txPower = t }
        if let f = other.flags { flags = f }
        if let a = other.appearance { appearance = a }
    }
}

func be16(_ b: Bytes, _ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
func be32(_ b: Bytes, _ i: Int) -> UInt32 {
    UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
}
func le16(_ b: Bytes, _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }

/// Eddystone-URL: a scheme byte, then text where bytes 0x00-0x0D expand to TLDs.
func expandEddystoneURL(scheme: UInt8, encoded: ArraySlice<UInt8>,
                        schemes: [String] = ["http://www.", "https://www.", "http://", "https://"]) -> String? {
    let codes = [".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
                 ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov"]
    guard Int(scheme) < schemes.count, encoded.count <= 17 else { return nil }
    var url = schemes[Int(scheme)]
    for b in encoded {
        if Int(b) < codes.count { url += codes[Int(b)] }
        else if b > 0x20 && b < 0x7F { url.append(Character(Unicode.Scalar(b))) }
        else { return nil }
    }
    return url
}

/// `01 ff 3a` (or with another separator).
public func hex(_ bytes: some Collection<UInt8>, separator: String = " ") -> String {
    // Written as bytes into the string's own storage: appending Characters one by one was
    // 22 % of a recorded notification (perf, `notify --json --record` on the demo's flood).
    let count = bytes.count
    guard count > 0 else { return "" }
    let sep = Array(separator.utf8)
    return String(unsafeUninitializedCapacity: count * 2 + (count - 1) * sep.count) { buffer in
        var i = 0
        for b in bytes {
            if i > 0 { for s in sep { buffer[i] = s; i += 1 } }
            buffer[i] = hexDigit(b >> 4)
            buffer[i + 1] = hexDigit(b & 0x0F)
            i += 2
        }
        return i
    }
}

/// The ASCII of a lowercase hex digit, 0 to 15.
@inline(__always) func hexDigit(_ n: UInt8) -> UInt8 { n < 10 ? 0x30 + n : 0x57 + n }

/// `004c`: a 16-bit value as four lowercase hex digits (company ids, handles).
public func hex4(_ v: UInt16) -> String {
    let h = String(v, radix: 16)
    return String(repeating: "0", count: 4 - h.count) + h
}

/// Fixed-point formatting without Foundation: `formatFixed(21.456, 2) == "21.46"`.
public func formatFixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "NaN" : (value > 0 ? "+inf" : "-inf") }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 1e17 else { return value > 0 ? "\(value)" : "\(value)" }
    let n = Int64(scaled)
    let intPart = n / Int64(scale)
    var frac = String(n % Int64(scale))
    while frac.count < decimals { frac = "0" + frac }
    let sign = value < 0 && n != 0 ? "-" : ""
    return decimals == 0 ? "\(sign)\(intPart)" : "\(sign)\(intPart).\(frac)"
}
