import Testing
@testable import Explorer

/// A note like the demo iTag's: read, write, reliable write; a writable 0x2901 label, a
/// 0x2900 saying reliable write, and a CCCD on a notifying neighbour.
private enum Note {
    static let id = PeripheralID("FC:58:FA:1A:2B:3C")
    static let base = "/sim/dev_FC_58_FA_1A_2B_3C/service0014"
    static let char = CharacteristicID(base + "/char0015")
    static let label = AttributeID(base + "/char0015/desc0016")
    static let extended = AttributeID(base + "/char0015/desc0017")
    static let button = CharacteristicID(base + "/char0018")
    static let cccd = AttributeID(base + "/char0018/desc0019")
    static let uuid: BLEUUID = "B1E5E1A0-0011-4C7A-9E3B-2D8F00C0FFEE"
    static let services = [GATTService(id: AttributeID(base), uuid: "B1E5E1A0-0010-4C7A-9E3B-2D8F00C0FFEE", characteristics: [
        GATTCharacteristic(id: char, uuid: uuid, properties: [.read, .write, .reliableWrite],
                           descriptors: [GATTDescriptor(id: label, uuid: "2901", writable: true),
                                         GATTDescriptor(id: extended, uuid: "2900")]),
        GATTCharacteristic(id: button, uuid: "FFE1", properties: [.read, .notify],
                           descriptors: [GATTDescriptor(id: cccd, uuid: "2902", writable: true)]),
    ])]

    /// A job (or the app, with nil) on a device whose services and descriptors are known.
    static func ready(_ job: Job?) -> (AppState, [Effect]) {
        var s = Fixture.scanning()
        if let job { s.job = JobState(job: job) }
        _ = Reducer.reduce(&s, .appStarted(recordTo: nil))
        if job == nil {
            s.scan.cursor = id
            _ = Reducer.reduce(&s, .rowActivated)
        } else {
            Fixture.apply(&s, Fixture.report(id, name: "Demo iTag", rssi: -60))   // found: the job connects
        }
        Fixture.apply(&s, .connected(id))
        Fixture.apply(&s, .servicesResolved(id, services, mtu: 247))
        Fixture.apply(&s, .descriptorRead(extended, .success([0x01, 0x00])))
        let effects = Fixture.apply(&s, .descriptorRead(label, .success(Array("Note".utf8))))
        return (s, effects)
    }

    static func failure(_ effects: [Effect]) -> String? {
        for case let .output(.failure(m)) in effects { return m }
        return nil
    }
}

@Suite("Descriptors and write types")
struct DescriptorWriteTests {
    @Test func handlesComeFromBlueZPaths() {
        #expect(AttributeID("/org/bluez/hci0/dev_AA/service0010/char0011/desc0013").handle == 0x0013)
        #expect(AttributeID("/org/bluez/hci0/dev_AA/service0010/char0011").handleText == "0x0011")
        #expect(AttributeID("/org/bluez/hci0/dev_AA/service00ff").handleText == "0x00FF")
        #expect(AttributeID("/sim/bike/s/c/d1").handle == nil)
        #expect(AttributeID("/x/descZZZZ").handle == nil)
        #expect(AttributeID("").handle == nil)
    }

    @Test func writableFromFlagsElseFromTheSpecification() {
        #expect(GATTDescriptor.writable("2901", flags: ["read", "write"], characteristicFlags: []))
        #expect(!GATTDescriptor.writable("2901", flags: ["read", "authorize"], characteristicFlags: ["writable-auxiliaries"]))
        #expect(GATTDescriptor.writable("2901", flags: nil, characteristicFlags: ["read", "writable-auxiliaries"]))
        #expect(!GATTDescriptor.writable("2901", flags: nil, characteristicFlags: ["read"]))
        #expect(GATTDescriptor.writable("2901", flags: [], characteristicFlags: ["writable-auxiliaries"]))
        #expect(!GATTDescriptor.writable("2900", flags: nil, characteristicFlags: []))
        #expect(!GATTDescriptor.writable("2904", flags: nil, characteristicFlags: []))
        #expect(GATTDescriptor.writable("2903", flags: nil, characteristicFlags: []))
    }

    @Test func writeTypesFollowTheProperties() {
        #expect(WriteType.request.isAllowed(by: [.write]) && !WriteType.request.isAllowed(by: [.writeWithoutResponse]))
        #expect(WriteType.command.isAllowed(by: [.writeWithoutResponse]) && !WriteType.command.isAllowed(by: [.write]))
        #expect(WriteType.reliable.isAllowed(by: [.write, .reliableWrite]) && !WriteType.reliable.isAllowed(by: [.write]))
        #expect(WriteType.preferred(for: [.writeWithoutResponse]) == .command)
        #expect(WriteType.preferred(for: [.write, .writeWithoutResponse]) == .request)
        // MTU 247: 244 bytes go in one Write Request, 245 do not.
        #expect(!WriteType.isLong(244, type: .request, mtu: 247) && WriteType.isLong(245, type: .request, mtu: 247))
        #expect(!WriteType.isLong(400, type: .command, mtu: 247))
        #expect(WriteType.isLong(21, type: .reliable, mtu: 23))
        #expect(!WriteType.isLong(400, type: .request, mtu: nil))   // not known: not said
    }

    @Test func descriptorValuesDecodeAndMalformedOnesSaySo() {
        #expect(DescriptorValue.decoded("2900", [0x01, 0x00])?.text == "reliable write")
        #expect(DescriptorValue.decoded("2900", [0x01, 0x00])?.fieldsJSON == #"{"reliableWrite":true,"writableAuxiliaries":false}"#)
        #expect(DescriptorValue.decoded("2900", [0x01])?.malformed == true)
        #expect(DescriptorValue.decoded("2901", Array("Motor\u{1B}[2J".utf8))?.text.contains("\u{1B}") == false)
        #expect(DescriptorValue.decoded("2902", [0x02, 0x00])?.text == "indications on")
        #expect(DescriptorValue.decoded("2902", [0x00, 0x00])?.text == "off")
        #expect(DescriptorValue.decoded("2903", [0x01, 0x00])?.text == "broadcast on")
        #expect(DescriptorValue.decoded("2904", [0x0E, 0xFE, 0x2F, 0x27, 0x01, 0x00, 0x00])?.fieldsJSON
            == #"{"format":"sint16","exponent":-2,"unit":"degree Celsius"}"#)
        #expect(DescriptorValue.decoded("2904", [0x0E])?.malformed == true)
        #expect(DescriptorValue.decoded("2999", [0x01]) == nil)
    }

    /// Any bytes, any length: a text without control characters, never a trap.
    @Test func descriptorValuesOfAnyBytesAreSafeText() {
        var rng = SeededRandom(seed: 16)
        for uuid: BLEUUID in ["2900", "2901", "2902", "2903", "2904"] {
            for n in 0..<40 {
                let b = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let text = DescriptorValue.decoded(uuid, b + [0x1B, 0x9B, 0x07])?.text ?? ""
                #expect(!text.unicodeScalars.contains { TerminalSafe.isUnsafe($0) }, "\(uuid) \(b)")
            }
        }
    }

    @Test func aTypeTheCharacteristicDoesNotAllowIsRefusedWithExitOne() {
        var (s, effects) = Note.ready(.write(address: Note.id.rawValue, uuid: Note.uuid, value: [1], type: .command))
        #expect(Note.failure(effects) == "B1E5E1A0-0011-4C7A-9E3B-2D8F00C0FFEE on FC:58:FA:1A:2B:3C does not take a write of type command (it takes --type request, reliable)")
        #expect(!effects.contains { if case .backend(.write) = $0 { return true } else { return false } })
        #expect(Fixture.apply(&s, .disconnected(Note.id, .local)) == [.finish(exitCode: 1)])
    }

    @Test func aReliableWriteGoesOutAsOneAndALongOneSaysSo() {
        let value = Bytes(repeating: 0x41, count: 300)
        var (s, effects) = Note.ready(.write(address: Note.id.rawValue, uuid: Note.uuid, value: value, type: .reliable))
        #expect(effects.contains(.backend(.write(Note.id, Note.char, value, .reliable))))
        let done = Fixture.apply(&s, .writeCompleted(Note.char, value, .reliable, nil))
        guard case let .output(.wrote(w)) = done.dropFirst().first else { Issue.record("no report in \(done)"); return }
        #expect(w.type == .reliable && w.long && w.descriptor == nil)
        #expect(CommandPrinter(json: true).lines(.wrote(w), now: w.at).first?.text.contains(#""writeType":"reliable","long":true"#) == true)
    }

    @Test func readDescriptorReadsTheOneNamedAndReportsItDecoded() {
        var (s, effects) = Note.ready(.readDescriptor(address: Note.id.rawValue, uuid: Note.uuid, descriptor: "2900"))
        #expect(effects.contains(.backend(.readDescriptor(Note.id, Note.extended))))
        let done = Fixture.apply(&s, .descriptorRead(Note.extended, .success([0x01, 0x00])))
        guard case let .output(.value(v)) = done.dropFirst().first else { Issue.record("no value in \(done)"); return }
        #expect(v.descriptor == "2900" && v.handle == 0x0017 && v.uuid == Note.uuid)
        #expect(v.decoded?.text == "reliable write")
        let line = CommandPrinter(json: true).lines(.value(v), now: v.at).first?.text ?? ""
        #expect(line.contains(#""descriptor":"00002900-0000-1000-8000-00805f9b34fb","handle":"0x0017""#))
        #expect(s.job?.phase == .leaving(exitCode: 0))
    }

    @Test func aMissingDescriptorIsACleanFailure() {
        let (_, effects) = Note.ready(.readDescriptor(address: Note.id.rawValue, uuid: Note.uuid, descriptor: "2904"))
        #expect(Note.failure(effects) == "B1E5E1A0-0011-4C7A-9E3B-2D8F00C0FFEE on FC:58:FA:1A:2B:3C has no descriptor 2904")
    }

    @Test func writeDescriptorWritesTheWritableOneAndNeverTheCCCD() {
        var (s, effects) = Note.ready(.writeDescriptor(address: Note.id.rawValue, uuid: Note.uuid, descriptor: "2901", value: [0x4B]))
        #expect(effects.contains(.backend(.writeDescriptor(Note.id, Note.label, [0x4B]))))
        let done = Fixture.apply(&s, .descriptorWritten(Note.label, [0x4B], nil))
        guard case let .output(.wrote(w)) = done.dropFirst().first else { Issue.record("no report in \(done)"); return }
        #expect(w.descriptor == "2901" && w.handle == 0x0016)
        #expect(s.descriptorValues[Note.label] == [0x4B])

        let (_, cccd) = Note.ready(.writeDescriptor(address: Note.id.rawValue, uuid: "FFE1", descriptor: "2902", value: [1, 0]))
        #expect(Note.failure(cccd)?.contains("the CCCD (0x2902) is notify's") == true)
        #expect(!cccd.contains { if case .backend(.writeDescriptor) = $0 { return true } else { return false } })
        let (_, readOnly) = Note.ready(.writeDescriptor(address: Note.id.rawValue, uuid: Note.uuid, descriptor: "2900", value: [1, 0]))
        #expect(Note.failure(readOnly)?.contains("its flags do not allow a write") == true)
    }

    @Test func aRefusedDescriptorWriteFailsTheCommand() {
        var (s, _) = Note.ready(.writeDescriptor(address: Note.id.rawValue, uuid: Note.uuid, descriptor: "2901", value: [0x4B]))
        let done = Fixture.apply(&s, .descriptorWritten(Note.label, [0x4B], .notPermitted("Write not permitted")))
        #expect(Note.failure(done) == "descriptor write failed: NotPermitted: Write not permitted")
        #expect(s.descriptorValues[Note.label] == Array("Note".utf8))
    }

    @Test func theAppSelectsReadsAndWritesADescriptor() {
        var (s, _) = Note.ready(nil)
        s.route = .characteristic(Note.id, Note.char)
        #expect(Reducer.reduce(&s, .descriptorCycled) == [.backend(.readDescriptor(Note.id, Note.label))])
        #expect(s.selectedDescriptor == Note.label)
        #expect(Reducer.reduce(&s, .writeStarted) == [])
        #expect(s.input?.purpose == .writeDescriptor(Note.id, Note.label))
        _ = Reducer.reduce(&s, .inputEdited(.insert("\"Door\"")))
        #expect(Reducer.reduce(&s, .inputSubmitted) == [.backend(.writeDescriptor(Note.id, Note.label, Array("Door".utf8)))])
        Fixture.apply(&s, .descriptorWritten(Note.label, Array("Door".utf8), nil))
        #expect(s.descriptorValues[Note.label] == Array("Door".utf8))
        #expect(s.name(Note.services[0].characteristics[0]) == "Door")
        #expect(s.alert?.message == "Wrote 4 bytes to Characteristic User Description")

        // The next one does not take a write; past the last, none is selected and w writes the characteristic.
        _ = Reducer.reduce(&s, .descriptorCycled)
        #expect(s.selectedDescriptor == Note.extended)
        #expect(Reducer.reduce(&s, .writeStarted) == [] && s.input == nil)
        #expect(s.alert?.level == .warning)
        #expect(Reducer.reduce(&s, .descriptorCycled) == [] && s.selectedDescriptor == nil)
        _ = Reducer.reduce(&s, .writeStarted)
        #expect(s.input?.purpose == .write(Note.id, Note.char))
    }

    @Test func theAppNeverWritesTheCCCD() {
        var (s, _) = Note.ready(nil)
        s.route = .characteristic(Note.id, Note.button)
        // Selecting it reads nothing: BlueZ keeps it, and the subscription says what it is.
        #expect(Reducer.reduce(&s, .descriptorCycled) == [])
        #expect(Reducer.reduce(&s, .writeStarted) == [] && s.input == nil)
        #expect(s.alert?.message.contains("notifications own it") == true)
    }

    @Test func wCyclesTheTypesTheCharacteristicAllows() {
        var (s, _) = Note.ready(nil)
        s.route = .characteristic(Note.id, Note.char)
        let c = Note.services[0].characteristics[0]
        #expect(s.writeType(c) == .request)
        _ = Reducer.reduce(&s, .writeTypeCycled)
        #expect(s.writeType(c) == .reliable)
        _ = Reducer.reduce(&s, .writeStarted)
        _ = Reducer.reduce(&s, .inputEdited(.insert("01")))
        #expect(Reducer.reduce(&s, .inputSubmitted).first == .backend(.write(Note.id, Note.char, [0x01], .reliable)))
        Fixture.apply(&s, .writeCompleted(Note.char, [0x01], .reliable, nil))
        #expect(s.alert?.message.hasSuffix("(reliable write)") == true)
        _ = Reducer.reduce(&s, .writeTypeCycled)
        #expect(s.writeType(c) == .request)   // command is not allowed: skipped
        Fixture.apply(&s, .writeCompleted(Note.char, Bytes(repeating: 0, count: 245), .request, nil))
        #expect(s.alert?.message.hasSuffix("(long write)") == true)
    }
}

@Suite("Encryption on demand for descriptors: a refused descriptor read or write pairs, then is sent again, once")
struct DescriptorOnDemandTests {
    static let notPaired = BackendError.notPermitted("Not paired")

    /// The app on the note's screen, its label selected with `D` (the read under way).
    static func selected() -> AppState {
        var (s, _) = Note.ready(nil)
        s.route = .characteristic(Note.id, Note.char)
        _ = Reducer.reduce(&s, .descriptorCycled)
        return s
    }

    @Test func theReadsMadeOnConnectingAreNotTrackedAndNeverPair() {
        var s = Fixture.scanning()
        s.scan.cursor = Note.id
        _ = Reducer.reduce(&s, .rowActivated)
        Fixture.apply(&s, .connected(Note.id))
        let reads = Fixture.apply(&s, .servicesResolved(Note.id, Note.services, mtu: 247))
        #expect(reads.contains(.backend(.readDescriptor(Note.id, Note.label))))
        #expect(s.operations.isEmpty)
        // A label that needs encryption costs only the label: no pairing nobody asked for.
        #expect(Fixture.apply(&s, .descriptorRead(Note.label, .failure(Self.notPaired))).allSatisfy {
            if case .backend(.pair) = $0 { return false } else { return true } })
        #expect(s.pairing == nil && s.lastError == nil)
    }

    @Test func aDescriptorReadRefusedPairsAndIsReadAgain() {
        var s = Self.selected()
        #expect(s.operations[Note.label] == GATTOperation(device: Note.id, kind: .readDescriptor))
        #expect(Fixture.apply(&s, .descriptorRead(Note.label, .failure(Self.notPaired))) == [.backend(.pair(Note.id))])
        #expect(s.alert?.message == "Characteristic User Description needs encryption: pairing with Demo iTag…")
        #expect(s.operations[Note.label]?.waitingForPairing == true)
        Fixture.apply(&s, .bondChanged(Note.id, Bond(paired: true, bonded: true)))
        #expect(Fixture.apply(&s, .pairCompleted(Note.id, nil)) == [.backend(.readDescriptor(Note.id, Note.label))])
        #expect(s.alert?.message == "Paired with Demo iTag: read of Characteristic User Description sent again")
        #expect(s.operations[Note.label]?.retried == true)
        Fixture.apply(&s, .descriptorRead(Note.label, .success(Array("Safe".utf8))))
        #expect(s.descriptorValues[Note.label] == Array("Safe".utf8))
        #expect(s.operations.isEmpty && s.lastError == nil)
    }

    @Test func aDescriptorWriteRefusedPairsAndIsWrittenAgain_aSecondRefusalIsFinal() {
        var s = Self.selected()
        Fixture.apply(&s, .descriptorRead(Note.label, .success(Array("Note".utf8))))
        _ = Reducer.reduce(&s, .writeStarted)
        _ = Reducer.reduce(&s, .inputEdited(.insert("\"Door\"")))
        #expect(Reducer.reduce(&s, .inputSubmitted) == [.backend(.writeDescriptor(Note.id, Note.label, Array("Door".utf8)))])
        #expect(s.operations[Note.label] == GATTOperation(device: Note.id, kind: .writeDescriptor(Array("Door".utf8))))
        #expect(Fixture.apply(&s, .descriptorWritten(Note.label, Array("Door".utf8), Self.notPaired)) == [.backend(.pair(Note.id))])
        #expect(s.descriptorValues[Note.label] == Array("Note".utf8))   // not written yet
        Fixture.apply(&s, .bondChanged(Note.id, Bond(paired: true, bonded: true)))
        #expect(Fixture.apply(&s, .pairCompleted(Note.id, nil)) == [.backend(.writeDescriptor(Note.id, Note.label, Array("Door".utf8)))])
        // Refused again once paired: no second pairing, the reason and what to do said.
        #expect(Fixture.apply(&s, .descriptorWritten(Note.label, Array("Door".utf8), Self.notPaired)) == [])
        #expect(s.alert?.message == "Writing Characteristic User Description failed: NotPermitted: Not paired (paired, and still "
                + "refused: the device wants a stronger bond; forget it and pair with a passkey)")
        #expect(s.operations.isEmpty && s.pairing == nil)
    }

    @Test func aPairingThatFailsEndsTheDescriptorOperationWithPairingsOwnError() {
        var s = Self.selected()
        _ = Fixture.apply(&s, .descriptorRead(Note.label, .failure(Self.notPaired)))
        let error = BackendError(name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed")
        #expect(Fixture.apply(&s, .pairCompleted(Note.id, error)) == [])
        #expect(s.lastError == "Read Characteristic User Description failed: pairing with Demo iTag failed: "
                + "AuthenticationFailed: Authentication Failed")
        #expect(s.operations.isEmpty)
    }

    @Test func anotherFailureOfAReadAskedForIsSaid() {
        var s = Self.selected()
        #expect(Fixture.apply(&s, .descriptorRead(Note.label, .failure(.notPermitted("Read not permitted")))) == [])
        #expect(s.lastError == "Read Characteristic User Description failed: NotPermitted: Read not permitted")
        #expect(s.operations.isEmpty && s.pairing == nil)
    }

    @Test func theScreenSaysTheDescriptorReadWaitsForPairing() {
        var s = Self.selected()
        _ = Fixture.apply(&s, .descriptorRead(Note.label, .failure(Self.notPaired)))
        guard let op = s.operations[Note.label] else { Issue.record("no operation"); return }
        #expect(op.isDescriptor && op.verb == "Read")
    }

    @Test func readDescriptorHeadlessPairsThenPrintsTheValue() {
        var (s, _) = Note.ready(.readDescriptor(address: Note.id.rawValue, uuid: Note.uuid, descriptor: "2901"))
        #expect(s.operations[Note.label] == GATTOperation(device: Note.id, kind: .readDescriptor))
        let refused = Fixture.apply(&s, .descriptorRead(Note.label, .failure(Self.notPaired)))
        #expect(refused.contains(.backend(.pair(Note.id))))
        #expect(refused.contains(.output(.warning("FC:58:FA:1A:2B:3C refused the descriptor read for want of encryption: pairing…"))))
        #expect(refused.contains(.startTimer(.operation, after: JobReducer.pairTimeout)))
        Fixture.apply(&s, .bondChanged(Note.id, Bond(paired: true, bonded: true)))
        let again = Fixture.apply(&s, .pairCompleted(Note.id, nil))
        #expect(again.contains(.backend(.readDescriptor(Note.id, Note.label))))
        #expect(again.contains(.output(.warning("paired with FC:58:FA:1A:2B:3C; sent again"))))
        let done = Fixture.apply(&s, .descriptorRead(Note.label, .success(Array("Safe".utf8))))
        #expect(done.contains { if case let .output(.value(v)) = $0 { v.bytes == Array("Safe".utf8) && v.descriptor == "2901" } else { false } })
        #expect(s.job?.phase == .leaving(exitCode: 0))
    }

    @Test func writeDescriptorHeadlessWhosePairingFailsSaysPairingsError() {
        var (s, _) = Note.ready(.writeDescriptor(address: Note.id.rawValue, uuid: Note.uuid, descriptor: "2901", value: [0x4B]))
        let refused = Fixture.apply(&s, .descriptorWritten(Note.label, [0x4B], Self.notPaired))
        #expect(refused.contains(.output(.warning("FC:58:FA:1A:2B:3C refused the descriptor write for want of encryption: pairing…"))))
        let error = BackendError(name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed")
        let failed = Fixture.apply(&s, .pairCompleted(Note.id, error))
        #expect(Note.failure(failed) == "pairing with FC:58:FA:1A:2B:3C failed: AuthenticationFailed: Authentication Failed")
    }

    @Test func aPairingRequestRejectedForADescriptorReadEndsTheCommandSayingWhy() {
        var (s, _) = Note.ready(.readDescriptor(address: Note.id.rawValue, uuid: Note.uuid, descriptor: "2901"))
        let asked = BackendEvent.agentRequested(AgentRequest(id: 4, device: Note.id, kind: .authorization))
        let effects = Fixture.apply(&s, asked)
        let why = "Demo iTag asks for authorization and there is no terminal to ask on: give --confirm yes|no"
        #expect(effects.contains(.backend(.answerAgent(4, .reject(why)))))
        #expect(Note.failure(effects) == "descriptor read failed: bluetoothd asked to pair for it, and the request was rejected: \(why)")
    }
}
