/// The scan list as shown: filtered and sorted. Shared by the reducer (cursor moves) and
/// the scan screen, so both always agree on the order.
public enum ScanQuery {
    public static func rows(_ state: AppState) -> [Peripheral] {
        let needle = state.scan.filter.lowercased()
        var list = state.peripherals.values.filter { p in
            needle.isEmpty || matches(p, needle)
        }
        switch state.scan.sort {
        case .rssi:
            list.sort { a, b in
                let ra = a.rssi ?? -999, rb = b.rssi ?? -999
                return ra != rb ? ra > rb : a.id < b.id
            }
        case .name:
            list.sort { a, b in
                // Named devices first, then by address.
                switch (a.name, b.name) {
                case let (x?, y?) where x != y: return x.lowercased() < y.lowercased()
                case (.some, nil): return true
                case (nil, .some): return false
                default: return a.id < b.id
                }
            }
        case .lastSeen:
            list.sort { $0.lastSeen != $1.lastSeen ? $0.lastSeen > $1.lastSeen : $0.id < $1.id }
        case .firstSeen:
            list.sort { $0.firstSeen != $1.firstSeen ? $0.firstSeen < $1.firstSeen : $0.id < $1.id }
        }
        return list
    }

    /// Filter text matches the name, the address, an advertised service UUID (short or
    /// long form, or its standard name) or the company of manufacturer data.
    static func matches(_ p: Peripheral, _ needle: String) -> Bool {
        if let n = p.name, n.lowercased().contains(needle) { return true }
        if p.address.lowercased().contains(needle) { return true }
        for u in p.advertisement.serviceUUIDs {
            if u.canonical.contains(needle) || u.description.lowercased().contains(needle) { return true }
            if let name = AssignedNumbers.serviceName(u), name.lowercased().contains(needle) { return true }
        }
        for company in p.advertisement.manufacturerData.keys {
            if let name = AssignedNumbers.companyName(company), name.lowercased().contains(needle) { return true }
        }
        return false
    }
}

/// Rows of the device screen's service tree.
public enum DeviceRow: Equatable, Sendable {
    case service(GATTService)
    case characteristic(GATTService, GATTCharacteristic)

    public var id: AttributeID {
        switch self {
        case let .service(s): return s.id
        case let .characteristic(_, c): return c.id
        }
    }
}

public enum DeviceTree {
    public static func rows(_ p: Peripheral, collapsed: Set<AttributeID>) -> [DeviceRow] {
        var rows: [DeviceRow] = []
        for s in p.services ?? [] {
            rows.append(.service(s))
            if !collapsed.contains(s.id) {
                for c in s.characteristics { rows.append(.characteristic(s, c)) }
            }
        }
        return rows
    }
}
