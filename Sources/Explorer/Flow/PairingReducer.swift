/// Pairing: the agent's requests become a prompt (or, headless, the answer given on the
/// command line, or a rejection); pair, trust, block and forget become BlueZ commands.
enum PairingReducer {
    /// The device a key on the scan list, details or device screen means.
    static func target(_ s: AppState) -> PeripheralID? {
        switch s.route {
        case .scan: return s.scan.cursor ?? s.peripherals.order.first
        case let .device(pid), let .characteristic(pid, _), let .details(pid): return pid
        case .regions: return nil
        }
    }

    static func name(_ s: AppState, _ id: PeripheralID) -> String {
        // Untrusted: the device chose it.
        TerminalSafe.text(s.peripherals[id]?.displayName ?? id.rawValue)
    }

    /// How the message a failed pairing leaves begins (a disconnect that follows keeps it).
    static func failed(_ s: AppState, _ id: PeripheralID) -> String {
        "Pairing with \(name(s, id)) failed"
    }

    /// The start of what `X` says once confirmed; the disconnect that follows keeps it.
    static func forgetting(_ s: AppState, _ id: PeripheralID) -> String {
        "Forgetting \(name(s, id))"
    }

    static func pair(_ s: inout AppState) -> [Effect] {
        guard let id = target(s), let p = s.peripherals[id] else { return [] }
        if p.bond.paired {
            s.alert = Alert(.info, "\(name(s, id)) is already paired", at: s.now)
            return []
        }
        guard s.pairing == nil else { return [] }
        s.pairing = id
        s.alert = Alert(.info, "Pairing with \(name(s, id))…", at: s.now)
        return [.backend(.pair(id))]
    }

    static func trust(_ s: inout AppState) -> [Effect] {
        guard let id = target(s), let p = s.peripherals[id] else { return [] }
        s.alert = Alert(.info, "\(p.bond.trusted ? "Untrusting" : "Trusting") \(name(s, id))…", at: s.now)
        return [.backend(.setTrusted(id, !p.bond.trusted))]
    }

    static func block(_ s: inout AppState) -> [Effect] {
        guard let id = target(s), let p = s.peripherals[id] else { return [] }
        s.alert = Alert(.info, "\(p.bond.blocked ? "Unblocking" : "Blocking") \(name(s, id))…", at: s.now)
        return [.backend(.setBlocked(id, !p.bond.blocked))]
    }

    static func forgetAnswered(_ s: inout AppState, _ yes: Bool) -> [Effect] {
        guard let id = s.forgetAsked else { return [] }
        s.forgetAsked = nil
        let thenConnect = s.forgetThenConnect
        s.forgetThenConnect = false
        guard yes else {
            s.alert = Alert(.info, "Kept \(name(s, id))", at: s.now)
            return []
        }
        if thenConnect {
            // The screen stays, as after a link loss, until the device is back.
            s.reconnectAfterForget = id
            s.alert = Alert(.warning, "Clearing bluetoothd's cache of \(name(s, id)): forgotten, connected again when heard", at: s.now)
            return [.backend(.forget(id))]
        }
        s.alert = Alert(.info, "\(forgetting(s, id)) (unpaired and removed)", at: s.now)
        s.links.remove(id)
        s.linkLoss[id] = nil
        if Reducer.routeShows(s.route, id) { s.route = .scan; s.scan.cursor = id }
        return [.backend(.forget(id))]
    }

    // MARK: The agent

    static func requested(_ s: inout AppState, _ r: AgentRequest) -> [Effect] {
        let who = name(s, r.device)
        if r.kind.isDisplay {
            // Shown until pairing ends; BlueZ only needs to hear that we showed it.
            s.agentPrompt = AgentPrompt(request: r)
            let shown: [Effect] = s.job == nil ? [] : [.output(.warning(question(who, r.kind)))]
            return shown + [.backend(.answerAgent(r.id, .accept))]
        }
        var effects: [Effect] = []
        if let old = s.agentPrompt, !old.request.kind.isDisplay {
            effects.append(.backend(.answerAgent(old.request.id, .reject("superseded by a newer request"))))
        }
        s.agentPrompt = nil
        if let answer = headlessAnswer(s.agent, r.kind) {
            s.alert = Alert(.info, "Pairing \(who): \(r.kind.code) answered from the command line", at: s.now)
            return effects + [.backend(.answerAgent(r.id, answer))]
        }
        if s.job != nil, s.agent.terminal {
            s.agentPrompt = AgentPrompt(request: r)
            return effects + [.output(.warning(question(who, r.kind)))]
        }
        guard s.job == nil else {
            let flag = r.kind == .passkey || r.kind == .pinCode ? "--passkey N" : "--confirm yes|no"
            let why = "\(who) asks for \(r.kind.code) and there is no terminal to ask on: give \(flag)"
            s.lastError = why
            return effects + [.backend(.answerAgent(r.id, .reject(why)))]
        }
        s.agentPrompt = AgentPrompt(request: r)
        return effects
    }

    /// `--passkey` / `--confirm`, if they answer this kind of request.
    static func headlessAnswer(_ a: AgentSettings, _ kind: AgentRequestKind) -> AgentAnswer? {
        switch kind {
        case .passkey: return a.passkey.map { .passkey($0) }
        case .pinCode: return a.passkey.map { .pinCode(String($0)) }
        case .confirmation, .authorization, .service: return a.confirm.map { $0 ? .accept : .reject("--confirm no") }
        case .displayPasskey, .displayPinCode: return nil
        }
    }

    static func edited(_ s: inout AppState, _ edit: InputEdit) {
        guard var p = s.agentPrompt else { return }
        let limit: Int
        switch p.request.kind {
        case .passkey: limit = 6
        case .pinCode: limit = 16
        case .displayPasskey, .displayPinCode, .confirmation, .authorization, .service: return
        }
        switch edit {
        case let .insert(t):
            let ok = p.request.kind == .pinCode ? t.unicodeScalars.allSatisfy { !TerminalSafe.isUnsafe($0) }
                                                : t.allSatisfy(\.isASCIIDigit)
            if ok, p.typed.count + t.count <= limit { p.typed += t }
        case .deleteBackward: if !p.typed.isEmpty { p.typed.removeLast() }
        case .clear: p.typed = ""
        }
        s.agentPrompt = p
    }

    static func answered(_ s: inout AppState, _ yes: Bool) -> [Effect] {
        guard let p = s.agentPrompt else { return [] }
        let r = p.request
        let answer: AgentAnswer
        switch r.kind {
        case .displayPasskey, .displayPinCode:
            s.agentPrompt = nil   // already answered: this only hides it
            return []
        case .passkey where yes:
            guard p.typed.count == 6, let n = UInt32(p.typed) else {
                s.alert = Alert(.error, "The passkey has six digits", at: s.now)
                return []
            }
            answer = .passkey(n)
        case .pinCode where yes:
            guard !p.typed.isEmpty else { return [] }
            answer = .pinCode(p.typed)
        case .confirmation, .authorization, .service:
            answer = yes ? .accept : .reject("refused by the user")
        case .passkey, .pinCode:
            answer = .reject("refused by the user")
        }
        s.agentPrompt = nil
        return [.backend(.answerAgent(r.id, answer))]
    }

    /// What a command asks (or shows) on its terminal.
    static func question(_ who: String, _ kind: AgentRequestKind) -> String {
        switch kind {
        case .passkey: return "\(who) asks for a passkey: type the six digits it shows, then Enter"
        case .pinCode: return "\(who) asks for a PIN code: type it, then Enter"
        case let .displayPasskey(n, entered): return "type the passkey \(String(format6: n)) on \(who) (\(min(entered, 6)) of 6 digits entered)"
        case let .displayPinCode(pin): return "type the PIN \(TerminalSafe.text(pin)) on \(who)"
        case let .confirmation(n): return "does \(who) show \(String(format6: n))? (y/n)"
        case .authorization: return "may \(who) pair? (y/n)"
        case let .service(uuid): return "may \(who) use the service \(TerminalSafe.text(uuid))? (y/n)"
        }
    }

    /// A line typed on a command's terminal: the passkey or PIN, or y / n.
    static func typed(_ s: inout AppState, _ line: String) -> [Effect] {
        guard let p = s.agentPrompt else { return [] }
        let t = line.trimmingSpaces()
        switch p.request.kind {
        case .passkey:
            guard t.count == 6, t.allSatisfy(\.isASCIIDigit) else { return [.output(.warning("the passkey has six digits: type it again"))] }
            s.agentPrompt?.typed = t
            return answered(&s, true)
        case .pinCode:
            guard !t.isEmpty, t.count <= 16, !t.unicodeScalars.contains(where: TerminalSafe.isUnsafe) else {
                return [.output(.warning("a PIN has 1 to 16 characters: type it again"))]
            }
            s.agentPrompt?.typed = t
            return answered(&s, true)
        case .confirmation, .authorization, .service:
            switch t.lowercased() {
            case "y", "yes": return answered(&s, true)
            case "n", "no": return answered(&s, false)
            default: return [.output(.warning("y or n?"))]
            }
        case .displayPasskey, .displayPinCode:
            return []
        }
    }

    static func cancelled(_ s: inout AppState) -> [Effect] {
        guard let p = s.agentPrompt else { return [] }
        s.agentPrompt = nil
        let message = "Pairing request from \(name(s, p.request.device)) cancelled"
        s.alert = Alert(.warning, message, at: s.now)
        return s.job == nil ? [] : [.output(.warning(message))]
    }

    /// The end of a Pair. The bond is what bluetoothd says it is: a Pair that failed on a
    /// device bluetoothd already says is paired (seen in the lab on BlueZ 5.82: the keys
    /// came, and the Pair ended AuthenticationCanceled) paired all the same, and says so
    /// with bluetoothd's error. Returns the error that stands (nil: paired).
    @discardableResult
    static func completed(_ s: inout AppState, _ id: PeripheralID, _ error: BackendError?) -> BackendError? {
        if s.pairing == id { s.pairing = nil }
        if s.agentPrompt?.request.device == id { s.agentPrompt = nil }
        if let error, s.peripherals[id]?.bond.paired != true {
            Reducer.fail(&s, "\(failed(s, id)): \(error)")
            return error
        }
        s.peripherals[id]?.bond.paired = true
        s.alert = Alert(.info, paired(s, id, though: error?.description), at: s.now)
        return nil
    }

    /// "Paired with X", and, when bluetoothd's Pair said it failed (`though`), what it said.
    static func paired(_ s: AppState, _ id: PeripheralID, though error: String?) -> String {
        "Paired with \(name(s, id))" + (error.map(pairedAnyway) ?? "")
    }

    /// What a pairing that bluetoothd said failed, on a device it says is paired, adds.
    static func pairedAnyway(_ error: String) -> String {
        " (bluetoothd says it is paired; its Pair answered \(error))"
    }

    /// Paired turns true: after a Pair that was said to fail, the failure said is replaced
    /// by what is (the property can come after the Pair's answer).
    static func bondChanged(_ s: inout AppState, _ id: PeripheralID, _ bond: Bond) {
        let was = s.peripherals[id]?.bond.paired ?? false
        s.peripherals[id]?.bond = bond
        let prefix = failed(s, id) + ": "
        guard !was, bond.paired, let alert = s.alert, alert.level == .error, alert.message.hasPrefix(prefix),
              !alert.message.contains("; then disconnected") else { return }
        s.alert = Alert(.info, paired(s, id, though: String(alert.message.dropFirst(prefix.count))), at: s.now)
    }
}
