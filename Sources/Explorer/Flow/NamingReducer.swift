/// `N`: names the user chooses in the app, kept in `NamesFile` beside the configuration.
/// On the scan list and the details a device's alias; on the device screen the UUID of
/// the service or characteristic under the cursor (the device's alias on no row); on a
/// characteristic's screen its UUID. The line opens with the name shown now; Enter saves
/// it, an empty line takes back the name chosen before.
enum NamingReducer {
    static func start(_ s: inout AppState) {
        switch s.route {
        case .scan, .details:
            guard let id = PairingReducer.target(s), let p = s.peripherals[id] else { return }
            s.input = InputLine(purpose: .alias(id), text: UserNames.current.alias(p.address) ?? "")
        case let .device(pid):
            guard let p = s.peripherals[pid] else { return }
            if let cursor = s.device.cursor, let uuid = treeUUID(p, cursor) { startUUID(&s, uuid); return }
            s.input = InputLine(purpose: .alias(pid), text: UserNames.current.alias(p.address) ?? "")
        case .characteristic:
            guard let (_, c) = Reducer.openCharacteristic(s) else { return }
            startUUID(&s, c.uuid)
        case .regions:
            return
        }
    }

    static func startUUID(_ s: inout AppState, _ uuid: BLEUUID) {
        s.input = InputLine(purpose: .uuidName(uuid), text: UserNames.current.name(uuid) ?? "")
    }

    /// The service's or characteristic's UUID at this row of the device screen's tree.
    static func treeUUID(_ p: Peripheral, _ row: AttributeID) -> BLEUUID? {
        if let svc = p.services?.first(where: { $0.id == row }) { return svc.uuid }
        return p.characteristic(row)?.1.uuid
    }

    /// Enter on the line: the change goes to the file (`.nameSaved` comes back); a name
    /// that cannot be shown keeps the line open to fix it.
    static func submit(_ s: inout AppState, _ text: String, _ purpose: InputLine.Purpose) -> [Effect] {
        let t = text.trimmingSpaces()
        let name: String?
        if t.isEmpty { name = nil } else {
            guard let n = UserConfig.name(t), n == t else {
                s.alert = Alert(.error, "A name is 1 to 64 printable characters", at: s.now)
                return []
            }
            name = n
        }
        let change: NameChange
        switch purpose {
        case let .alias(id):
            guard let p = s.peripherals[id] else { s.input = nil; return [] }
            change = .alias(address: p.address, name)
        case let .uuidName(uuid):
            change = .uuid(uuid, name)
        case .filter, .write, .writeDescriptor, .hook:
            return []
        }
        s.input = nil
        return [.saveName(change)]
    }

    /// The effect runner saved the change (and the names shown are the new ones), or could not.
    static func saved(_ s: inout AppState, _ change: NameChange, _ result: Result<String, UserConfig.Problem>) {
        let what: String
        switch change {
        case let .alias(address, name): what = name.map { "Alias “\($0)” for \(address)" } ?? "The alias of \(address) taken back"
        case let .uuid(uuid, name): what = name.map { "“\($0)” for \(uuid)" } ?? "The name of \(uuid) taken back"
        }
        switch result {
        case let .success(path):
            // An alias sorts and filters the list: the order is made again with the names as they are now.
            s.peripherals.namesChanged()
            s.alert = Alert(.info, "\(what): saved in \(TerminalSafe.text(path))", at: s.now)
        case let .failure(problem):
            Reducer.fail(&s, "\(what): not saved: \(problem.reason)")
        }
    }
}
