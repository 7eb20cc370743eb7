import Testing
@testable import Explorer

@Suite("Pairing: agent requests, answers, pair, trust, block, forget")
struct PairingTests {
    static let lock = Fixture.hrm

    static func asked(_ kind: AgentRequestKind, id: Int = 7, _ s: inout AppState) -> [Effect] {
        Fixture.apply(&s, .agentRequested(AgentRequest(id: id, device: lock, kind: kind)))
    }

    static func keys(_ s: inout AppState, _ keys: [Key]) -> [Effect] {
        var effects: [Effect] = []
        for k in keys { if let a = Keymap.action(for: k, in: s) { effects += Reducer.reduce(&s, a) } }
        return effects
    }

    @Test func aPasskeyIsTypedAndSentAsTheAnswer() {
        var s = Fixture.scanning()
        #expect(Self.asked(.passkey, &s) == [])
        #expect(s.agentPrompt?.request.kind == .passkey)
        // Letters are not digits; the seventh digit does not fit.
        let effects = Self.keys(&s, [.char("1"), .char("x"), .char("2"), .char("3"), .char("4"), .char("5"), .char("6"), .char("7")])
        #expect(effects == [])
        #expect(s.agentPrompt?.typed == "123456")
        #expect(Self.keys(&s, [.enter]) == [.backend(.answerAgent(7, .passkey(123_456)))])
        #expect(s.agentPrompt == nil)
    }

    @Test func aShortPasskeyIsNotSentAndEscRefuses() {
        var s = Fixture.scanning()
        _ = Self.asked(.passkey, &s)
        #expect(Self.keys(&s, [.char("1"), .enter]) == [])
        #expect(s.alert?.message == "The passkey has six digits")
        #expect(s.agentPrompt != nil)
        #expect(Self.keys(&s, [.escape]) == [.backend(.answerAgent(7, .reject("refused by the user")))])
        #expect(s.agentPrompt == nil)
    }

    @Test func aPinCodeIsText() {
        var s = Fixture.scanning()
        _ = Self.asked(.pinCode, &s)
        #expect(Self.keys(&s, [.char("0"), .char("a"), .char("\u{1B}"), .backspace, .char("b"), .enter])
                == [.backend(.answerAgent(7, .pinCode("0b")))])
    }

    @Test func aNumericComparisonIsYesOrNo() {
        var s = Fixture.scanning()
        _ = Self.asked(.confirmation(42), &s)
        #expect(Self.keys(&s, [.char("7")]) == [])   // neither yes nor no: the question stays
        #expect(Self.keys(&s, [.char("y")]) == [.backend(.answerAgent(7, .accept))])
        _ = Self.asked(.confirmation(42), id: 8, &s)
        #expect(Self.keys(&s, [.char("n")]) == [.backend(.answerAgent(8, .reject("refused by the user")))])
    }

    @Test func authorizationsAreYesOrNo() {
        var s = Fixture.scanning()
        _ = Self.asked(.authorization, &s)
        #expect(Self.keys(&s, [.char("Y")]) == [.backend(.answerAgent(7, .accept))])
        _ = Self.asked(.service("180D"), id: 9, &s)
        #expect(Self.keys(&s, [.escape]) == [.backend(.answerAgent(9, .reject("refused by the user")))])
    }

    @Test func aShownPasskeyIsAnsweredAtOnceAndStaysUntilPaired() {
        var s = Fixture.scanning()
        #expect(Self.asked(.displayPasskey(1234, entered: 0), &s) == [.backend(.answerAgent(7, .accept))])
        #expect(Self.asked(.displayPasskey(1234, entered: 3), id: 8, &s) == [.backend(.answerAgent(8, .accept))])
        #expect(s.agentPrompt?.request.kind == .displayPasskey(1234, entered: 3))
        #expect(Self.asked(.displayPinCode("0000"), id: 9, &s) == [.backend(.answerAgent(9, .accept))])
        _ = Fixture.apply(&s, .pairCompleted(Self.lock, nil))
        #expect(s.agentPrompt == nil)
        #expect(s.peripherals[Self.lock]?.bond.paired == true)
        // Esc only hides a shown one: nothing to answer.
        _ = Self.asked(.displayPasskey(1, entered: 0), id: 10, &s)
        #expect(Self.keys(&s, [.escape]) == [])
        #expect(s.agentPrompt == nil)
    }

    @Test func cancelTakesThePromptAwaySayingSo() {
        var s = Fixture.scanning()
        _ = Self.asked(.passkey, &s)
        #expect(Fixture.apply(&s, .agentCancelled) == [])
        #expect(s.agentPrompt == nil)
        #expect(s.alert?.message == "Pairing request from Demo HRM cancelled")
        _ = Self.asked(.confirmation(1), &s)
        _ = Fixture.apply(&s, .agentReleased)
        #expect(s.agentPrompt == nil)
    }

    @Test func aNewRequestSupersedesAnOpenOne() {
        var s = Fixture.scanning()
        _ = Self.asked(.passkey, &s)
        #expect(Self.asked(.confirmation(5), id: 8, &s) == [.backend(.answerAgent(7, .reject("superseded by a newer request")))])
        #expect(s.agentPrompt?.request.id == 8)
    }

    @Test func headlessTheCommandLineAnswersOrTheRequestIsRejected() {
        var s = Fixture.scanning()
        s.job = JobState(job: .pair(address: Self.lock.rawValue))
        s.agent = AgentSettings(passkey: 246_810, confirm: true)
        #expect(Self.asked(.passkey, &s).contains(.backend(.answerAgent(7, .passkey(246_810)))))
        #expect(Self.asked(.pinCode, id: 8, &s).contains(.backend(.answerAgent(8, .pinCode("246810")))))
        #expect(Self.asked(.confirmation(3), id: 9, &s).contains(.backend(.answerAgent(9, .accept))))
        s.agent = AgentSettings(confirm: false)
        #expect(Self.asked(.authorization, id: 10, &s).contains(.backend(.answerAgent(10, .reject("--confirm no")))))
        #expect(s.agentPrompt == nil)
        // Nothing to answer with, no terminal: rejected, and the command says why.
        let why = "Demo HRM asks for passkey and there is no terminal to ask on: give --passkey N"
        #expect(Self.asked(.passkey, id: 11, &s) == [.backend(.answerAgent(11, .reject(why))),
                                                     .output(.warning("pairing request rejected: \(why)"))])
        #expect(s.agentPrompt == nil)
    }

    @Test func headlessOnATerminalTheQuestionIsAskedThere() {
        var s = Fixture.scanning()
        s.job = JobState(job: .pair(address: Self.lock.rawValue))
        s.agent.terminal = true
        #expect(Self.asked(.passkey, &s) == [.output(.warning("Demo HRM asks for a passkey: type the six digits it shows, then Enter"))])
        #expect(Reducer.reduce(&s, .agentAnswerTyped("12")) == [.output(.warning("the passkey has six digits: type it again"))])
        #expect(Reducer.reduce(&s, .agentAnswerTyped(" 012345 ")) == [.backend(.answerAgent(7, .passkey(12345)))])
        _ = Self.asked(.confirmation(4_210), id: 8, &s)
        #expect(s.job != nil && s.agentPrompt?.request.kind == .confirmation(4_210))
        #expect(Reducer.reduce(&s, .agentAnswerTyped("maybe")) == [.output(.warning("y or n?"))])
        #expect(Reducer.reduce(&s, .agentAnswerTyped("no")) == [.backend(.answerAgent(8, .reject("refused by the user"))),
                                                                .output(.warning("pairing request rejected: refused by the user"))])
        // A shown passkey is printed, and answered at once.
        #expect(Self.asked(.displayPasskey(4_210, entered: 1), id: 9, &s)
                == [.output(.warning("type the passkey 004 210 on Demo HRM (1 of 6 digits entered)")), .backend(.answerAgent(9, .accept))])
        #expect(Fixture.apply(&s, .agentCancelled) == [.output(.warning("Pairing request from Demo HRM cancelled"))])
    }

    @Test func pairTrustBlockAreBackendCommandsOnTheDeviceUnderTheCursor() {
        var s = Fixture.scanning()
        s.scan.cursor = Self.lock
        #expect(Self.keys(&s, [.char("e")]) == [.backend(.pair(Self.lock))])
        #expect(s.pairing == Self.lock)
        #expect(Self.keys(&s, [.char("e")]) == [])   // one pairing at a time
        #expect(Self.keys(&s, [.char("t")]) == [.backend(.setTrusted(Self.lock, true))])
        #expect(Self.keys(&s, [.char("B")]) == [.backend(.setBlocked(Self.lock, true))])
        _ = Fixture.apply(&s, .pairCompleted(Self.lock, BackendError(name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed")))
        #expect(s.pairing == nil)
        #expect(s.lastError == "Pairing with Demo HRM failed: AuthenticationFailed: Authentication Failed")
        _ = Fixture.apply(&s, .bondChanged(Self.lock, Bond(paired: true, trusted: true, blocked: true, addressType: "random")))
        #expect(Self.keys(&s, [.char("t"), .char("B")]) == [.backend(.setTrusted(Self.lock, false)), .backend(.setBlocked(Self.lock, false))])
        #expect(Self.keys(&s, [.char("e")]) == [])   // paired already
        #expect(s.alert?.message == "Demo HRM is already paired")
    }

    /// The bond is what bluetoothd says: a Pair answered AuthenticationCanceled on a device
    /// bluetoothd says is paired (seen in the lab on BlueZ 5.82, a second pairing right after a
    /// refused one: the keys came) paired, whichever of the two comes first.
    @Test func aFailedPairOnADeviceBluetoothdSaysIsPairedPaired() {
        let canceled = BackendError(name: "org.bluez.Error.AuthenticationCanceled", message: "Authentication Canceled")
        let said = "Paired with Demo HRM (bluetoothd says it is paired; its Pair answered AuthenticationCanceled: Authentication Canceled)"
        var s = Fixture.scanning()
        s.scan.cursor = Self.lock
        _ = Self.keys(&s, [.char("e")])
        _ = Fixture.apply(&s, .bondChanged(Self.lock, Bond(paired: true, bonded: true)))
        _ = Fixture.apply(&s, .pairCompleted(Self.lock, canceled))
        #expect(s.pairing == nil && s.alert?.level == .info && s.alert?.message == said, "\(String(describing: s.alert))")
        // The Pair's answer first, then Paired.
        s = Fixture.scanning()
        s.scan.cursor = Self.lock
        _ = Self.keys(&s, [.char("e")])
        _ = Fixture.apply(&s, .pairCompleted(Self.lock, canceled))
        #expect(s.alert?.level == .error)
        _ = Fixture.apply(&s, .bondChanged(Self.lock, Bond(paired: true, bonded: true)))
        #expect(s.alert?.level == .info && s.alert?.message == said, "\(String(describing: s.alert))")
        // Headless `pair`: exit 0, and it says so.
        s = Fixture.scanning()
        s.job = JobState(job: .pair(address: Self.lock.rawValue))
        s.job?.target = Self.lock
        s.job?.phase = .working
        _ = Fixture.apply(&s, .bondChanged(Self.lock, Bond(paired: true, bonded: true)))
        let done = Fixture.apply(&s, .pairCompleted(Self.lock, canceled))
        #expect(done.contains(.output(.warning("paired with \(Self.lock)" + PairingReducer.pairedAnyway(canceled.description)))), "\(done)")
        #expect(done.contains(.finish(exitCode: 0)), "\(done)")
    }

    /// A peer refusing a passkey drops the link at once (Bumble, the lab's lock): the
    /// refusal stays on the message line, the disconnect added to it.
    @Test func aRefusedPairingStaysReadAfterThePeerDropsTheLink() {
        var s = Fixture.scanning()
        s.scan.cursor = Self.lock
        _ = Self.keys(&s, [.char("e")])
        _ = Fixture.apply(&s, .pairCompleted(Self.lock, BackendError(name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed")))
        _ = Fixture.apply(&s, .disconnected(Self.lock, .remote))
        #expect(s.alert?.level == .error)
        #expect(s.alert?.message == "Pairing with Demo HRM failed: AuthenticationFailed: Authentication Failed; then disconnected: remote device ended the connection")
        // Another disconnect later is just a disconnect.
        _ = Fixture.apply(&s, .disconnected(Self.lock, .remote))
        #expect(s.alert?.message == "Demo HRM disconnected: remote device ended the connection")
    }

    /// `e` on the list: Pair connects first, pairs, and leaves the link up, its services not
    /// resolved yet.
    static func pairedByE() -> AppState {
        var s = Fixture.scanning()
        s.scan.cursor = Self.lock
        _ = Self.keys(&s, [.char("e")])
        _ = Fixture.apply(&s, .connected(Self.lock), after: 0.1)
        _ = Fixture.apply(&s, .pairCompleted(Self.lock, nil), after: 1)
        return s
    }

    /// Pair connects first and leaves the link up; BlueZ 5.82 says Paired before the
    /// services are resolved (seen in the lab). Enter on the row then waits for them, and
    /// the device screen opens by itself when they come, as for a link Enter opened.
    @Test func enterOnALinkThatPairingOpenedOpensItsScreenOnceReady() {
        var s = Self.pairedByE()
        #expect(s.peripherals[Self.lock]?.connection == .resolvingServices)
        #expect(Self.keys(&s, [.enter]) == [])   // no second connect: the link is up
        #expect(s.route == .scan)
        #expect(s.alert?.message == "Demo HRM is resolving services…")
        _ = Fixture.apply(&s, .servicesResolved(Self.lock, Fixture.hrmServices, mtu: 23), after: 0.3)
        #expect(s.route == .device(Self.lock))
        #expect(s.alert?.message == "Connected to Demo HRM")
        #expect(s.links.order == [Self.lock])
    }

    /// Without Enter, a link that pairing opened does not take the screen over.
    @Test func aLinkThatPairingOpenedStaysBehindTheList() {
        var s = Self.pairedByE()
        _ = Fixture.apply(&s, .servicesResolved(Self.lock, Fixture.hrmServices, mtu: 23), after: 0.3)
        #expect(s.route == .scan)
        #expect(s.alert?.message == "Paired with Demo HRM")
        _ = Self.keys(&s, [.enter])
        #expect(s.route == .device(Self.lock))
    }

    @Test func forgetAsksFirst() {
        var s = Fixture.connectedHRM()
        #expect(Self.keys(&s, [.char("X")]) == [])
        #expect(s.forgetAsked == Self.lock)
        #expect(Self.keys(&s, [.char("q")]) == [])   // any other key keeps it (and does not quit)
        #expect(s.forgetAsked == nil && !s.quitting)
        _ = Self.keys(&s, [.char("X")])
        #expect(Self.keys(&s, [.char("y")]) == [.backend(.forget(Self.lock))])
        #expect(s.route == .scan)
        // bluetoothd drops the link of a device it removes: what was asked stays said.
        _ = Fixture.apply(&s, .disconnected(Self.lock, .local))
        #expect(s.alert?.message == "Forgetting Demo HRM (unpaired and removed); disconnected")
    }

    @Test func agentOptionsParse() {
        var a = AgentSettings()
        #expect(a.capability == .keyboardDisplay)
        #expect((try? a.apply("--agent", "display-yes-no").get()) != nil)
        #expect(a.capability?.bluezName == "DisplayYesNo")
        #expect((try? a.apply("--agent", "off").get()) != nil && a.capability == nil)
        #expect((try? a.apply("--passkey", "012345").get()) != nil && a.passkey == 12345)
        #expect((try? a.apply("--confirm", "no").get()) != nil && a.confirm == false)
        guard case let .failure(e) = a.apply("--passkey", "1234567") else { Issue.record("took 7 digits"); return }
        #expect(e.message.hasPrefix("--passkey takes up to six digits"))
        guard case .failure = a.apply("--agent", "keyboard\u{1B}[2J") else { Issue.record("took a bad capability"); return }
    }

    @Test func recordingsSayAPasskeyWasEnteredNeverWhich() {
        let asked = RecordingFormat.line(for: .backend(.agentRequested(AgentRequest(id: 1, device: Self.lock,
                                                                                    kind: .displayPasskey(246_810, entered: 2))), at: Fixture.t0),
                                         state: Fixture.scanning())!
        #expect(asked.contains(#""request":"display-passkey""#))
        #expect(!asked.contains("246810") && !asked.contains("246"))
        let answered = RecordingFormat.agentAnswerLine(.passkey(246_810), at: Fixture.t0)
        #expect(answered.contains(#""answer":"passkey-entered""#))
        #expect(!answered.contains("246810"))
        #expect(!RecordingFormat.agentAnswerLine(.pinCode("9876"), at: Fixture.t0).contains("9876"))
    }
}

@Suite("Pairing: the demo's Demo Lock")
struct DemoPairingTests {
    static let lock = PeripheralID("C4:7A:0E:51:3B:D9")

    @Test func theLockAsksForItsPasskeyAndPairsWithIt() {
        let w = SimulatedWorld(seed: 1)
        w.handle(.startScan, at: 0)
        #expect(w.advance(to: 2).contains { if case .bondChanged(Self.lock, let b) = $0.1 { b.addressType == "random" } else { false } })
        w.handle(.pair(Self.lock), at: 2)
        let asked = w.advance(to: 3).compactMap { e -> AgentRequest? in
            if case let .agentRequested(r) = e.1 { return r } else { return nil }
        }
        #expect(asked.map(\.kind) == [.passkey])
        w.handle(.answerAgent(asked[0].id, .passkey(DemoCatalog.lockPasskey)), at: 3)
        let done = w.advance(to: 4).map(\.1)
        #expect(done.contains(.pairCompleted(Self.lock, nil)))
        #expect(done.contains(.bondChanged(Self.lock, Bond(paired: true, bonded: true, addressType: "random"))))
    }

    @Test func aWrongPasskeyFailsAndARejectionIsRejected() {
        let w = SimulatedWorld(seed: 1)
        w.handle(.pair(Self.lock), at: 0)
        let first = w.advance(to: 1).map(\.1)
        #expect(first.contains(.connected(Self.lock)))   // Pair connects first
        var asked = first.compactMap { e -> AgentRequest? in if case let .agentRequested(r) = e { r } else { nil } }
        w.handle(.answerAgent(asked[0].id, .passkey(111_111)), at: 1)
        // The link stays up after the refusal, and its services are resolved.
        let refused = w.advance(to: 2).map(\.1)
        #expect(refused.first == .pairCompleted(Self.lock, BackendError(name: "org.bluez.Error.AuthenticationFailed",
                                                                        message: "Authentication Failed")))
        #expect(refused.dropFirst().allSatisfy { if case .servicesResolved(Self.lock, _, _) = $0 { true } else { false } })
        w.handle(.pair(Self.lock), at: 2)
        asked = w.advance(to: 3).compactMap { e -> AgentRequest? in if case let .agentRequested(r) = e.1 { r } else { nil } }
        w.handle(.answerAgent(asked[0].id, .reject("no")), at: 3)
        #expect(w.advance(to: 3).map(\.1).first == .pairCompleted(Self.lock, BackendError(name: "org.bluez.Error.AuthenticationRejected",
                                                                                          message: "Authentication Rejected")))
    }

    @Test func theWholeFlowThroughTheReducer() {
        // Headless pair with --passkey, on the demo world: exit 0.
        var s = AppState(now: Fixture.t0)
        s.job = JobState(job: .pair(address: Self.lock.rawValue))
        s.agent = AgentSettings(passkey: DemoCatalog.lockPasskey)
        let w = SimulatedWorld(seed: 1)
        var pending = Reducer.reduce(&s, .appStarted(recordTo: nil))
        var t = 0.0
        var finished: Int32?
        while t < 10, finished == nil {
            for e in pending {
                if case let .backend(c) = e { w.handle(c, at: t) }
                if case let .finish(code) = e { finished = code }
            }
            pending = []
            t += 0.1
            for (at, e) in w.advance(to: t) { pending += Reducer.reduce(&s, .backend(e, at: Fixture.t0 + at)) }
        }
        #expect(finished == 0)
        #expect(s.peripherals[Self.lock]?.bond.paired == true)
    }
}

@Suite("The kind of an address")
struct AddressKindTests {
    @Test func publicOrRandomByItsTopTwoBits() {
        #expect(AddressKind(type: "public", address: "E4:1C:22:5D:90:11") == .public)
        #expect(AddressKind(type: "random", address: "C4:7A:0E:51:3B:D9") == .static)          // 11
        #expect(AddressKind(type: "random", address: "6B:2E:91:3C:4D:5E") == .resolvable)      // 01
        #expect(AddressKind(type: "random", address: "1A:2E:91:3C:4D:5E") == .nonResolvable)   // 00
        #expect(AddressKind(type: "random", address: "8A:2E:91:3C:4D:5E") == .random)          // 10: reserved
        #expect(AddressKind(type: "random", address: "") == .random)
        #expect(AddressKind(type: nil, address: "C4:7A:0E:51:3B:D9") == nil)
        #expect(AddressKind(type: "bogus", address: "C4:7A:0E:51:3B:D9") == nil)
        #expect(AddressKind.resolvable.text == "random resolvable" && AddressKind.resolvable.short == "RPA")
        #expect(AddressKind.nonResolvable.text == "random non-resolvable" && AddressKind.nonResolvable.short == "NRPA")
        #expect(AddressKind.public.text == "public" && AddressKind.static.short == "static")
    }

    @Test func pairedAndBondedAreBothSaid() {
        #expect(Bond(paired: true, bonded: true).summary == "paired·bonded")
        #expect(Bond(paired: true).summary == "paired")   // no keys kept: the next link pairs again
        #expect(Bond(bonded: true, trusted: true).summary == "bonded·trusted")
        #expect(Bond().summary == "")
    }
}

@Suite("Pairing: the method comes from both sides' capabilities (the demo's Demo Keypad and Demo Lock)")
struct DemoPairingMethodTests {
    static let keypad = PeripheralID("D2:5A:17:C4:80:6E")
    static let lock = PeripheralID("C4:7A:0E:51:3B:D9")

    static func requests(_ events: [(Double, BackendEvent)]) -> [AgentRequest] {
        events.compactMap { if case let .agentRequested(r) = $0.1 { r } else { nil } }
    }

    @Test func theLESecureConnectionsTable() {
        let keypad = SimPairing.keyboardDisplay(number: 1, passkey: 2)
        #expect(keypad.method(with: .keyboardDisplay) == .confirm(1))
        #expect(keypad.method(with: .displayYesNo) == .confirm(1))
        #expect(keypad.method(with: .displayOnly) == .display(2))
        #expect(keypad.method(with: .keyboardOnly) == .enter(2))
        #expect(keypad.method(with: .noInputNoOutput) == .justWorks)
        let lock = SimPairing.showsPasskey(3)
        #expect(lock.method(with: .keyboardDisplay) == .enter(3) && lock.method(with: .keyboardOnly) == .enter(3))
        #expect(lock.method(with: .displayYesNo) == .justWorks && lock.method(with: .displayOnly) == .justWorks)
        #expect(SimPairing.justWorks.method(with: .keyboardDisplay) == .justWorks)
    }

    @Test func theKeypadComparesANumber_yesPairsNoFails() {
        for yes in [true, false] {
            let w = SimulatedWorld(seed: 1)
            w.handle(.pair(Self.keypad), at: 0)
            let asked = Self.requests(w.advance(to: 1))
            #expect(asked.map(\.kind) == [.confirmation(DemoCatalog.keypadNumber)])
            w.handle(.answerAgent(asked[0].id, yes ? .accept : .reject("no")), at: 1)
            let done = w.advance(to: 2).map(\.1)
            #expect(done.contains(.pairCompleted(Self.keypad, yes ? nil
                : BackendError(name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed"))))
        }
    }

    @Test func withADisplayOnlyAgentWeShowThePasskeyAndTheKeypadTypesIt() {
        let w = SimulatedWorld(seed: 1)
        w.agentCapability = .displayOnly
        w.handle(.pair(Self.keypad), at: 0)
        let shown = Self.requests(w.advance(to: 5.5))
        #expect(shown.map(\.kind) == (0...6).map { .displayPasskey(DemoCatalog.keypadPasskey, entered: $0) })
        #expect(Set(shown.map(\.id)).count == 7)
        // Answering a display request changes nothing: it pairs once the digits are typed.
        w.handle(.answerAgent(shown[0].id, .accept), at: 5.5)
        #expect(w.advance(to: 6).map(\.1).contains(.pairCompleted(Self.keypad, nil)))
    }

    @Test func withAKeyboardOnlyAgentTheKeypadShowsAPasskeyToType_andTheLockJustWorksWithDisplayYesNo() {
        let w = SimulatedWorld(seed: 1)
        w.agentCapability = .keyboardOnly
        w.handle(.pair(Self.keypad), at: 0)
        let asked = Self.requests(w.advance(to: 1))
        #expect(asked.map(\.kind) == [.passkey])
        w.handle(.answerAgent(asked[0].id, .passkey(DemoCatalog.keypadPasskey)), at: 1)
        #expect(w.advance(to: 2).map(\.1).contains(.pairCompleted(Self.keypad, nil)))

        let v = SimulatedWorld(seed: 1)
        v.agentCapability = .displayYesNo
        v.handle(.pair(Self.lock), at: 0)
        let events = v.advance(to: 1)
        #expect(Self.requests(events).isEmpty)
        #expect(events.map(\.1).contains(.pairCompleted(Self.lock, nil)))
    }
}
