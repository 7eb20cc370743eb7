/// The simulated world's pairing: Demo Lock has our agent asked for its passkey, as
/// bluetoothd would, and pairs only with the right one.
extension SimulatedWorld {
    /// Like bluetoothd: a device with a passkey has our agent asked for it; others just work.
    func pair(_ id: PeripheralID, _ t: Double) {
        guard let d = byID[id], d.connectable else {
            emit(t, .pairCompleted(id, BackendError(name: "org.bluez.Error.DoesNotExist", message: "Does Not Exist")))
            return
        }
        if d.bond.paired {
            emit(t, .pairCompleted(id, BackendError(name: "org.bluez.Error.AlreadyExists", message: "Already Exists")))
            return
        }
        // Pair connects first when the link is down, and the link stays up after it.
        if !d.connected { pairingLink(d, t) }
        guard d.link.passkey != nil else {
            schedule(t + 0.3) { [unowned self] t in self.paired(d, t) }
            return
        }
        let request = nextRequest
        nextRequest += 1
        schedule(t + 0.2) { [unowned self] t in
            self.agentRequests[request] = d
            self.emit(t, .agentRequested(AgentRequest(id: request, device: id, kind: .passkey)))
            // bluetoothd gives up on an unanswered agent after a while.
            self.schedule(t + 60) { [unowned self] t in
                guard self.agentRequests.removeValue(forKey: request) != nil else { return }
                self.emit(t, .agentCancelled)
                self.emit(t, .pairCompleted(id, BackendError(name: "org.bluez.Error.AuthenticationTimeout",
                                                                  message: "Authentication Timeout")))
                self.resolveAfterPairing(d, t)
            }
        }
    }

    func answered(_ request: Int, _ answer: AgentAnswer, _ t: Double) {
        guard let d = agentRequests.removeValue(forKey: request) else { return }
        switch answer {
        case let .passkey(n) where n == d.link.passkey:
            schedule(t + 0.3) { [unowned self] t in self.paired(d, t) }
        case .reject:
            emit(t, .pairCompleted(d.id, BackendError(name: "org.bluez.Error.AuthenticationRejected",
                                                      message: "Authentication Rejected")))
            resolveAfterPairing(d, t)
        case .passkey, .pinCode, .accept:
            schedule(t + 0.3) { [unowned self] t in
                self.emit(t, .pairCompleted(d.id, BackendError(name: "org.bluez.Error.AuthenticationFailed",
                                                               message: "Authentication Failed")))
                self.resolveAfterPairing(d, t)
            }
        }
    }

    /// The link Pair opens: up at once, its services resolved a little after the pairing
    /// ends (as BlueZ 5.82 does: Paired first, ServicesResolved a moment later).
    func pairingLink(_ d: SimDevice, _ t: Double) {
        let gen = bumpLink(d)
        servicesOwed[d.id] = gen
        schedule(t + 0.05) { [unowned self] t in
            guard d.linkGeneration == gen else { return }
            d.connected = true
            self.emit(t, .connected(d.id))
        }
    }

    func paired(_ d: SimDevice, _ t: Double) {
        d.bond.paired = true
        d.bond.bonded = true
        emit(t, .bondChanged(d.id, d.bond))
        emit(t, .pairCompleted(d.id, nil))
        resolveAfterPairing(d, t)
    }

    /// The services of a link Pair opened, once the pairing ended either way.
    func resolveAfterPairing(_ d: SimDevice, _ t: Double) {
        guard let gen = servicesOwed.removeValue(forKey: d.id) else { return }
        schedule(t + 0.5) { [unowned self] t in
            guard d.linkGeneration == gen, d.connected else { return }
            self.emit(t, .servicesResolved(d.id, d.gatt, mtu: Self.mtu))
        }
    }
}
