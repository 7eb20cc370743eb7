/// A read, write or subscription sent to a device (or a read or write of a descriptor the
/// user asked for), kept until it completes: when the device refuses it for want of
/// encryption or authentication, the device is paired and the operation sent again, once.
public struct GATTOperation: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case read(offset: UInt16)
        case write(Bytes, WriteType)
        case subscribe(Bool)
        case readDescriptor
        case writeDescriptor(Bytes)
    }
    public var device: PeripheralID
    public var kind: Kind
    /// Refused for want of encryption: waits for the pairing it started (or joined).
    public var waitingForPairing = false
    /// Sent again after pairing: a second refusal is final.
    public var retried = false
    public init(device: PeripheralID, kind: Kind) { self.device = device; self.kind = kind }

    func command(_ cid: CharacteristicID) -> BackendCommand {
        switch kind {
        case let .read(offset): return .read(device, cid, offset: offset)
        case let .write(bytes, type): return .write(device, cid, bytes, type)
        case let .subscribe(on): return .setNotify(device, cid, on)
        case .readDescriptor: return .readDescriptor(device, cid)
        case let .writeDescriptor(bytes): return .writeDescriptor(device, cid, bytes)
        }
    }

    /// "Read", "Write", "Subscription", as messages begin (of a descriptor too: its name follows).
    var verb: String {
        switch kind {
        case .read, .readDescriptor: return "Read"
        case .write, .writeDescriptor: return "Write"
        case .subscribe: return "Subscription"
        }
    }

    public var isDescriptor: Bool {
        switch kind {
        case .readDescriptor, .writeDescriptor: return true
        case .read, .write, .subscribe: return false
        }
    }
}

extension BackendError {
    /// The device refused for want of an encrypted (or authenticated) link. BlueZ's
    /// gatt-client answers ATT's Insufficient Authentication (0x05), Insufficient Encryption
    /// (0x0f) and Insufficient Encryption Key Size (0x0c) with `NotPermitted: Not paired`
    /// (5.66 and 5.82 alike: create_gatt_dbus_error), after its own attempt to raise the
    /// link's security (which asks our agent) failed or was not made; an error that only
    /// carries the ATT code says `ATT error: 0x05`.
    public var needsPairing: Bool {
        let short = name.split(separator: ".").last.map(String.init) ?? name
        let m = message.lowercased()
        switch short {
        case "NotPermitted", "NotAuthorized":
            return m.contains("not paired")
        case "Failed":
            return ["0x05", "0x0f", "0x0c"].contains { m.contains("att error: \($0)") }
        default:
            return false
        }
    }
}

/// Encryption on demand, for every door (the app and the commands): the reducer keeps the
/// GATT operations it sent, a refusal for want of encryption pairs (Device1.Pair, answered
/// by our agent), and the operation is sent again once paired: never twice.
enum OnDemand {
    /// Every read, write and subscription among `effects`, and every descriptor read and
    /// write, remembered until it completes. Not the descriptor reads made on connecting
    /// (`descriptorReads`): an unreadable label costs only the label, never a pairing nobody
    /// asked for. Sent again after pairing, an operation keeps its `retried`.
    static func track(_ s: inout AppState, _ effects: [Effect]) {
        for case let .backend(command) in effects {
            let sent: (AttributeID, GATTOperation)
            switch command {
            case let .read(p, c, offset): sent = (c, GATTOperation(device: p, kind: .read(offset: offset)))
            case let .write(p, c, bytes, type): sent = (c, GATTOperation(device: p, kind: .write(bytes, type)))
            case let .setNotify(p, c, on): sent = (c, GATTOperation(device: p, kind: .subscribe(on)))
            case let .readDescriptor(p, d) where s.descriptorReads[p]?.contains(d) != true:
                sent = (d, GATTOperation(device: p, kind: .readDescriptor))
            case let .writeDescriptor(p, d, bytes): sent = (d, GATTOperation(device: p, kind: .writeDescriptor(bytes)))
            default: continue
            }
            var op = sent.1
            if let old = s.operations[sent.0], old.device == op.device, old.kind == op.kind { op.retried = old.retried }
            s.operations[sent.0] = op
        }
    }

    /// An operation failed. True when the failure starts (or waits for) a pairing instead of
    /// being the operation's end: then `effects` has what to do.
    static func refused(_ s: inout AppState, _ cid: CharacteristicID, _ error: BackendError,
                        _ effects: inout [Effect]) -> Bool {
        guard var op = s.operations[cid] else { return false }
        guard error.needsPairing, !op.retried, let p = s.peripherals[op.device], p.connection == .connected,
              !p.bond.paired else {
            s.operations[cid] = nil
            return false
        }
        op.waitingForPairing = true
        s.operations[cid] = op
        let who = PairingReducer.name(s, op.device)
        s.alert = Alert(.info, "\(label(s, cid, op)) needs encryption: pairing with \(who)…", at: s.now)
        if s.pairing != op.device {
            s.pairing = op.device
            effects.append(.backend(.pair(op.device)))
        }
        return true
    }

    /// Why a refusal for want of encryption stays one: said after the error.
    static func hint(_ s: AppState, _ id: PeripheralID?, _ error: BackendError) -> String {
        guard error.needsPairing else { return "" }
        if let id, s.peripherals[id]?.bond.paired == true {
            return " (paired, and still refused: the device wants a stronger bond; forget it and pair with a passkey)"
        }
        return ""
    }

    /// Pairing ended: the operations that waited for it are sent again, or fail with
    /// pairing's own error (AuthenticationFailed, AuthenticationRejected, ...).
    static func paired(_ s: inout AppState, _ id: PeripheralID, _ error: BackendError?) -> [Effect] {
        let waiting = s.operations.filter { $0.value.device == id && $0.value.waitingForPairing }
            .sorted { $0.key.path < $1.key.path }
        var effects: [Effect] = []
        for (cid, var op) in waiting {
            if let error {
                s.operations[cid] = nil
                let label = label(s, cid, op)
                switch op.kind {
                case .read:
                    s.values[cid, default: ValueLog()].append(ValueEntry(at: s.now, bytes: [], origin: .read, error: error.description))
                case let .write(bytes, _):
                    s.values[cid, default: ValueLog()].append(ValueEntry(at: s.now, bytes: bytes, origin: .write, error: error.description))
                case .subscribe, .readDescriptor, .writeDescriptor:
                    break
                }
                Reducer.fail(&s, "\(op.verb) \(label) failed: pairing with \(PairingReducer.name(s, id)) failed: \(error)")
            } else {
                op.waitingForPairing = false
                op.retried = true
                s.operations[cid] = op
                effects.append(.backend(op.command(cid)))
            }
        }
        if error == nil, let first = waiting.first {
            s.alert = Alert(.info, "Paired with \(PairingReducer.name(s, id)): \(first.value.verb.lowercased()) of "
                            + "\(label(s, first.key, first.value)) sent again", at: s.now)
        }
        return effects
    }

    /// "Body Sensor Location", or a descriptor's "Characteristic User Description", for messages.
    static func label(_ s: AppState, _ id: AttributeID, _ op: GATTOperation) -> String {
        op.isDescriptor ? DescriptorReducer.name(s, id) : BackendReducer.label(s, id)
    }

    /// The link went down: what was under way on it is over.
    static func linkDown(_ s: inout AppState, _ id: PeripheralID) {
        guard s.operations.values.contains(where: { $0.device == id }) else { return }
        s.operations = s.operations.filter { $0.value.device != id }
    }
}
