/// The scan list as shown: filtered and sorted. Shared by the reducer (cursor moves) and
/// the scan screen, so both always agree on the order.
public enum ScanQuery {
    public static func rows(_ state: AppState) -> [Peripheral] {
        ids(state).map { state.peripherals[$0]! }
    }

    /// The order of the list, by ID. Sorts small (key, id) pairs, not whole peripherals:
    /// this runs on every frame and cursor move, with a thousand devices in a busy room.
    public static func ids(_ state: AppState) -> [PeripheralID] {
        let needle = state.scan.filter.lowercased()
        let scan = state.scan
        let keep: (Peripheral) -> Bool = { p in
            if scan.connectableOnly && !p.connectable { return false }
            if scan.hideUnnamed && (p.name ?? "").isEmpty { return false }
            if let floor = scan.minRSSI, (p.rssi ?? -999) < floor { return false }
            return needle.isEmpty || matches(p, needle)
        }
        switch state.scan.sort {
        case .rssi:
            var keyed: [(Int, PeripheralID)] = []
            keyed.reserveCapacity(state.peripherals.count)
            for (id, p) in state.peripherals where keep(p) { keyed.append((p.rssi ?? -999, id)) }
            keyed.sort { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
            return keyed.map(\.1)
        case .name:
            // Named devices first, by name, then the unnamed by address.
            var keyed: [(String?, PeripheralID)] = []
            keyed.reserveCapacity(state.peripherals.count)
            for (id, p) in state.peripherals where keep(p) { keyed.append((p.name?.lowercased(), id)) }
            keyed.sort { a, b in
                switch (a.0, b.0) {
                case let (x?, y?) where x != y: return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                default: return a.1 < b.1
                }
            }
            return keyed.map(\.1)
        case .interval:
            // Most frequent first; devices heard once (no interval yet) last.
            var keyed: [(Double, PeripheralID)] = []
            keyed.reserveCapacity(state.peripherals.count)
            for (id, p) in state.peripherals where keep(p) { keyed.append((p.rhythm.interval ?? .infinity, id)) }
            keyed.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            return keyed.map(\.1)
        case .lastSeen, .firstSeen:
            let last = state.scan.sort == .lastSeen
            var keyed: [(Double, PeripheralID)] = []
            keyed.reserveCapacity(state.peripherals.count)
            for (id, p) in state.peripherals where keep(p) {
                keyed.append((last ? -p.lastSeen.seconds : p.firstSeen.seconds, id))
            }
            keyed.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            return keyed.map(\.1)
        }
    }

    /// Filter text matches the name, the address, a service UUID advertised in the list or
    /// with service data (part of the short or long form, any whole form such as `0x180D`,
    /// or its standard name) or the company of manufacturer data.
    static func matches(_ p: Peripheral, _ needle: String) -> Bool {
        if let n = p.name, n.lowercased().contains(needle) { return true }
        if p.address.lowercased().contains(needle) { return true }
        let uuids = p.advertisement.serviceUUIDs + p.advertisement.serviceData.keys
        if let whole = BLEUUID(needle), uuids.contains(whole) { return true }
        for u in uuids {
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
