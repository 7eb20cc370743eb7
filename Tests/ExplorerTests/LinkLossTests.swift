import Testing
@testable import Explorer

/// A link lost under the user keeps the screen, its history and a half-typed line; Enter
/// reconnects, and the subscriptions that were on come back on.
@Suite("Reducer: link loss keeps your place")
struct LinkLossTests {
    static let battery = CharacteristicID("/sim/dev_E4_1C_22_5D_90_11/service0010/char0011")
    static let services = Fixture.hrmServices + [
        GATTService(id: AttributeID("/sim/dev_E4_1C_22_5D_90_11/service0010"), uuid: "180F", characteristics: [
            GATTCharacteristic(id: battery, uuid: "2A19", properties: [.read, .write, .notify]),
        ]),
    ]

    /// The HRM connected with two subscriptions on, on the battery's screen.
    static func subscribed() -> AppState {
        var s = Fixture.scanning()
        s.scan.cursor = Fixture.hrm
        _ = Reducer.reduce(&s, .rowActivated)
        Fixture.apply(&s, .connected(Fixture.hrm), after: 0.5)
        Fixture.apply(&s, .servicesResolved(Fixture.hrm, services, mtu: 247), after: 0.2)
        Fixture.apply(&s, .notifyChanged(Fixture.hrmChar, enabled: true, nil))
        Fixture.apply(&s, .notifyChanged(battery, enabled: true, nil))
        Fixture.apply(&s, .valueNotified(battery, [80]), after: 1)
        s.route = .characteristic(Fixture.hrm, battery)
        return s
    }

    @Test func theScreenHistoryAndAHalfTypedWriteStay() {
        var s = Self.subscribed()
        _ = Reducer.reduce(&s, .writeStarted)
        _ = Reducer.reduce(&s, .inputEdited(.insert("01 f")))
        Fixture.apply(&s, .disconnected(Fixture.hrm, .remote), after: 2)
        #expect(s.route == .characteristic(Fixture.hrm, Self.battery))
        #expect(s.input == InputLine(purpose: .write(Fixture.hrm, Self.battery), text: "01 f"))
        #expect(s.values[Self.battery]?.history.count == 1)
        #expect(s.linkLoss[Fixture.hrm]?.subscriptions == [Fixture.hrmChar, Self.battery])
        #expect(s.linkLoss[Fixture.hrm]?.reason == "remote device ended the connection")
        // Reads and notify toggles say the link is down instead of failing at the device.
        s.input = nil
        #expect(Reducer.reduce(&s, .readRequested) == [])
        #expect(s.alert?.message == "Demo HRM is disconnected: Enter reconnects")
        #expect(Reducer.reduce(&s, .notifyToggled) == [])
    }

    @Test func enterReconnectsAndTheSubscriptionsComeBackOn() {
        var s = Self.subscribed()
        Fixture.apply(&s, .disconnected(Fixture.hrm, .timeout), after: 2)
        #expect(Keymap.hints(for: s).hasPrefix("Enter reconnect · r read"))
        #expect(Reducer.reduce(&s, .rowActivated) == [.backend(.connect(Fixture.hrm))])
        #expect(s.pendingConnection == Fixture.hrm)
        #expect(Reducer.reduce(&s, .rowActivated) == [])   // once
        Fixture.apply(&s, .connected(Fixture.hrm), after: 0.5)
        let effects = Fixture.apply(&s, .servicesResolved(Fixture.hrm, Self.services, mtu: 247), after: 0.2)
        // The place is kept (not the device screen's top), and both subscriptions return.
        #expect(s.route == .characteristic(Fixture.hrm, Self.battery))
        #expect(effects.count == 2 && effects.contains(.backend(.setNotify(Fixture.hrm, Fixture.hrmChar, true)))
                && effects.contains(.backend(.setNotify(Fixture.hrm, Self.battery, true))))
        #expect(s.linkLoss.isEmpty && s.pendingConnection == nil)
        #expect(s.alert?.message == "Reconnected to Demo HRM; turning 2 subscriptions on again")
        #expect(s.values[Self.battery]?.history.count == 1)
    }

    @Test func aWriteSubmittedWhileDownReconnectsAndKeepsTheLine() {
        var s = Self.subscribed()
        _ = Reducer.reduce(&s, .writeStarted)
        _ = Reducer.reduce(&s, .inputEdited(.insert("01")))
        Fixture.apply(&s, .disconnected(Fixture.hrm, .timeout), after: 2)
        #expect(Reducer.reduce(&s, .inputSubmitted) == [.backend(.connect(Fixture.hrm))])
        #expect(s.input?.text == "01")
        #expect(s.alert?.message == "Reconnecting to Demo HRM; the line stays: Enter writes it once connected")
        #expect(Reducer.reduce(&s, .inputSubmitted) == [])   // still connecting: nothing goes out
        Fixture.apply(&s, .connected(Fixture.hrm), after: 0.5)
        Fixture.apply(&s, .servicesResolved(Fixture.hrm, Self.services, mtu: 247), after: 0.2)
        #expect(s.input?.text == "01")
        #expect(Reducer.reduce(&s, .inputSubmitted) == [.backend(.write(Fixture.hrm, Self.battery, [0x01], .request)),
                                                        .saveWriteHistory(key: "E41C225D9011-2a19", ["01"])])
    }

    @Test func aFailedReconnectStaysAndSaysWhy() {
        var s = Self.subscribed()
        s.route = .device(Fixture.hrm)
        Fixture.apply(&s, .disconnected(Fixture.hrm, .timeout), after: 2)
        _ = Reducer.reduce(&s, .rowActivated)
        Fixture.apply(&s, .connectFailed(Fixture.hrm, .failed("le-connection-abort-by-local")), after: 1)
        #expect(s.route == .device(Fixture.hrm))
        #expect(s.linkLoss[Fixture.hrm]?.reason == "reconnecting failed: le-connection-abort-by-local")
        #expect(s.linkLoss[Fixture.hrm]?.subscriptions.count == 2)
        // A second loss before the peripheral was ready again keeps what was on the first time.
        _ = Reducer.reduce(&s, .rowActivated)
        Fixture.apply(&s, .connected(Fixture.hrm), after: 0.5)
        Fixture.apply(&s, .disconnected(Fixture.hrm, .timeout), after: 0.5)
        #expect(s.linkLoss[Fixture.hrm]?.subscriptions.count == 2)
    }

    @Test func disconnectingOnPurposeGoesBackToTheList() {
        var s = Self.subscribed()
        #expect(Reducer.reduce(&s, .disconnectRequested) == [.backend(.disconnect(Fixture.hrm))])
        Fixture.apply(&s, .disconnected(Fixture.hrm, .local), after: 0.2)
        #expect(s.route == .scan && s.linkLoss.isEmpty)
        // `d` on a kept screen gives the place up.
        s = Self.subscribed()
        Fixture.apply(&s, .disconnected(Fixture.hrm, .timeout), after: 2)
        #expect(Reducer.reduce(&s, .disconnectRequested) == [])
        #expect(s.route == .scan && s.scan.cursor == Fixture.hrm && s.linkLoss.isEmpty)
        // A local disconnect nobody here asked for (another program) is a loss too.
        s = Self.subscribed()
        Fixture.apply(&s, .disconnected(Fixture.hrm, .local), after: 2)
        #expect(s.route == .characteristic(Fixture.hrm, Self.battery) && s.linkLoss[Fixture.hrm] != nil)
    }

    /// Enter on a device on its way down is never a key that does nothing: it says so, and
    /// once it is down Enter connects again.
    @Test func enterWhileDisconnectingSaysSo() {
        var s = Self.subscribed()
        _ = Reducer.reduce(&s, .disconnectRequested)
        s.route = .scan
        s.scan.cursor = Fixture.hrm
        #expect(Reducer.reduce(&s, .rowActivated) == [])
        #expect(s.alert?.message.hasSuffix("is disconnecting…") == true, "\(String(describing: s.alert))")
        Fixture.apply(&s, .disconnected(Fixture.hrm, .local), after: 0.2)
        #expect(Reducer.reduce(&s, .rowActivated) == [.backend(.connect(Fixture.hrm))])
    }

    @Test func aCharacteristicGoneAfterTheReconnectFallsBackToTheTree() {
        var s = Self.subscribed()
        Fixture.apply(&s, .disconnected(Fixture.hrm, .timeout), after: 2)
        _ = Reducer.reduce(&s, .rowActivated)
        Fixture.apply(&s, .connected(Fixture.hrm), after: 0.5)
        let effects = Fixture.apply(&s, .servicesResolved(Fixture.hrm, Fixture.hrmServices, mtu: 247), after: 0.2)
        #expect(s.route == .device(Fixture.hrm))
        #expect(effects == [.backend(.setNotify(Fixture.hrm, Fixture.hrmChar, true))])
    }

    /// A command keeps no place: it has no screen (watch reconnects on its own).
    @Test func aCommandKeepsNoPlace() {
        var s = Self.subscribed()
        s.job = JobState(job: .scan(duration: 5))
        Fixture.apply(&s, .disconnected(Fixture.hrm, .timeout), after: 2)
        #expect(s.route == .scan && s.linkLoss.isEmpty)
    }
}
