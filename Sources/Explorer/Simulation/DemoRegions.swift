/// The demo's region beacon: an iBeacon carried by someone who walks up to the porch,
/// lingers at the edge of the region (RSSI swinging across the enter threshold), and
/// walks away, every 40 seconds. A single-threshold detector flaps here; the regions
/// with hysteresis enter once and leave once per visit.
extension DemoCatalog {
    static let porchUUID: BLEUUID = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"
    static let porchAddress = "7C:9E:BD:4F:10:77"
    /// The demo's default region (when no --region is given).
    static let demoRegions = [Region(name: "Porch", uuid: porchUUID, major: 7)]

    /// Base RSSI at `t` seconds of world time, or nil while out of range.
    static func porchRSSI(_ t: Double) -> Double? {
        let c = t.truncatingRemainder(dividingBy: 40)
        switch c {
        case ..<4: return nil                                           // away
        case ..<8: return -95 + (c - 4) / 4 * 27                        // walking in: -95 → -68
        case ..<24: return -77 + 5 * sinApprox((c - 8) * 1.3)           // at the edge: -82…-72
        case ..<28: return -77 - (c - 24) / 4 * 23                      // walking out: -77 → -100
        default: return nil                                             // gone
        }
    }

    static func regionDevices() -> [SimDevice] {
        var beacon: Bytes = [0x02, 0x15]
        beacon += uuidBytes(porchUUID) + [0x00, 0x07, 0x00, 0x01, 0xC5]  // major 7, minor 1, -59 dBm
        let d = SimDevice(
            address: porchAddress, name: nil, connectable: false,
            advertisement: Advertisement(manufacturerData: [0x004C: beacon], flags: 0x04),
            advInterval: 0.3, baseRSSI: -77, phase: 0, services: [])
        d.rssiScript = porchRSSI
        return [d]
    }
}
