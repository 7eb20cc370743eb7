/// Connections and the navigation that follows them: the device screen opens by itself
/// when services are resolved, and a dropped link brings the user back to the scan list.
enum ConnectionReducer {
    static func connect(_ s: inout AppState, _ id: PeripheralID) -> [Effect] {
        guard var p = s.peripherals[id] else { return [] }
        switch p.connection {
        case .connected:
            s.route = .device(id)
            return []
        case .connecting, .resolvingServices, .disconnecting:
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
        case .connecting, .resolvingServices, .connected:
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

    static func servicesResolved(_ s: inout AppState, _ id: PeripheralID, _ services: [GATTService], mtu: Int?) {
        guard var p = s.peripherals[id] else { return }
        p.services = services
        p.mtu = mtu
        if p.connection != .disconnecting { p.connection = .connected }
        s.peripherals[id] = p
        guard s.pendingConnection == id else { return }
        s.pendingConnection = nil
        s.route = .device(id)
        s.device = DeviceScreenState(cursor: DeviceTree.rows(p, collapsed: []).first?.id)
        s.alert = Alert(.info, "Connected to \(p.displayName)", at: s.now)
    }

    static func connectFailed(_ s: inout AppState, _ id: PeripheralID, _ error: BackendError) {
        s.peripherals[id]?.connection = .failed(reason: error.description)
        if s.pendingConnection == id { s.pendingConnection = nil }
        let name = s.peripherals[id]?.displayName ?? id.rawValue
        Reducer.fail(&s, "Connection to \(name) failed: \(error)")
        if Reducer.routeShows(s.route, id) { s.route = .scan; s.scan.cursor = id }
    }

    static func disconnected(_ s: inout AppState, _ id: PeripheralID, _ reason: DisconnectReason) {
        guard var p = s.peripherals[id] else { return }
        p.connection = .disconnected
        s.peripherals[id] = p
        if s.pendingConnection == id { s.pendingConnection = nil }
        for c in p.services?.flatMap(\.characteristics) ?? [] { s.subscriptions.remove(c.id) }
        let message = "\(p.displayName) disconnected: \(reason)"
        if reason == .local {
            s.alert = Alert(.info, message, at: s.now)
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
