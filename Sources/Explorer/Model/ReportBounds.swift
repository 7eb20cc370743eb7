/// How much a peripheral may say about itself, and the range of each number it gives:
/// every backend that reads reports from outside (BlueZ over D-Bus, a recording) passes
/// them through `bounded` before they reach the store. A device that claims 100,000
/// service UUIDs or a 64 KiB name costs what a real one could, and an RSSI that arrived as
/// an int64 is dropped instead of overflowing the screens' arithmetic.
public enum ReportBounds {
    /// dBm as the controller gives it: an int8 (HCI), 127 meaning "not available".
    public static let rssi: ClosedRange<Int> = -128...126
    /// TX power (AD type 0x0A, BlueZ's TxPower): an int8 in dBm.
    public static let txPower: ClosedRange<Int> = -128...127
    /// Service UUIDs of one device: an extended advertisement (1,650 bytes) holds at most
    /// 825 16-bit ones and BlueZ adds the GATT services it resolved; no real device comes
    /// near this.
    public static let serviceUUIDs = 256
    /// Companies in ManufacturerData, UUIDs in ServiceData.
    public static let dataEntries = 32
    /// Bytes of one manufacturer or service data entry: the largest advertising data an
    /// extended advertisement can carry.
    public static let dataBytes = 1650
    /// Bytes of a name (GAP Device Name, Core spec Vol 3 Part C 12.1: at most 248).
    public static let nameBytes = 248

    public static func rssi(_ v: Int?) -> Int? { v.flatMap { rssi.contains($0) ? $0 : nil } }
    public static func txPower(_ v: Int?) -> Int? { v.flatMap { txPower.contains($0) ? $0 : nil } }

    /// The first `nameBytes` bytes of `s`, cut at a character boundary.
    public static func name(_ s: String?) -> String? { s.map { prefix($0, bytes: nameBytes) } }

    /// The longest start of `s` of at most `bytes` UTF-8 bytes that ends on a character boundary.
    public static func prefix(_ s: String, bytes: Int) -> String {
        guard s.utf8.count > bytes else { return s }
        var out = ""
        var used = 0
        for ch in s {
            let n = ch.utf8.count
            if used + n > bytes { break }
            out.append(ch)
            used += n
        }
        return out
    }

    public static func advertisement(_ a: Advertisement) -> Advertisement {
        var b = a
        b.localName = name(a.localName)
        if a.serviceUUIDs.count > serviceUUIDs { b.serviceUUIDs = Array(a.serviceUUIDs.prefix(serviceUUIDs)) }
        if a.manufacturerData.count > dataEntries || a.manufacturerData.values.contains(where: { $0.count > dataBytes }) {
            b.manufacturerData = [:]
            for k in a.manufacturerData.keys.sorted().prefix(dataEntries) { b.manufacturerData[k] = Array(a.manufacturerData[k]!.prefix(dataBytes)) }
        }
        if a.serviceData.count > dataEntries || a.serviceData.values.contains(where: { $0.count > dataBytes }) {
            b.serviceData = [:]
            for k in a.serviceData.keys.sorted(by: { $0.canonical < $1.canonical }).prefix(dataEntries) {
                b.serviceData[k] = Array(a.serviceData[k]!.prefix(dataBytes))
            }
        }
        b.txPower = txPower(a.txPower)
        return b
    }

    public static func report(_ r: AdvertisementReport) -> AdvertisementReport {
        var b = r
        b.name = name(r.name)
        b.rssi = rssi(r.rssi)
        b.advertisement = advertisement(r.advertisement)
        return b
    }
}
