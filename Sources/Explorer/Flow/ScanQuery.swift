/// The scan list as shown: filtered and sorted (kept by `Peripherals` as they change).
/// Shared by the reducer (cursor moves), the scan screen and `scan`'s printer, so all
/// agree on the order.
public enum ScanQuery {
    public static func rows(_ state: AppState) -> [Peripheral] {
        ids(state).map { state.peripherals[$0]! }
    }

    public static func ids(_ state: AppState) -> [PeripheralID] { state.peripherals.order.ids }

    /// The device Enter, `i` or a filter's end acts on: the cursor's while the list shows
    /// it, else the top row's (nil: the list is empty).
    public static func selected(_ state: AppState) -> PeripheralID? {
        cursorIndex(state) != nil ? state.scan.cursor : state.peripherals.order.first
    }

    /// Where the cursor's device is in the list (nil: none chosen, gone or hidden).
    public static func cursorIndex(_ state: AppState) -> Int? {
        guard let id = state.scan.cursor, let p = state.peripherals[id] else { return nil }
        return state.peripherals.order.index(of: p)
    }

    /// Filter text matches the name, the address, a service UUID advertised in the list or
    /// with service data (part of the short or long form, any whole form such as `0x180D`,
    /// or its standard name) or the company of manufacturer data.
    static func matches(_ p: Peripheral, _ needle: String) -> Bool {
        if let n = p.name, n.lowercased().contains(needle) { return true }
        if let a = p.alias, a.lowercased().contains(needle) { return true }
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
