/// Connections and the navigation that follows them: the device screen opens by itself
/// when services are resolved, and a dropped link brings the user back to the scan list.
enum ConnectionReducer {
    static func connect(_ s: inout AppState, _ id: PeripheralID) -> [Effect] {
        guard var p = s.peripherals[id] else { return [] }
        switch p.connection {
        case .connected:
            s.route = .device(id)
            return []
        case .connecting, .resolvingServices, .readingDescriptors, .disconnecting:
            return []
        case .disconnected, .failed:
            guard p.connectable else {
                s.alert = Alert(.warning, "\(p.displayName) is not connectable (it only broadcasts)", at: s.now)
                return []
            }
            p.connection = .connecting(attempt: 1)
            s.peripherals[id] = p
            s.pendingConnection = id
            s.alert = Alert(.info, "Connecting to \(p.displayName)…", at: s.now)
            return [.backend(.connect(id))]
        }
    }

    static func disconnect(_ s: inout AppState, _ id: PeripheralID) -> [Effect] {
        guard var p = s.peripherals[id] else { return [] }
        switch p.connection {
        case .disconnected, .failed, .disconnecting:
            return []
        case .connecting, .resolvingServices, .readingDescriptors, .connected:
            p.connection = .disconnecting
            s.peripherals[id] = p
            return [.backend(.disconnect(id))]
        }
    }

    static func connecting(_ s: inout AppState, _ id: PeripheralID, attempt: Int) {
        s.peripherals[id]?.connection = .connecting(attempt: attempt)
        if attempt > 1, let p = s.peripherals[id] {
            s.alert = Alert(.info, "Connecting to \(p.displayName) (attempt \(attempt))…", at: s.now)
        }
    }

    static func linkUp(_ s: inout AppState, _ id: PeripheralID) {
        guard var p = s.peripherals[id] else { return }
        // A local disconnect may already be under way; do not undo it.
        if p.connection != .disconnecting { p.connection = .resolvingServices }
        s.peripherals[id] = p
        if s.pendingConnection == id { s.alert = Alert(.info, "Resolving services of \(p.displayName)…", at: s.now) }
    }

    /// Services are known. Their labels (0x2901) and formats (0x2904) are read before the
    /// peripheral counts as ready, as nRF Connect does, so that every mode shows a value
    /// the same way from the first one on.
    static func servicesResolved(_ s: inout AppState, _ id: PeripheralID, _ services: [GATTService], mtu: Int?) -> [Effect] {
        guard var p = s.peripherals[id] else { return [] }
        p.services = services
        p.mtu = mtu
        let owed = services.flatMap(\.characteristics).flatMap(\.descriptors)
            .filter { $0.uuid == "2901" || $0.uuid == "2904" }
        if p.connection != .disconnecting { p.connection = owed.isEmpty ? .connected : .readingDescriptors }
        s.peripherals[id] = p
        guard !owed.isEmpty else {
            ready(&s, id)
            return []
        }
        s.descriptorReads[id] = Set(owed.map(\.id))
        if s.pendingConnection == id { s.alert = Alert(.info, "Reading descriptors of \(p.displayName)…", at: s.now) }
        return owed.map { .backend(.readDescriptor(id, $0.id)) }
    }

    /// A descriptor read came back (or failed: an unreadable descriptor only costs its
    /// label). The last one owed makes its peripheral ready.
    static func descriptorRead(_ s: inout AppState, _ did: AttributeID) {
        guard let id = s.descriptorReads.first(where: { $0.value.contains(did) })?.key else { return }
        s.descriptorReads[id]?.remove(did)
        guard s.descriptorReads[id]?.isEmpty == true else { return }
        s.descriptorReads[id] = nil
        if s.peripherals[id]?.connection == .readingDescriptors { s.peripherals[id]?.connection = .connected }
        ready(&s, id)
    }

    /// Connected, services resolved, descriptors read: the device screen opens by itself
    /// when the user asked for this connection.
    static func ready(_ s: inout AppState, _ id: PeripheralID) {
        // Not when the user gave up meanwhile (Esc while reading: the link is going down).
        guard s.pendingConnection == id, let p = s.peripherals[id], p.connection == .connected else { return }
        s.pendingConnection = nil
        s.route = .device(id)
        s.device = DeviceScreenState(cursor: DeviceTree.rows(p, collapsed: []).first?.id)
        s.alert = Alert(.info, "Connected to \(p.displayName)", at: s.now)
    }

    static func connectFailed(_ s: inout AppState, _ id: PeripheralID, _ error: BackendError) {
        let name = s.peripherals[id]?.displayName ?? id.rawValue
        // Esc while connecting: the attempt ends with an error (BlueZ aborts it), which is
        // what the user asked for.
        if s.peripherals[id]?.connection == .disconnecting {
            s.peripherals[id]?.connection = .disconnected
            if s.pendingConnection == id { s.pendingConnection = nil }
            s.alert = Alert(.info, "Connection to \(name) cancelled", at: s.now)
            return
        }
        s.peripherals[id]?.connection = .failed(reason: error.description)
        if s.pendingConnection == id { s.pendingConnection = nil }
        Reducer.fail(&s, "Connection to \(name) failed: \(error)")
        if Reducer.routeShows(s.route, id) { s.route = .scan; s.scan.cursor = id }
    }

    static func disconnected(_ s: inout AppState, _ id: PeripheralID, _ reason: DisconnectReason) {
        guard var p = s.peripherals[id] else { return }
        p.connection = .disconnected
        s.peripherals[id] = p
        s.descriptorReads[id] = nil
        // Still pending: the user gave up before the device was ready (Esc while connecting).
        let cancelled = s.pendingConnection == id
        if s.pendingConnection == id { s.pendingConnection = nil }
        for c in p.services?.flatMap(\.characteristics) ?? [] { s.subscriptions.remove(c.id) }
        let message = "\(p.displayName) disconnected: \(reason)"
        if reason == .local {
            s.alert = Alert(.info, cancelled ? "Connection to \(p.displayName) cancelled" : "Disconnected from \(p.displayName)", at: s.now)
        } else {
            s.alert = Alert(.warning, message, at: s.now)
            s.lastError = message
        }
        if Reducer.routeShows(s.route, id) {
            s.route = .scan
            s.scan.cursor = id
            s.input = nil
        }
    }
}
