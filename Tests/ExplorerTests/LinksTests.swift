import Testing
@testable import Explorer

/// Several links at once: each keeps its screen, history and subscriptions; `1`–`9` go
/// from one to another; a link that drops while another is on screen is kept for later.
@Suite("Reducer: several links")
struct LinksTests {

    /// The HRM connected, its Body Sensor Location open; then back to the list, and the
    /// iTag connected: its device screen is open.
    static func twoLinks() -> AppState {
        var s = Fixture.connectedHRM()
        s.device.cursor = Fixture.bslChar
        _ = Reducer.reduce(&s, .rowActivated)
        #expect(s.route == .characteristic(Fixture.hrm, Fixture.bslChar))
        _ = Reducer.reduce(&s, .backRequested)
        _ = Reducer.reduce(&s, .backRequested)
        s.scan.cursor = Fixture.itag
        #expect(Reducer.reduce(&s, .rowActivated) == [.backend(.connect(Fixture.itag))])
        Fixture.apply(&s, .connected(Fixture.itag), after: 0.5)
        Fixture.apply(&s, .servicesResolved(Fixture.itag, Fixture.itagServices, mtu: 23), after: 0.2)
        return s
    }

    @Test func eachLinkIsNumberedInTheOrderItWasOpened() {
        let s = Self.twoLinks()
        #expect(s.route == .device(Fixture.itag))
        #expect(s.links.order == [Fixture.hrm, Fixture.itag])
        #expect(s.links.number(of: Fixture.itag) == 2)
        #expect(s.peripherals[Fixture.hrm]?.connection == .connected)   // the first link stays up
    }

    @Test func aNumberGoesToThatLinksScreenAsItWasLeft() {
        var s = Self.twoLinks()
        _ = Reducer.reduce(&s, .linkSelected(1))
        #expect(s.route == .device(Fixture.hrm))
        #expect(s.device.cursor == Fixture.bslChar)   // where Esc left it
        _ = Reducer.reduce(&s, .rowActivated)
        s.historyOffset = 3
        _ = Reducer.reduce(&s, .linkSelected(2))
        #expect(s.route == .device(Fixture.itag))
        #expect(s.device.cursor == AttributeID("/sim/dev_FC_58_FA_1A_2B_3C/service0010"))
        #expect(s.historyOffset == 0)
        _ = Reducer.reduce(&s, .linkSelected(1))
        #expect(s.route == .characteristic(Fixture.hrm, Fixture.bslChar))
        #expect(s.historyOffset == 3)
        // Enter on a link's row in the scan list goes to its place too.
        _ = Reducer.reduce(&s, .backRequested)
        _ = Reducer.reduce(&s, .backRequested)
        s.scan.cursor = Fixture.itag
        #expect(Reducer.reduce(&s, .rowActivated) == [])
        #expect(s.route == .device(Fixture.itag))
    }

    @Test func aNumberWithNoLinkSaysSo() {
        var s = Fixture.scanning()
        _ = Reducer.reduce(&s, .linkSelected(1))
        #expect(s.route == .scan)
        #expect(s.alert?.message == "No links yet: Enter on a device connects")
        s = Self.twoLinks()
        _ = Reducer.reduce(&s, .linkSelected(3))
        #expect(s.route == .device(Fixture.itag))
        #expect(s.alert?.message == "No link 3: the top bar numbers the 2 there are")
    }

    @Test func notificationsOfEveryLinkAreKeptWhicheverIsShown() {
        var s = Self.twoLinks()
        Fixture.apply(&s, .notifyChanged(Fixture.hrmChar, enabled: true, nil))
        Fixture.apply(&s, .notifyChanged(Fixture.itagChar, enabled: true, nil))
        Fixture.apply(&s, .valueNotified(Fixture.hrmChar, [0, 72]), after: 1)
        Fixture.apply(&s, .valueNotified(Fixture.itagChar, [1]), after: 1)
        #expect(s.values[Fixture.hrmChar]?.count == 1 && s.values[Fixture.itagChar]?.count == 1)
        #expect(s.subscriptions == [Fixture.hrmChar, Fixture.itagChar])
    }

    /// The HRM drops while the iTag's screen is shown: the iTag's screen stays, the HRM's
    /// place is kept with its subscription, and going there offers Enter to reconnect.
    @Test func aLinkLostBehindAnotherIsKeptForLater() {
        var s = Self.twoLinks()
        Fixture.apply(&s, .notifyChanged(Fixture.hrmChar, enabled: true, nil))
        Fixture.apply(&s, .disconnected(Fixture.hrm, .timeout), after: 2)
        #expect(s.route == .device(Fixture.itag))
        #expect(s.links.order == [Fixture.hrm, Fixture.itag])
        #expect(s.linkLoss[Fixture.hrm]?.subscriptions == [Fixture.hrmChar])
        #expect(s.alert?.message == "Demo HRM disconnected: connection timed out")
        // Not forgotten while unheard: the place is there to come back to.
        s.now = s.now + AppState.expireAfter + 5
        _ = Reducer.reduce(&s, .tick(s.now))
        #expect(s.peripherals[Fixture.hrm] != nil)
        _ = Reducer.reduce(&s, .linkSelected(1))
        #expect(s.route == .device(Fixture.hrm))
        #expect(Keymap.hints(for: s).hasPrefix("Enter reconnect"))
        #expect(Reducer.reduce(&s, .rowActivated) == [.backend(.connect(Fixture.hrm))])
        Fixture.apply(&s, .connected(Fixture.hrm), after: 0.5)
        let effects = Fixture.apply(&s, .servicesResolved(Fixture.hrm, Fixture.hrmServices, mtu: 247), after: 0.2)
        #expect(effects == [.backend(.setNotify(Fixture.hrm, Fixture.hrmChar, true))])
        #expect(s.route == .device(Fixture.hrm) && s.device.cursor == Fixture.bslChar)
    }

    /// Reconnected from the scan list, a lost link opens where it was left.
    @Test func aLostLinkReconnectedFromTheListOpensItsPlace() {
        var s = Self.twoLinks()
        _ = Reducer.reduce(&s, .linkSelected(1))
        _ = Reducer.reduce(&s, .rowActivated)   // Body Sensor Location
        _ = Reducer.reduce(&s, .linkSelected(2))
        Fixture.apply(&s, .disconnected(Fixture.hrm, .remote), after: 1)
        _ = Reducer.reduce(&s, .backRequested)
        s.scan.cursor = Fixture.hrm
        #expect(Reducer.reduce(&s, .rowActivated) == [.backend(.connect(Fixture.hrm))])
        Fixture.apply(&s, .connected(Fixture.hrm), after: 0.5)
        Fixture.apply(&s, .servicesResolved(Fixture.hrm, Fixture.hrmServices, mtu: 247), after: 0.2)
        #expect(s.route == .characteristic(Fixture.hrm, Fixture.bslChar))
        #expect(s.linkLoss.isEmpty)
    }

    /// `d` on a lost link's row gives it up; a link the user disconnects leaves at once.
    @Test func givingUpAndDisconnectingEndALink() {
        var s = Self.twoLinks()
        Fixture.apply(&s, .disconnected(Fixture.hrm, .timeout), after: 1)
        _ = Reducer.reduce(&s, .backRequested)
        s.scan.cursor = Fixture.hrm
        #expect(Reducer.reduce(&s, .disconnectRequested) == [])
        #expect(s.links.order == [Fixture.itag] && s.linkLoss.isEmpty)
        s.scan.cursor = Fixture.itag
        #expect(Reducer.reduce(&s, .disconnectRequested) == [.backend(.disconnect(Fixture.itag))])
        Fixture.apply(&s, .disconnected(Fixture.itag, .local), after: 1)
        #expect(s.links.isEmpty && s.links.places.isEmpty)
    }

    /// A link that becomes ready while the user is on another link's screen does not take
    /// the screen: the message says which number goes to it.
    @Test func aLinkReadyBehindAnotherDoesNotTakeTheScreen() {
        var s = Fixture.connectedHRM()
        _ = Reducer.reduce(&s, .backRequested)
        s.scan.cursor = Fixture.itag
        _ = Reducer.reduce(&s, .rowActivated)
        _ = Reducer.reduce(&s, .linkSelected(1))
        #expect(s.route == .device(Fixture.hrm))
        _ = Reducer.reduce(&s, .linkSelected(2))   // still connecting: the list, on it
        #expect(s.route == .scan && s.scan.cursor == Fixture.itag)
        #expect(s.alert?.message == "Demo iTag is connecting…")
        _ = Reducer.reduce(&s, .linkSelected(1))
        Fixture.apply(&s, .connected(Fixture.itag), after: 0.5)
        Fixture.apply(&s, .servicesResolved(Fixture.itag, Fixture.itagServices, mtu: 23), after: 0.2)
        #expect(s.route == .device(Fixture.hrm))
        #expect(s.alert?.message == "Connected to Demo iTag: 2 goes to it")
        #expect(s.pendingConnection == nil)
    }

    /// A connection another program made is a link of the adapter: listed too.
    @Test func aLinkMadeElsewhereIsListed() {
        var s = Fixture.scanning()
        Fixture.apply(&s, .connected(Fixture.itag), after: 0.5)
        #expect(s.links.order == [Fixture.itag])
        Fixture.apply(&s, .servicesResolved(Fixture.itag, Fixture.itagServices, mtu: 23), after: 0.2)
        #expect(s.route == .scan)
        _ = Reducer.reduce(&s, .linkSelected(1))
        #expect(s.route == .device(Fixture.itag))
    }

    /// Forgetting a device ends its link and its place.
    @Test func forgettingEndsTheLink() {
        var s = Self.twoLinks()
        _ = Reducer.reduce(&s, .forgetRequested)
        _ = Reducer.reduce(&s, .forgetAnswered(true))
        #expect(s.links.order == [Fixture.hrm])
        #expect(s.route == .scan)
    }
}
