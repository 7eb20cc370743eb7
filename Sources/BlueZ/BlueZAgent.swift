import Explorer
import DBus

/// Our org.bluez.Agent1 object: registered with AgentManager1 (and made the default
/// agent) while bluetoothd runs, again after it restarts, unregistered at exit. Every
/// call BlueZ makes to it becomes `agentRequested` and is answered later, when the
/// reducer says (`answerAgent`): the method reply is deferred, nothing waits.
extension BlueZBackend {
    static let agentPath = "/org/bleexplr/agent"
    static let agentInterface = "org.bluez.Agent1"
    static let agentManager = "org.bluez.AgentManager1"

    func registerAgent() {
        guard let capability = options.agent, !agentRegistered else { return }
        bus.exportHandler { [weak self] call in self?.agentCall(call) }
        call("/org/bluez", Self.agentManager, "RegisterAgent",
             [.objectPath(Self.agentPath), .string(capability.bluezName)], timeout: 10) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success:
                break
            case let .failure(e) where e.name == "org.bluez.Error.AlreadyExists":
                break   // ours, from before a reload
            case let .failure(e):
                self.send(.failure(BackendError(name: e.name, message: "pairing agent not registered: \(e.message)")))
                return
            }
            self.agentRegistered = true
            self.call("/org/bluez", Self.agentManager, "RequestDefaultAgent", [.objectPath(Self.agentPath)],
                      timeout: 10) { [weak self] result in
                if case let .failure(e) = result {
                    self?.send(.failure(BackendError(name: e.name, message: "pairing agent not made the default: \(e.message)")))
                }
            }
        }
    }

    /// At exit: bluetoothd would notice our name go, but says so in its log.
    func unregisterAgent() {
        guard agentRegistered else { return }
        agentRegistered = false
        call("/org/bluez", Self.agentManager, "UnregisterAgent", [.objectPath(Self.agentPath)], timeout: 2) { _ in }
    }

    /// bluetoothd went away: its agent calls died with it, and so did our registration.
    func forgetAgent() {
        agentRegistered = false
        agentCalls.removeAll()
    }

    func agentCall(_ c: DBusMethodCall) -> DBusReply? {
        guard c.path == Self.agentPath, c.interface == nil || c.interface == Self.agentInterface else { return nil }
        // Only bluetoothd may ask (it owns org.bluez); anyone else on the bus is refused.
        if let owner = bluezOwner, let sender = c.sender, sender != owner {
            return .error(DBusError(name: "org.bluez.Error.Rejected", message: "not bluetoothd"))
        }
        let kind: AgentRequestKind
        switch (c.member, c.args.count) {
        case ("Release", _):
            forgetAgent()
            send(.agentReleased)
            return .values([])
        case ("Cancel", _):
            agentCalls.removeAll()   // BlueZ no longer waits for them
            send(.agentCancelled)
            return .values([])
        case ("RequestPinCode", 1): kind = .pinCode
        case ("RequestPasskey", 1): kind = .passkey
        case ("DisplayPinCode", 2):
            guard let pin = c.args[1].string else { return invalid() }
            kind = .displayPinCode(pin)
        case ("DisplayPasskey", 3):
            guard let n = c.args[1].int, let entered = c.args[2].int else { return invalid() }
            kind = .displayPasskey(UInt32(clamping: n), entered: entered)
        case ("RequestConfirmation", 2):
            guard let n = c.args[1].int else { return invalid() }
            kind = .confirmation(UInt32(clamping: n))
        case ("RequestAuthorization", 1): kind = .authorization
        case ("AuthorizeService", 2):
            guard let uuid = c.args[1].string else { return invalid() }
            kind = .service(BLEUUID(uuid).map { $0.description } ?? uuid)
        default:
            return nil
        }
        guard let devicePath = c.args[0].string, let device = deviceID(devicePath) else { return invalid() }
        let id = nextAgentCall
        nextAgentCall += 1
        agentCalls[id] = c
        send(.agentRequested(AgentRequest(id: id, device: device, kind: kind)))
        return .deferred
    }

    private func invalid() -> DBusReply {
        .error(DBusError(name: "org.bluez.Error.InvalidArguments", message: "unexpected arguments"))
    }

    /// The device an agent call names: known by its path, or read from it (dev_AA_BB_..).
    func deviceID(_ path: String) -> PeripheralID? {
        if let id = ingest.state.deviceIDs[path] { return id }
        guard let last = path.split(separator: "/").last, last.hasPrefix("dev_") else { return nil }
        let address = last.dropFirst(4).map { $0 == "_" ? ":" : $0 }
        return address.count == 17 ? PeripheralID(String(address)) : nil
    }

    /// The reducer's answer, sent as the reply BlueZ has been waiting for.
    func answerAgent(_ id: Int, _ answer: AgentAnswer) {
        guard let c = agentCalls.removeValue(forKey: id) else { return }   // cancelled meanwhile
        let reply: DBusReply
        switch answer {
        case let .passkey(n): reply = .values([.uint32(n)])
        case let .pinCode(pin): reply = .values([.string(pin)])
        case .accept: reply = .values([])
        case let .reject(why): reply = .error(DBusError(name: "org.bluez.Error.Rejected", message: why))
        }
        do { try bus.reply(to: c, with: reply) } catch { send(.failure(BlueZTranslate.backendError(error))) }
    }

    // MARK: Pair, trust, block, forget

    func pair(_ id: PeripheralID) {
        guard let path = devicePaths[id] else {
            send(.pairCompleted(id, .failed(Self.notKnown)))
            return
        }
        // Pairing waits for the user at the agent's prompt: BlueZ's own timeout applies.
        call(path, BlueZTranslate.device, "Pair", timeout: 120) { [weak self] result in
            switch result {
            case .success: self?.send(.pairCompleted(id, nil))
            case let .failure(e): self?.send(.pairCompleted(id, BlueZTranslate.backendError(e)))
            }
        }
    }

    /// Why a command for a device bluetoothd no longer knows (it restarted, or removed it) did not go out.
    static let notKnown = "bluetoothd does not know this device (any more)"

    /// A command for a device bluetoothd no longer knows: said, never a key that does nothing.
    func unknown(_ id: PeripheralID, _ what: String) {
        send(.failure(.failed("cannot \(what) \(id): \(Self.notKnown)")))
    }

    func setDeviceFlag(_ id: PeripheralID, _ name: String, _ on: Bool) {
        guard let path = devicePaths[id] else { return unknown(id, "set \(name) of") }
        call(path, "org.freedesktop.DBus.Properties", "Set",
             [.string(BlueZTranslate.device), .string(name), .variant(.bool(on))], timeout: 10) { [weak self] result in
            // The change arrives as a property change.
            if case let .failure(e) = result {
                self?.send(.failure(BackendError(name: e.name, message: "cannot set \(name): \(e.message)")))
            }
        }
    }

    func forget(_ id: PeripheralID) {
        guard let path = devicePaths[id], let a = adapterPath else { return unknown(id, "forget") }
        call(a, BlueZTranslate.adapter, "RemoveDevice", [.objectPath(path)], timeout: 10) { [weak self] result in
            // Success shows as InterfacesRemoved.
            if case let .failure(e) = result {
                self?.send(.failure(BackendError(name: e.name, message: "cannot forget the device: \(e.message)")))
            }
        }
    }
}
