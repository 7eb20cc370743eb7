/// `scan` without `--duration`, as `bluetoothctl scan on`: a line when a device is first
/// heard (`new`), whenever a report changes what it says (`change`: its RSSI, name,
/// connectability or advertisement; a report that says nothing new prints nothing), and
/// when it is gone (`gone`: bluetoothd dropped it, or it was not heard for
/// `AppState.expireAfter`), until SIGINT or SIGTERM (exit 0: it runs until stopped).
public enum LiveScan {
    /// One line's worth.
    public struct Event: Equatable, Sendable {
        public enum Kind: String, Sendable { case new, change, gone }
        public var kind: Kind
        public var at: Timestamp
        public var peripheral: Peripheral
        /// For `change`: what changed since the last line about the device, of `name`,
        /// `rssi`, `connectable` and `advertisement`.
        public var changed: [String]
    }

    /// What the last line about a device said.
    struct Mark: Equatable, Sendable {
        var name: String?
        var rssi: Int?
        var connectable: Bool
        var advertisement: Advertisement
        /// Not compared: for the `gone` line.
        var address: String, firstSeen: Timestamp, lastSeen: Timestamp
        init(_ p: Peripheral) {
            name = p.name; rssi = p.rssi; connectable = p.connectable; advertisement = p.advertisement
            address = p.address; firstSeen = p.firstSeen; lastSeen = p.lastSeen
        }

        func changes(to m: Mark) -> [String] {
            var out: [String] = []
            if name != m.name { out.append("name") }
            if rssi != m.rssi { out.append("rssi") }
            if connectable != m.connectable { out.append("connectable") }
            if advertisement != m.advertisement { out.append("advertisement") }
            return out
        }
    }

    /// After reports from these devices (the app's reducer has applied them).
    static func heard(_ s: AppState, _ job: inout JobState, _ ids: [PeripheralID], at: Timestamp) -> [Effect] {
        var out: [Effect] = []
        for id in ids {
            guard let p = s.peripherals[id] else { continue }
            let mark = Mark(p)
            if let before = job.printed[id] {
                let changed = before.changes(to: mark)
                guard !changed.isEmpty else { continue }
                out.append(.output(.scanEvent(Event(kind: .change, at: at, peripheral: p, changed: changed))))
            } else {
                out.append(.output(.scanEvent(Event(kind: .new, at: at, peripheral: p, changed: []))))
            }
            job.printed[id] = mark
        }
        return out
    }

    /// Devices printed before that the state no longer holds.
    static func gone(_ s: AppState, _ job: inout JobState) -> [Effect] {
        guard job.isLiveScan else { return [] }
        let gone = job.printed.keys.filter { s.peripherals[$0] == nil }.sorted { $0.rawValue < $1.rawValue }
        return gone.compactMap { id in
            guard let mark = job.printed.removeValue(forKey: id) else { return nil }
            // Its last known self: the state has forgotten it.
            var p = Peripheral(id: id, address: mark.address, name: mark.name, rssi: mark.rssi, seen: mark.firstSeen,
                               connectable: mark.connectable, advertisement: mark.advertisement)
            p.lastSeen = mark.lastSeen
            p.rssiStale = true
            return .output(.scanEvent(Event(kind: .gone, at: s.now, peripheral: p, changed: [])))
        }
    }
}
