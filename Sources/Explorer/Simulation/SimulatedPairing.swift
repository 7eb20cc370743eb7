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
        case .passkey, .pinCode, .accept:
            schedule(t + 0.3) { [unowned self] t in
                self.emit(t, .pairCompleted(d.id, BackendError(name: "org.bluez.Error.AuthenticationFailed",
                                                               message: "Authentication Failed")))
            }
        }
    }

    func paired(_ d: SimDevice, _ t: Double) {
        d.bond.paired = true
        d.bond.bonded = true
        emit(t, .bondChanged(d.id, d.bond))
        emit(t, .pairCompleted(d.id, nil))
    }
}
