import Testing
@testable import Explorer

/// The device's database changes while connected (Service Changed: BlueZ re-resolves the
/// services and sends the tree again, at new object paths).
@Suite("Service Changed")
struct ServiceChangedTests {
    static let base = "/sim/dev_E4_1C_22_5D_90_11"
    /// The HRM's tree after the change: the same service at a new handle, and a DFU service.
    static let moved = CharacteristicID(base + "/service0020/char0021")
    static let after = [
        GATTService(id: AttributeID(base + "/service0020"), uuid: "180D", characteristics: [
            GATTCharacteristic(id: moved, uuid: "2A37", properties: [.notify],
                               descriptors: [GATTDescriptor(id: AttributeID(moved.path + "/desc0022"), uuid: "2902")]),
        ]),
        GATTService(id: AttributeID(base + "/service0030"), uuid: "FE59", characteristics: [
            GATTCharacteristic(id: CharacteristicID(base + "/service0030/char0031"), uuid: "8EC90003-F315-4F60-9FB8-838830DAEA50",
                               properties: [.write, .indicate]),
        ]),
    ]

    static func onHeartRate() -> AppState {
        var s = Fixture.connectedHRM()
        s.route = .characteristic(Fixture.hrm, Fixture.hrmChar)
        Fixture.apply(&s, .notifyChanged(Fixture.hrmChar, enabled: true, nil))
        Fixture.apply(&s, .valueNotified(Fixture.hrmChar, [0x06, 72]))
        return s
    }

    @Test func theSameTreeAgainChangesNothing() {
        var s = Self.onHeartRate()
        let before = s
        #expect(Fixture.apply(&s, .servicesResolved(Fixture.hrm, Fixture.hrmServices, mtu: 247)) == [])
        #expect(s.route == before.route && s.alert == before.alert && s.subscriptions == before.subscriptions)
    }

    /// The open characteristic follows its UUID to its new path, with its history; its
    /// notifications are turned on again there; the tree is the new one.
    @Test func theOpenCharacteristicFollows() {
        var s = Self.onHeartRate()
        let effects = Fixture.apply(&s, .servicesResolved(Fixture.hrm, Self.after, mtu: 247), after: 1)
        #expect(s.route == .characteristic(Fixture.hrm, Self.moved))
        #expect(s.peripherals[Fixture.hrm]?.services == Self.after)
        #expect(s.values[Self.moved]?.latest?.bytes == [0x06, 72] && s.values[Fixture.hrmChar] == nil)
        #expect(effects == [.backend(.setNotify(Fixture.hrm, Self.moved, true))])
        #expect(!s.subscriptions.contains(Fixture.hrmChar))
        #expect(s.alert?.message == "The services of Demo HRM changed: 2 services now", "\(String(describing: s.alert))")
    }

    /// What is gone is gone: the screen goes back to the tree and says which.
    @Test func aCharacteristicThatIsGoneSaysSo() {
        var s = Fixture.connectedHRM()
        s.route = .characteristic(Fixture.hrm, Fixture.bslChar)
        Fixture.apply(&s, .servicesResolved(Fixture.hrm, Self.after, mtu: 247), after: 1)
        #expect(s.route == .device(Fixture.hrm))
        #expect(s.alert?.message.hasSuffix("; Body Sensor Location is gone") == true, "\(String(describing: s.alert))")
        #expect(s.alert?.level == .warning)
    }

    /// `C`: bluetoothd's cache cleared: asked first, then forgotten, the screen kept as after
    /// a link loss, and connected again as soon as the device is heard.
    @Test func clearingTheCacheForgetsThenConnectsAgain() {
        var s = Fixture.connectedHRM()
        #expect(Reducer.reduce(&s, .cacheClearRequested) == [])
        #expect(s.forgetAsked == Fixture.hrm && s.forgetThenConnect)
        #expect(Reducer.reduce(&s, .forgetAnswered(true)) == [.backend(.forget(Fixture.hrm))])
        #expect(s.route == .device(Fixture.hrm) && s.reconnectAfterForget == Fixture.hrm && !s.forgetThenConnect)
        Fixture.apply(&s, .disconnected(Fixture.hrm, .local), after: 0.1)
        Fixture.apply(&s, .peripheralRemoved(Fixture.hrm), after: 0.1)
        #expect(s.route == .device(Fixture.hrm) && s.linkLoss[Fixture.hrm] != nil)
        let effects = Fixture.apply(&s, Fixture.report(Fixture.hrm, name: "Demo HRM", rssi: -50, adv: Advertisement()), after: 1)
        #expect(effects == [.backend(.connect(Fixture.hrm))] && s.reconnectAfterForget == nil)
        // X stays a plain forget.
        _ = Reducer.reduce(&s, .forgetRequested)
        #expect(!s.forgetThenConnect)
    }
}
