import Explorer

/// A Connect that brings no link. bluetoothd 5.66 (the lab, about one connect in ten right
/// after the last link to the same peer went down): the peer saw the link come up and the
/// central's battery plugin subscribe, but bluetoothd logged "Device … is already
/// connected", never said Connected=true, and its Connect stayed unanswered until the
/// command gave up 45 s later. Once per connect, a link still down after `stallSeconds` is
/// given up (Disconnect, which ends what bluetoothd holds) and asked for again as attempt 2,
/// which the app shows as any second attempt.
struct ConnectAttempts {
    /// The attempt whose answer counts, by device (a later one supersedes a stalled one).
    var attempt: [PeripheralID: Int] = [:]
    /// Attempt 1's watch, while it runs.
    var watches: [PeripheralID: EventLoop.TimerID] = [:]
    /// Given up, Disconnect asked: the Connected=false it may bring is not a link lost (the
    /// app never saw the link up).
    var restarting: Set<PeripheralID> = []
    var stallSeconds = 12.0
    /// After Disconnect answered: a moment for the Connected=false it may bring.
    var settleSeconds = 1.0
}

extension BlueZBackend {
    func watchForStall(_ id: PeripheralID, _ path: String) {
        stopStallWatch(id)
        guard let loop else { return }
        connects.watches[id] = loop.schedule(after: connects.stallSeconds) { [weak self] in
            self?.connects.watches[id] = nil
            self?.linkStalled(id, path)
        }
    }

    /// The link came up, the attempt failed, or the user gave it up: no more watching.
    func stopStallWatch(_ id: PeripheralID) {
        if let t = connects.watches.removeValue(forKey: id) { loop?.cancel(t) }
        connects.restarting.remove(id)
    }

    /// Attempt 1 brought no link in time: Disconnect, then Connect again (attempt 2).
    func linkStalled(_ id: PeripheralID, _ path: String) {
        guard connects.attempt[id] == 1, devicePaths[id] == path, !localDisconnects.contains(id),
              mirror[path, BlueZTranslate.device]?["Connected"]?.bool != true else { return }
        connects.attempt[id] = 2   // attempt 1's answer, if it ever comes, is not the one
        connects.restarting.insert(id)
        call(path, BlueZTranslate.device, "Disconnect") { [weak self] _ in
            guard let self, let loop = self.loop else { return }
            _ = loop.schedule(after: self.connects.settleSeconds) { [weak self] in
                guard let self, self.connects.restarting.remove(id) != nil, self.connects.attempt[id] == 2,
                      self.devicePaths[id] == path, !self.localDisconnects.contains(id) else { return }
                self.connect(id, attempt: 2)
            }
        }
    }
}
