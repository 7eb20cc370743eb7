/// Pairing in the job reducer: `pair`, and an operation refused for want of encryption that
/// pairing lets through (the app's reducer pairs; the job waits and says so). Pure, as JobReducer.
extension JobReducer {
    /// `pair`: Device1.Pair connects by itself; pairing can wait on the other device's user.
    static func pair(_ s: inout AppState, _ job: inout JobState, _ id: PeripheralID) -> [Effect] {
        job.phase = .working
        if s.peripherals[id]?.bond.paired == true {
            return [.output(.warning("\(id) is already paired"))] + leave(&s, &job, exitCode: 0)
        }
        s.pairing = id
        return [.backend(.pair(id)), .startTimer(.operation, after: pairTimeout)]
    }

    /// The operation was refused for want of encryption and the app's reducer started pairing.
    static func pairingOnDemand(_ s: AppState, _ job: inout JobState, _ what: String) -> [Effect] {
        job.pairingOnDemand = true
        let who = job.job.address ?? job.target?.rawValue ?? ""
        let said = Effect.output(.warning("\(who) refused \(what) for want of encryption: pairing…"))
        if case .watch = job.job { return [said] }
        return [said, .startTimer(.operation, after: pairTimeout)]
    }

    /// bluetoothd raised the link's security for the operation under way (a read of a
    /// characteristic that needs encryption) and asked our agent, which refused (`--confirm
    /// no`, or no terminal to ask on): bluetoothd 5.66 then never answers the operation (NoReply
    /// after a minute), so the command ends now, saying why. (A pairing we started for a
    /// refused operation ends by itself, with Device1.Pair's error.)
    static func pairingRefused(_ s: inout AppState, _ job: inout JobState, _ action: Action, _ effects: [Effect]) -> [Effect] {
        guard case let .backend(.agentRequested(r), _) = action, r.device == job.target, job.phase == .working,
              let aid = job.descriptor ?? job.characteristic, let op = s.operations[aid], !op.waitingForPairing else { return [] }
        for case let .backend(.answerAgent(id, .reject(why))) in effects where id == r.id {
            let what = (op.isDescriptor ? "descriptor " : "") + op.verb.lowercased()
            return fail(&s, &job, "\(what) failed: bluetoothd asked to pair for it, and the request was rejected: \(why)")
        }
        return []
    }

    /// Pairing for a refused operation ended: the app's reducer sent it again, or it failed.
    static func pairedOnDemand(_ s: inout AppState, _ job: inout JobState, _ id: PeripheralID, _ error: BackendError?) -> [Effect] {
        guard job.pairingOnDemand else { return [] }
        job.pairingOnDemand = false
        // watch too: a pairing that fails now would fail again at every reconnection.
        if let error { return fail(&s, &job, "pairing with \(id) failed: \(error)") }
        let said = Effect.output(.warning("paired with \(id); sent again"))
        return job.hasOperationTimer ? [said, .startTimer(.operation, after: operationTimeout)] : [said]
    }
}
