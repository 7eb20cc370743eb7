/// Connections and the navigation that follows them: the device screen opens by itself
/// when services are resolved, and a dropped link brings the user back to the scan list.
enum ConnectionReducer {
    static func connect(_ s: inout AppState, _ id: PeripheralID) -> [Effect] {
        guard var p = s.peripherals[id] else { return [] }
        switch p.connection {
        case .connected:
            LinkReducer.open(&s, id)
            return []
        case .connecting, .resolvingServices, .readingDescriptors:
            // On its way, opened by someone else (Pair connects first, and BlueZ may say
            // Paired before ServicesResolved): the user asks for it now, so its screen opens
            // once it is ready, as for a link the user opened.
            if s.pendingConnection != id {
                s.pendingConnection = id
                if s.job == nil { s.links.add(id) }
                s.alert = Alert(.info, "\(p.displayName) is \(p.connection.label)…", at: s.now)
            }
            return []
        case .disconnecting:
            // Never a key that does nothing: it is on its way down; Enter again once it is.
            s.alert = Alert(.info, "\(p.displayName) is disconnecting…", at: s.now)
            return []
        case .disconnected, .failed:
            guard p.connectable else {
                s.alert = Alert(.warning, "\(p.displayName) is not connectable (it only broadcasts)", at: s.now)
                return []
            }
            p.connection = .connecting(attempt: 1)
            s.peripherals[id] = p
            s.pendingConnection = id
            if s.job == nil { s.links.add(id) }
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
        // Connected by another program, or by bluetoothd itself: a link of the adapter all the same.
        if s.job == nil { s.links.add(id) }
        if s.pendingConnection == id { s.alert = Alert(.info, "Resolving services of \(p.displayName)…", at: s.now) }
    }

    /// Services are known. Their labels (0x2901) and formats (0x2904) are read before the
    /// peripheral counts as ready, as nRF Connect does, so that every mode shows a value
    /// the same way from the first one on; extended properties (0x2900) and server
    /// configurations (0x2903) with them, for `services` and the characteristic screen.
    static func servicesResolved(_ s: inout AppState, _ id: PeripheralID, _ services: [GATTService], mtu: Int?) -> [Effect] {
        guard var p = s.peripherals[id] else { return [] }
        if p.connection == .connected, let before = p.services, s.pendingConnection != id, s.linkLoss[id] == nil {
            return databaseChanged(&s, p, from: before, to: services, mtu: mtu)
        }
        p.services = services
        p.mtu = mtu
        let owed = readOnConnecting(services)
        if p.connection != .disconnecting { p.connection = owed.isEmpty ? .connected : .readingDescriptors }
        s.peripherals[id] = p
        guard !owed.isEmpty else { return ready(&s, id) }
        s.descriptorReads[id] = Set(owed.map(\.id))
        if s.pendingConnection == id { s.alert = Alert(.info, "Reading descriptors of \(p.displayName)…", at: s.now) }
        return owed.map { .backend(.readDescriptor(id, $0.id)) }
    }

    /// The descriptors read when services resolve (and again, those not read yet, when they change).
    static func readOnConnecting(_ services: [GATTService]) -> [GATTDescriptor] {
        services.flatMap(\.characteristics).flatMap(\.descriptors).filter { ["2900", "2901", "2903", "2904"].contains($0.uuid) }
    }

    /// A descriptor read came back (or failed: an unreadable descriptor only costs its
    /// label). The last one owed makes its peripheral ready.
    static func descriptorRead(_ s: inout AppState, _ did: AttributeID) -> [Effect] {
        guard let id = s.descriptorReads.first(where: { $0.value.contains(did) })?.key else { return [] }
        s.descriptorReads[id]?.remove(did)
        guard s.descriptorReads[id]?.isEmpty == true else { return [] }
        s.descriptorReads[id] = nil
        if s.peripherals[id]?.connection == .readingDescriptors { s.peripherals[id]?.connection = .connected }
        return ready(&s, id)
    }

    /// Connected, services resolved, descriptors read: the device screen opens by itself
    /// when the user asked for this connection. After a link loss the screen that stayed
    /// open stays, and the subscriptions that were on are turned on again.
    static func ready(_ s: inout AppState, _ id: PeripheralID) -> [Effect] {
        // Not when the user gave up meanwhile (Esc while reading: the link is going down).
        guard let p = s.peripherals[id], p.connection == .connected else { return [] }
        let loss = s.linkLoss.removeValue(forKey: id)
        let kept = loss != nil && Reducer.routeShows(s.route, id)
        if s.pendingConnection == id {
            s.pendingConnection = nil
            var said = (loss == nil ? "Connected to " : "Reconnected to ") + p.displayName
            if !kept, LinkReducer.showsAnotherLink(s, than: id) {
                // The user went on to another link's screen meanwhile: it stays.
                if let n = s.links.number(of: id) { said += ": \(n) goes to it" }
            } else if !kept {
                LinkReducer.open(&s, id)
            }
            s.alert = Alert(.info, said, at: s.now)
        } else if loss == nil {
            return []
        }
        if kept { keepPlace(&s, p) }
        // A replay plays the subscriptions as they were recorded; a command makes its own.
        guard let loss, s.replay == nil, s.job == nil else { return [] }
        let characteristics = p.services?.flatMap(\.characteristics) ?? []
        let again = characteristics.filter { loss.subscriptions.contains($0.id) && $0.properties.canSubscribe }.map(\.id)
        guard !again.isEmpty else { return [] }
        s.alert = Alert(.info, "Reconnected to \(p.displayName); turning \(again.count) subscription\(again.count == 1 ? "" : "s") on again",
                        at: s.now)
        return again.map { .backend(.setNotify(id, $0, true)) }
    }

    /// The services of a ready device again (BlueZ re-resolved them: the device's database
    /// changed, Service Changed): the tree is the new one; the open characteristic follows
    /// its UUID (BlueZ gives the attributes new paths) or the screen says it is gone;
    /// subscriptions to what is gone end. The same tree again changes nothing.
    static func databaseChanged(_ s: inout AppState, _ p0: Peripheral, from before: [GATTService], to services: [GATTService],
                                mtu: Int?) -> [Effect] {
        guard services != before else { return [] }
        var p = p0
        p.services = services
        if let mtu { p.mtu = mtu }
        s.peripherals[p.id] = p
        let now = Set(services.flatMap(\.characteristics).map(\.id))
        /// The same characteristic (its UUID in a service of the same UUID) at its new path.
        func counterpart(_ cid: CharacteristicID) -> GATTCharacteristic? {
            guard let old = before.first(where: { $0.characteristics.contains { $0.id == cid } }),
                  let uuid = old.characteristics.first(where: { $0.id == cid })?.uuid else { return nil }
            return services.filter { $0.uuid == old.uuid }.flatMap(\.characteristics).first { $0.uuid == uuid }
        }
        var effects: [Effect] = []
        for c in before.flatMap(\.characteristics) where !now.contains(c.id) {
            let moved = counterpart(c.id)
            if s.subscriptions.remove(c.id) != nil, let moved, moved.properties.canSubscribe {
                effects.append(.backend(.setNotify(p.id, moved.id, true)))   // on again where it went
            }
            s.notifySockets[c.id] = nil
            s.operations[c.id] = nil
            if let moved, let v = s.values.removeValue(forKey: c.id) { s.values[moved.id] = v }
        }
        var said = "The services of \(p.displayName) changed: \(services.count) service\(services.count == 1 ? "" : "s") now"
        if case let .characteristic(pid, cid) = s.route, pid == p.id, !now.contains(cid) {
            if let moved = counterpart(cid) {
                s.route = .characteristic(pid, moved.id)
            } else {
                let c = before.flatMap(\.characteristics).first { $0.id == cid }
                let name = c.map { c in s.userDescription(c).map { "“\($0)”" } ?? AssignedNumbers.characteristicName(c.uuid) ?? c.uuid.description }
                s.route = .device(pid)
                said += "; \(name ?? "the characteristic") is gone"
            }
        }
        keepPlace(&s, p)
        s.alert = Alert(.warning, said, at: s.now)
        let owed = readOnConnecting(services).filter { s.descriptorValues[$0.id] == nil }
        return effects + owed.map { .backend(.readDescriptor(p.id, $0.id)) }
    }

    /// The screen kept across a link loss, against the services resolved again: a
    /// characteristic that is gone goes back to the tree, a cursor that is gone to its top.
    static func keepPlace(_ s: inout AppState, _ p: Peripheral) {
        if case let .characteristic(pid, cid) = s.route, p.characteristic(cid) == nil {
            s.route = .device(pid)
        }
        let rows = DeviceTree.rows(p, collapsed: s.device.collapsed)
        if !rows.contains(where: { $0.id == s.device.cursor }) { s.device.cursor = rows.first?.id }
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
        // Reconnecting after a link loss: the screen stays, and says why it is still down.
        if s.linkLoss[id] != nil {
            s.linkLoss[id]?.reason = "reconnecting failed: \(error)"
            s.linkLoss[id]?.at = s.now
            return
        }
        s.links.remove(id)
        guard Reducer.routeShows(s.route, id) else { return }
        s.route = .scan
        s.scan.cursor = id
    }

    static func disconnected(_ s: inout AppState, _ id: PeripheralID, _ reason: DisconnectReason) {
        guard var p = s.peripherals[id] else { return }
        // `d`, or Esc while connecting: the user's own; anything else is a link lost.
        let asked = p.connection == .disconnecting
        p.connection = .disconnected
        s.peripherals[id] = p
        s.descriptorReads[id] = nil
        // Still pending: the user gave up before the device was ready (Esc while connecting).
        let cancelled = s.pendingConnection == id
        if s.pendingConnection == id { s.pendingConnection = nil }
        let characteristics = p.services?.flatMap(\.characteristics).map(\.id) ?? []
        let wereOn = Set(characteristics.filter { s.subscriptions.contains($0) })
        for c in characteristics { s.subscriptions.remove(c); s.notifySockets[c] = nil }
        var message = "\(p.displayName) disconnected: \(reason)", level = Alert.Level.warning
        // A peer that refuses a pairing drops the link right after: the refusal is what the
        // user needs to read, so it stays, and the disconnect is added to it.
        if let failed = s.alert, failed.level == .error,
           failed.message.hasPrefix(PairingReducer.failed(s, id)),
           !failed.message.contains("; then disconnected") {
            message = "\(failed.message); then disconnected: \(reason)"
            level = .error
        }
        if reason == .local, let forgetting = s.alert, forgetting.message.hasPrefix(PairingReducer.forgetting(s, id)) {
            // Forgetting a device drops its link: what the user asked for stays said.
            s.alert = Alert(.info, forgetting.message + "; disconnected", at: s.now)
        } else if reason == .local {
            s.alert = Alert(.info, cancelled ? "Connection to \(p.displayName) cancelled" : "Disconnected from \(p.displayName)", at: s.now)
        } else {
            s.alert = Alert(level, message, at: s.now)
            s.lastError = message
        }
        if asked { s.linkLoss[id] = nil }
        let shown = Reducer.routeShows(s.route, id)
        // The device or characteristic screen keeps its place, its history and a half-typed
        // line, on screen or left for another link's (a command has no screen to keep;
        // details only shows the advertisement).
        if !asked, s.job == nil, shown ? keepsPlace(s.route) || s.links.places[id] != nil : s.links.places[id] != nil {
            let before = s.linkLoss[id]?.subscriptions ?? []
            s.linkLoss[id] = LinkLoss(reason: reason.description, at: s.now, subscriptions: before.union(wereOn))
            return
        }
        s.links.remove(id)
        guard shown else { return }
        s.route = .scan
        s.scan.cursor = id
        s.input = nil
    }

    static func keepsPlace(_ route: Route) -> Bool {
        switch route {
        case .device, .characteristic: return true
        case .scan, .details, .regions: return false
        }
    }

    /// Enter on a screen kept after a link loss (or a line submitted there): connect again.
    static func reconnect(_ s: inout AppState, _ id: PeripheralID) -> [Effect] {
        guard let p = s.peripherals[id] else { return [] }
        if p.connection.isLinkUp || p.connection.isConnecting {
            s.alert = Alert(.info, "Still connecting to \(p.displayName)…", at: s.now)
            return []
        }
        return connect(&s, id)
    }

    /// Whether a GATT operation can go out to `id` now; if not, the user is told why and
    /// how to get the link back.
    static func linkReady(_ s: inout AppState, _ id: PeripheralID) -> Bool {
        guard let p = s.peripherals[id] else { return false }
        switch p.connection {
        case .connected, .readingDescriptors: return true
        case .disconnected, .failed:
            s.alert = Alert(.warning, "\(p.displayName) is disconnected: Enter reconnects", at: s.now)
        case .connecting, .resolvingServices, .disconnecting:
            s.alert = Alert(.info, "\(p.displayName) is \(p.connection.label)…", at: s.now)
        }
        return false
    }
}
