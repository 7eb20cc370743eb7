/// Backend events into state: the scan list, connections, values.
enum BackendReducer {
    static func reduce(_ s: inout AppState, _ event: BackendEvent, at: Timestamp) -> [Effect] {
        switch event {
        case let .adapterChanged(status):
            if status.discovering && !s.adapter.discovering { s.scanStartedAt = at }
            if !status.discovering { s.scanStartedAt = nil }
            s.adapter = status
        case let .advertisementReceived(report):
            return advertisementReceived(&s, report, at: at)
        case let .advertisementsReceived(reports):
            // Each report as if it came on its own: same state, same effects in order.
            var effects: [Effect] = []
            for i in reports.indices {
                let e = advertisementReceived(&s, reports[i], at: at)
                if !e.isEmpty { effects += e }
            }
            return effects
        case let .rssiLost(id):
            s.peripherals[id]?.rssiStale = true
        case let .peripheralRemoved(id):
            if let p = s.peripherals[id], !p.connection.isLinkUp, s.pendingConnection != id,
               !Reducer.routeShows(s.route, id), !s.links.contains(id) {
                s.peripherals.removeValue(forKey: id)
            }
        case let .connecting(id, attempt):
            ConnectionReducer.connecting(&s, id, attempt: attempt)
        case let .connected(id):
            ConnectionReducer.linkUp(&s, id)
        case let .servicesResolved(id, services, mtu):
            return ConnectionReducer.servicesResolved(&s, id, services, mtu: mtu)
        case let .descriptorRead(did, result):
            return DescriptorReducer.read(&s, did, result)
        case let .descriptorWritten(did, bytes, error):
            return DescriptorReducer.written(&s, did, bytes, error)
        case let .connectFailed(id, error):
            ConnectionReducer.connectFailed(&s, id, error)
        case let .disconnected(id, reason):
            ConnectionReducer.disconnected(&s, id, reason)
            OnDemand.linkDown(&s, id)
        case let .readCompleted(cid, .success(bytes)):
            s.operations[cid] = nil
            s.values[cid, default: ValueLog()].append(ValueEntry(at: at, bytes: bytes, origin: .read))
        case let .readCompleted(cid, .failure(error)):
            var effects: [Effect] = []
            let device = s.operations[cid]?.device
            if OnDemand.refused(&s, cid, error, &effects) { return effects }
            s.values[cid, default: ValueLog()].append(ValueEntry(at: at, bytes: [], origin: .read, error: error.description))
            Reducer.fail(&s, "Read \(label(s, cid)) failed: \(error)" + OnDemand.hint(s, device, error))
        case let .writeCompleted(cid, bytes, type, nil):
            s.operations[cid] = nil
            s.values[cid, default: ValueLog()].append(ValueEntry(at: at, bytes: bytes, origin: .write))
            let mtu = s.peripherals.values.first { $0.characteristic(cid) != nil }?.mtu
            let how = WriteType.isLong(bytes.count, type: type, mtu: mtu) ? " (long write\(type == .reliable ? ", reliable" : ""))"
                : type == .request ? "" : " (\(type.title))"
            s.alert = Alert(.info, "Wrote \(bytes.count) byte\(bytes.count == 1 ? "" : "s") to \(label(s, cid))\(how)", at: at)
        case let .writeCompleted(cid, bytes, _, error?):
            var effects: [Effect] = []
            let device = s.operations[cid]?.device
            if OnDemand.refused(&s, cid, error, &effects) { return effects }
            s.values[cid, default: ValueLog()].append(ValueEntry(at: at, bytes: bytes, origin: .write, error: error.description))
            Reducer.fail(&s, "Write \(label(s, cid)) failed: \(error)" + OnDemand.hint(s, device, error))
        case let .notifyChanged(cid, enabled, nil):
            s.operations[cid] = nil
            if enabled { s.subscriptions.insert(cid) } else { s.subscriptions.remove(cid); s.notifySockets[cid] = nil }
            s.alert = Alert(.info, "\(subscription(s, cid)) \(enabled ? "on" : "off"): \(label(s, cid))", at: at)
        case let .writeAcquired(cid, mtu):
            // The MTU of the link, as with AcquireNotify's.
            if let id = s.peripherals.values.first(where: { $0.characteristic(cid) != nil })?.id {
                s.peripherals.update(id) { p in p.mtu = max(p.mtu ?? 0, mtu) }
            }
        case .writeNotAcquired, .writesFlushed:
            break   // a command's (`write --file`): JobReducer's
        case let .notificationsAcquired(cid, mtu):
            s.notifySockets[cid] = mtu
            // The MTU of the link, where BlueZ gave none with the services (before 5.62).
            if let id = s.peripherals.values.first(where: { $0.characteristic(cid) != nil })?.id {
                s.peripherals.update(id) { p in p.mtu = max(p.mtu ?? 0, mtu) }
            }
        case let .notifyChanged(cid, enabled, error?):
            var effects: [Effect] = []
            let device = s.operations[cid]?.device
            if OnDemand.refused(&s, cid, error, &effects) { return effects }
            Reducer.fail(&s, "\(subscription(s, cid)) \(enabled ? "on" : "off") for \(label(s, cid)) failed: \(error)"
                         + OnDemand.hint(s, device, error))
        case let .valueNotified(cid, bytes):
            return notified(&s, cid, bytes, at: at)
        case let .valuesNotified(cid, values):
            // Each value as if it came on its own, at its own time. The characteristic's
            // history is found once for them all: hashing its path for every value was an
            // eighth of a notification's reduction (callgrind, 2026-12-06).
            s.values[cid, default: ValueLog()].append(notified: values)
            var effects: [Effect] = []
            for v in values {
                let e = passedOn(&s, cid, v.bytes, at: v.at)
                if !e.isEmpty { effects += e }
            }
            return effects
        case let .scanFailed(error):
            s.scanWanted = false
            Reducer.fail(&s, "Scan failed: \(error)")
        case let .failure(error):
            Reducer.fail(&s, error.description)
        case let .agentRequested(request):
            return PairingReducer.requested(&s, request)
        case .agentCancelled:
            return PairingReducer.cancelled(&s)
        case .agentReleased:
            s.agentPrompt = nil
            s.alert = Alert(.warning, "bluetoothd released our pairing agent", at: at)
        case let .pairCompleted(id, error):
            let stands = PairingReducer.completed(&s, id, error)
            return OnDemand.paired(&s, id, stands)
        case let .bondChanged(id, bond):
            PairingReducer.bondChanged(&s, id, bond)
        case let .propertyUnreadable(p):
            // A warning, not an error: what could be read is shown; the log keeps it.
            s.alert = Alert(.warning, p.description, at: at)
        }
        return []
    }

    /// A notification: the value's history, the message view's stream (`m`, when open),
    /// the hook attached with `a`.
    static func notified(_ s: inout AppState, _ cid: CharacteristicID, _ bytes: Bytes, at: Timestamp) -> [Effect] {
        s.values[cid, default: ValueLog()].append(ValueEntry(at: at, bytes: bytes, origin: .notify))
        return passedOn(&s, cid, bytes, at: at)
    }

    /// A notified value (in its history already) to the stream and the hook that follow
    /// its characteristic, if any.
    static func passedOn(_ s: inout AppState, _ cid: CharacteristicID, _ bytes: Bytes, at: Timestamp) -> [Effect] {
        if !s.streams.isEmpty { s.streams[cid]?.add(bytes, at: at) }
        if !s.attachedHooks.isEmpty, s.attachedHooks[cid] != nil,
           let p = s.peripherals.values.first(where: { $0.characteristic(cid) != nil }), let (_, c) = p.characteristic(cid) {
            s.hookActivity[cid, default: HookActivity()].fired += 1
            return [.fireHook(cid, s.firedEvent(at: at, address: p.address, c, bytes))]
        }
        return []
    }

    static func advertisementReceived(_ s: inout AppState, _ report: AdvertisementReport, at: Timestamp) -> [Effect] {
        advertisement(&s, report, at: at)
        // Heard again after `C` forgot it: connect, with bluetoothd's cache of it empty.
        if s.reconnectAfterForget == report.id, s.peripherals[report.id]?.connection.isLinkUp == false {
            s.reconnectAfterForget = nil
            return ConnectionReducer.reconnect(&s, report.id) + beaconHeard(&s, report.id, address: report.address, rssi: report.rssi, at: at)
        }
        return beaconHeard(&s, report.id, address: report.address, rssi: report.rssi, at: at)
    }

    /// After an advertisement: if it is a region's iBeacon, the region watch decides whether the
    /// region is entered or left.
    static func beaconHeard(_ s: inout AppState, _ id: PeripheralID, address: String, rssi: Int?, at: Timestamp) -> [Effect] {
        guard !s.regionWatch.regions.isEmpty, let p = s.peripherals[id],
              case let .iBeacon(uuid, major, minor, _)? = p.advertisement.beacon else { return [] }
        // BlueZ leaves an unchanged RSSI out of a report: the last one still holds.
        return s.regionWatch.observe(address: address, uuid: uuid, major: major, minor: minor, rssi: rssi ?? p.rssi, at: at)
            .map { .regionChanged($0) }
    }

    static func advertisement(_ s: inout AppState, _ r: AdvertisementReport, at: Timestamp) {
        if s.peripherals.update(r.id, { $0.apply(r, at: at) }) == nil {
            s.peripherals[r.id] = Peripheral(
                id: r.id, address: r.address, name: r.name ?? r.advertisement.localName, rssi: r.rssi,
                seen: at, connectable: r.connectable ?? true, advertisement: r.advertisement)
        }
    }

    /// "Indications" for a characteristic that only indicates, else "Notifications".
    static func subscription(_ s: AppState, _ cid: CharacteristicID) -> String {
        for p in s.peripherals.values {
            if let (_, c) = p.characteristic(cid) { return c.properties.indicatesOnly ? "Indications" : "Notifications" }
        }
        return "Notifications"
    }

    /// "Heart Rate Measurement" or the UUID, for messages.
    static func label(_ s: AppState, _ cid: CharacteristicID) -> String {
        for p in s.peripherals.values {
            if let (_, c) = p.characteristic(cid) {
                return AssignedNumbers.characteristicName(c.uuid) ?? c.uuid.description
            }
        }
        return cid.path
    }
}
