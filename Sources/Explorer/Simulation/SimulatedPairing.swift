/// The simulated world's pairing, as bluetoothd would ask our agent: Demo Lock shows a
/// passkey to type, Demo Keypad compares a number (or types the one we show), and each pairs
/// only with the right answer.
extension SimulatedWorld {
    /// Like bluetoothd: the method comes from the device's capability and our agent's.
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
        let method = d.link.pairing.method(with: agentCapability)
        let kind: AgentRequestKind
        switch method {
        case .justWorks:
            schedule(t + 0.3) { [unowned self] t in self.paired(d, t) }
            return
        case .enter: kind = .passkey
        case let .confirm(n): kind = .confirmation(n)
        case let .display(p):
            displayPasskey(d, p, t)
            return
        }
        let request = nextRequest
        nextRequest += 1
        schedule(t + 0.2) { [unowned self] t in
            self.agentRequests[request] = d
            self.emit(t, .agentRequested(AgentRequest(id: request, device: id, kind: kind)))
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

    /// DisplayPasskey: we show `passkey`; the device's user types it, a digit every half
    /// second after a moment (bluetoothd calls DisplayPasskey again with each keypress the
    /// device notifies), then it pairs.
    func displayPasskey(_ d: SimDevice, _ passkey: UInt32, _ t: Double) {
        for entered in 0...6 {
            let request = nextRequest
            nextRequest += 1
            schedule(t + 0.2 + (entered == 0 ? 0 : 2.0 + 0.5 * Double(entered))) { [unowned self] t in
                self.emit(t, .agentRequested(AgentRequest(id: request, device: d.id, kind: .displayPasskey(passkey, entered: entered))))
            }
        }
        schedule(t + 5.7) { [unowned self] t in
            guard d.connected else {
                return self.emit(t, .pairCompleted(d.id, BackendError(name: "org.bluez.Error.AuthenticationCanceled",
                                                                      message: "Authentication Canceled")))
            }
            self.paired(d, t)
        }
    }

    func answered(_ request: Int, _ answer: AgentAnswer, _ t: Double) {
        guard let d = agentRequests.removeValue(forKey: request) else { return }   // a display request's: nothing to do
        let right: Bool
        switch (d.link.pairing.method(with: agentCapability), answer) {
        case let (.enter(p), .passkey(n)): right = n == p
        case (.confirm, .accept): right = true
        default: right = false
        }
        switch (d.link.pairing.method(with: agentCapability), answer) {
        case _ where right:
            schedule(t + 0.3) { [unowned self] t in self.paired(d, t) }
        case (.enter, .reject):
            emit(t, .pairCompleted(d.id, BackendError(name: "org.bluez.Error.AuthenticationRejected",
                                                      message: "Authentication Rejected")))
            resolveAfterPairing(d, t)
        default:
            // A wrong passkey, or a comparison said no to: the device's SMP fails it, and
            // bluetoothd says AuthenticationFailed (as the lab's peers show).
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
