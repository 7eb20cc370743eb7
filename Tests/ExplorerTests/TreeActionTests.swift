import Testing
@testable import Explorer

/// `r`, `n` and `w` on a characteristic row of the device screen, and `A`: without
/// opening the characteristic, and only what its properties allow.
@Suite("Reducer: acting from the tree")
struct TreeActionTests {
    /// The HRM's tree: Heart Rate (2A37 notify, 2A38 read), cursor on the service row.
    static func tree() -> AppState {
        var s = Fixture.connectedHRM()
        s.alert = nil
        return s
    }

    @Test func readAndNotifyTheRowUnderTheCursor() {
        var s = Self.tree()
        #expect(s.route == .device(Fixture.hrm) && s.device.cursor == Fixture.hrmServices[0].id)
        // On the service row: nothing to read, and the hint line offers neither.
        #expect(Reducer.reduce(&s, .readRequested) == [])
        #expect(!Keymap.hints(for: s).contains("r read") && !Keymap.hints(for: s).contains("n notify"))
        _ = Reducer.reduce(&s, .cursorMoved(.down))             // Heart Rate Measurement: notify only
        #expect(Keymap.hints(for: s).contains("n notify") && !Keymap.hints(for: s).contains("r read"))
        #expect(Reducer.reduce(&s, .notifyToggled) == [.backend(.setNotify(Fixture.hrm, Fixture.hrmChar, true))])
        Fixture.apply(&s, .notifyChanged(Fixture.hrmChar, enabled: true, nil))
        #expect(Reducer.reduce(&s, .notifyToggled) == [.backend(.setNotify(Fixture.hrm, Fixture.hrmChar, false))])
        #expect(Reducer.reduce(&s, .readRequested) == [])
        #expect(s.alert?.message == "Heart Rate Measurement cannot be read (properties: notify)")
        _ = Reducer.reduce(&s, .cursorMoved(.down))             // Body Sensor Location: read only
        #expect(Keymap.hints(for: s).contains("r read") && !Keymap.hints(for: s).contains("n notify"))
        #expect(Reducer.reduce(&s, .readRequested) == [.backend(.read(Fixture.hrm, Fixture.bslChar))])
        #expect(s.route == .device(Fixture.hrm))                 // still the tree
        Fixture.apply(&s, .readCompleted(Fixture.bslChar, .success([1])))
        #expect(s.values[Fixture.bslChar]?.latest?.bytes == [1])
        #expect(Reducer.reduce(&s, .writeStarted) == [])
        #expect(s.input == nil && s.alert?.message == "Body Sensor Location cannot be written (properties: read)")
        // m and a stay the characteristic screen's.
        _ = Reducer.reduce(&s, .cursorMoved(.up))
        #expect(Reducer.reduce(&s, .hookStarted) == [] && s.input == nil)
        #expect(Reducer.reduce(&s, .messageViewToggled) == [] && s.streams.isEmpty)
    }

    @Test func writeFromTheTree() {
        var s = Self.tree()
        s.peripherals[Fixture.hrm]!.services![0].characteristics[1].properties = [.read, .writeWithoutResponse]
        _ = Reducer.reduce(&s, .cursorMoved(.bottom))
        #expect(Reducer.reduce(&s, .writeStarted) == [.loadWriteHistory(key: "E41C225D9011-2a38")])
        _ = Reducer.reduce(&s, .inputEdited(.insert("02")))
        #expect(Reducer.reduce(&s, .inputSubmitted).first == .backend(.write(Fixture.hrm, Fixture.bslChar, [2], .command)))
    }

    @Test func readAllReadsEveryReadableCharacteristic() {
        var s = Self.tree()
        let battery = CharacteristicID("/b/c")
        s.peripherals[Fixture.hrm]!.services!.append(GATTService(id: AttributeID("/b"), uuid: "180F", characteristics: [
            GATTCharacteristic(id: battery, uuid: "2A19", properties: [.read, .notify])]))
        #expect(Keymap.action(for: .char("A"), in: s) == .readAllRequested)
        #expect(Keymap.hints(for: s).contains("A read all"))
        #expect(Reducer.reduce(&s, .readAllRequested) == [.backend(.read(Fixture.hrm, Fixture.bslChar)),
                                                          .backend(.read(Fixture.hrm, battery))])
        #expect(s.alert?.message == "Reading 2 readable characteristics of Demo HRM…")
        // Not offered, nor done, where nothing can be read; not on other screens.
        s.peripherals[Fixture.hrm]!.services = Array(s.peripherals[Fixture.hrm]!.services!.prefix(1))
        s.peripherals[Fixture.hrm]!.services![0].characteristics.removeLast()
        #expect(!Keymap.hints(for: s).contains("A read all"))
        #expect(Reducer.reduce(&s, .readAllRequested) == [])
        #expect(s.alert?.message == "Demo HRM has no readable characteristic")
        s.route = .scan
        #expect(Keymap.action(for: .char("A"), in: s) == nil)
    }

    @Test func aDroppedLinkIsSaidNotSent() {
        var s = Self.tree()
        _ = Reducer.reduce(&s, .cursorMoved(.bottom))
        Fixture.apply(&s, .disconnected(Fixture.hrm, .timeout))
        #expect(Reducer.reduce(&s, .readRequested) == [])
        #expect(Reducer.reduce(&s, .readAllRequested) == [])
        #expect(s.alert?.message == "Demo HRM is disconnected: Enter reconnects")
    }
}
