/// Descriptors a user reads or writes (beyond the 0x2901 and 0x2904 read on connecting):
/// the answer to a descriptor write updates the value shown, or says why it failed.
enum DescriptorReducer {
    /// The owner of a descriptor among the connected peripherals' characteristics.
    static func owner(_ s: AppState, _ did: AttributeID) -> (Peripheral, GATTCharacteristic, GATTDescriptor)? {
        for p in s.peripherals.values {
            for c in (p.services ?? []).flatMap(\.characteristics) {
                if let d = c.descriptors.first(where: { $0.id == did }) { return (p, c, d) }
            }
        }
        return nil
    }

    /// `D`: the next descriptor of the open characteristic, read as it is selected (any
    /// descriptor reads; the CCCD's value BlueZ keeps is shown from the subscription).
    static func cycle(_ s: inout AppState) -> [Effect] {
        guard let (pid, c) = Reducer.openCharacteristic(s) else { return [] }
        guard !c.descriptors.isEmpty else {
            s.alert = Alert(.warning, "\(AssignedNumbers.characteristicName(c.uuid) ?? c.uuid.description) has no descriptors", at: s.now)
            return []
        }
        let at = s.selectedDescriptor(of: c).flatMap { d in c.descriptors.firstIndex(of: d) }
        let next = at.map { $0 + 1 } ?? 0
        guard next < c.descriptors.count else {
            s.selectedDescriptor = nil
            s.alert = Alert(.info, "No descriptor selected: w writes the characteristic", at: s.now)
            return []
        }
        let d = c.descriptors[next]
        s.selectedDescriptor = d.id
        let how = d.canWrite ? "w writes it" : d.isClientConfiguration ? "n turns it on and off" : "read only"
        s.alert = Alert(.info, "Descriptor \(title(d)) selected (\(how); D: next)", at: s.now)
        guard !d.isClientConfiguration, ConnectionReducer.linkReady(&s, pid) else { return [] }
        return [.backend(.readDescriptor(pid, d.id))]
    }

    /// `0x0016 Characteristic User Description`.
    static func title(_ d: GATTDescriptor) -> String {
        (d.id.handleText.map { $0 + " " } ?? "") + (AssignedNumbers.descriptorName(d.uuid) ?? d.uuid.description)
    }

    /// `w` with a descriptor selected: the write line for it, or why there is none.
    static func startWrite(_ s: inout AppState, _ pid: PeripheralID, _ c: GATTCharacteristic, _ d: GATTDescriptor) -> [Effect] {
        guard d.canWrite else {
            let why = d.isClientConfiguration ? "notifications own it: n turns them on and off" : "its flags do not allow a write"
            s.alert = Alert(.warning, "Descriptor \(title(d)) cannot be written (\(why))", at: s.now)
            return []
        }
        s.input = InputLine(purpose: .writeDescriptor(pid, d.id))
        return []
    }

    static func submit(_ s: inout AppState, _ text: String, _ pid: PeripheralID, _ did: AttributeID) -> [Effect] {
        switch WriteValue.parse(text) {
        case let .failure(error):
            s.alert = Alert(.error, error.message, at: s.now)   // the line stays to be fixed
            return []
        case let .success(bytes):
            guard let p = s.peripherals[pid], p.connection == .connected else {
                s.alert = Alert(.error, "Not connected: the descriptor was not written", at: s.now)
                return []
            }
            s.input = nil
            return [.backend(.writeDescriptor(pid, did, bytes))]
        }
    }

    /// `W`: the next type among those the characteristic allows.
    static func cycleWriteType(_ s: inout AppState, _ c: GATTCharacteristic) {
        let allowed = WriteType.allCases.filter { $0.isAllowed(by: c.properties) }
        let name = AssignedNumbers.characteristicName(c.uuid) ?? c.uuid.description
        guard allowed.count > 1 else {
            s.alert = Alert(.warning, "\(name) takes only \(allowed.first.map(\.title) ?? "no write")", at: s.now)
            return
        }
        let now = s.writeType(c)
        let next = allowed[((allowed.firstIndex(of: now) ?? -1) + 1) % allowed.count]
        s.writeTypes[c.id] = next
        s.alert = Alert(.info, "w writes \(name) with \(next.title)", at: s.now)
    }

    /// "Characteristic User Description" (or the UUID), for messages.
    static func name(_ s: AppState, _ did: AttributeID) -> String {
        owner(s, did).map { AssignedNumbers.descriptorName($0.2.uuid) ?? $0.2.uuid.description } ?? did.path
    }

    /// A descriptor read answered: the value kept; a read the user asked for that failed says
    /// why, or pairs when it was refused for want of encryption (`OnDemand`). (A read made on
    /// connecting that fails costs only its label.)
    static func read(_ s: inout AppState, _ did: AttributeID, _ result: Result<Bytes, BackendError>) -> [Effect] {
        switch result {
        case let .success(bytes):
            s.operations[did] = nil
            s.descriptorValues[did] = Array(bytes.prefix(512))
        case let .failure(error):
            var effects: [Effect] = []
            let device = s.operations[did]?.device
            if OnDemand.refused(&s, did, error, &effects) { return effects }
            if device != nil { Reducer.fail(&s, "Read \(name(s, did)) failed: \(error)" + OnDemand.hint(s, device, error)) }
        }
        return ConnectionReducer.descriptorRead(&s, did)
    }

    static func written(_ s: inout AppState, _ did: AttributeID, _ bytes: Bytes, _ error: BackendError?) -> [Effect] {
        let name = name(s, did)
        if let error {
            var effects: [Effect] = []
            let device = s.operations[did]?.device
            if OnDemand.refused(&s, did, error, &effects) { return effects }
            s.alert = Alert(.error, "Writing \(name) failed: \(error)" + OnDemand.hint(s, device, error), at: s.now)
            return []
        }
        s.operations[did] = nil
        s.descriptorValues[did] = Array(bytes.prefix(512))
        s.alert = Alert(.info, "Wrote \(bytes.count) byte\(bytes.count == 1 ? "" : "s") to \(name)", at: s.now)
        return []
    }
}
