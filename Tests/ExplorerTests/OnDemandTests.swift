import Testing
@testable import Explorer

@Suite("Encryption on demand: a refused operation pairs, then is sent again, once")
struct OnDemandTests {
    static let id = Fixture.hrm
    static let cid = Fixture.bslChar
    static let notPaired = BackendError.notPermitted("Not paired")

    /// The HRM's Body Sensor Location screen open.
    static func open() -> AppState {
        var s = Fixture.connectedHRM()
        s.route = .characteristic(id, cid)
        return s
    }

    @Test func whatCountsAsARefusalForWantOfEncryption() {
        // BlueZ 5.66 and 5.82: ATT 0x05, 0x0f and 0x0c become NotPermitted "Not paired".
        #expect(Self.notPaired.needsPairing)
        #expect(BackendError.failed("Operation failed with ATT error: 0x05").needsPairing)
        #expect(BackendError.failed("Operation failed with ATT error: 0x0f").needsPairing)
        #expect(BackendError.failed("Operation failed with ATT error: 0x0c").needsPairing)
        #expect(!BackendError.notPermitted("Read not permitted").needsPairing)
        #expect(!BackendError.failed("Operation failed with ATT error: 0x80").needsPairing)
        #expect(!BackendError.failed("Operation failed with ATT error: 0x0e").needsPairing)
        #expect(!BackendError(name: "org.freedesktop.DBus.Error.NoReply", message: "Did not receive a reply").needsPairing)
        #expect(!BackendError(name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed").needsPairing)
    }

    @Test func aReadRefusedPairsAndIsReadAgainOncePaired() {
        var s = Self.open()
        #expect(Reducer.reduce(&s, .readRequested) == [.backend(.read(Self.id, Self.cid, offset: 0))])
        #expect(s.operations[Self.cid] == GATTOperation(device: Self.id, kind: .read(offset: 0)))
        #expect(Fixture.apply(&s, .readCompleted(Self.cid, .failure(Self.notPaired))) == [.backend(.pair(Self.id))])
        #expect(s.pairing == Self.id)
        #expect(s.alert?.message == "Body Sensor Location needs encryption: pairing with Demo HRM…")
        #expect(s.lastError == nil)
        #expect(s.values[Self.cid] == nil)   // not a failure: under way
        // Paired: the same read again.
        Fixture.apply(&s, .bondChanged(Self.id, Bond(paired: true, bonded: true)))
        #expect(Fixture.apply(&s, .pairCompleted(Self.id, nil)) == [.backend(.read(Self.id, Self.cid, offset: 0))])
        #expect(s.pairing == nil)
        #expect(s.alert?.message == "Paired with Demo HRM: read of Body Sensor Location sent again")
        #expect(s.operations[Self.cid]?.retried == true)
        Fixture.apply(&s, .readCompleted(Self.cid, .success([0x01])))
        #expect(s.values[Self.cid]?.latest?.bytes == [0x01])
        #expect(s.operations[Self.cid] == nil)
    }

    @Test func onlyOnceARefusalAfterPairingIsFinal() {
        var s = Self.open()
        _ = Reducer.reduce(&s, .readRequested)
        _ = Fixture.apply(&s, .readCompleted(Self.cid, .failure(Self.notPaired)))
        _ = Fixture.apply(&s, .pairCompleted(Self.id, nil))
        // Refused again (a device that wants an authenticated bond): no second pairing.
        #expect(Fixture.apply(&s, .readCompleted(Self.cid, .failure(Self.notPaired))) == [])
        #expect(s.lastError == "Read Body Sensor Location failed: NotPermitted: Not paired (paired, and still refused: "
                + "the device wants a stronger bond; forget it and pair with a passkey)")
        #expect(s.operations[Self.cid] == nil)
        #expect(s.pairing == nil)
    }

    @Test func aPairingThatFailsEndsTheOperationWithPairingsOwnError() {
        for name in ["AuthenticationFailed", "AuthenticationRejected", "AuthenticationCanceled", "AuthenticationTimeout",
                     "ConnectionAttemptFailed"] {
            var s = Self.open()
            _ = Reducer.reduce(&s, .readRequested)
            _ = Fixture.apply(&s, .readCompleted(Self.cid, .failure(Self.notPaired)))
            let error = BackendError(name: "org.bluez.Error." + name, message: "Some Words")
            #expect(Fixture.apply(&s, .pairCompleted(Self.id, error)) == [])
            #expect(s.lastError == "Read Body Sensor Location failed: pairing with Demo HRM failed: \(name): Some Words")
            #expect(s.values[Self.cid]?.history.last?.error == "\(name): Some Words")
            #expect(s.operations.isEmpty)
        }
    }

    @Test func alreadyPairedOrOtherRefusalsDoNotPair() {
        var s = Self.open()
        Fixture.apply(&s, .bondChanged(Self.id, Bond(paired: true)))
        _ = Reducer.reduce(&s, .readRequested)
        #expect(Fixture.apply(&s, .readCompleted(Self.cid, .failure(Self.notPaired))) == [])
        #expect(s.lastError?.hasSuffix("forget it and pair with a passkey)") == true)
        var t = Self.open()
        _ = Reducer.reduce(&t, .readRequested)
        #expect(Fixture.apply(&t, .readCompleted(Self.cid, .failure(.notPermitted("Read not permitted")))) == [])
        #expect(t.lastError == "Read Body Sensor Location failed: NotPermitted: Read not permitted")
        #expect(t.pairing == nil)
    }

    @Test func writesAndSubscriptionsToo_twoRefusalsShareOnePairing() {
        var s = Self.open()
        let hrmChar = Fixture.hrmChar
        OnDemand.track(&s, [.backend(.write(Self.id, Self.cid, [0x02], .request)), .backend(.setNotify(Self.id, hrmChar, true))])
        #expect(Fixture.apply(&s, .writeCompleted(Self.cid, [0x02], .request, Self.notPaired)) == [.backend(.pair(Self.id))])
        #expect(Fixture.apply(&s, .notifyChanged(hrmChar, enabled: true, Self.notPaired)) == [])   // joins the pairing
        #expect(s.subscriptions.isEmpty)
        let again = Fixture.apply(&s, .pairCompleted(Self.id, nil))
        #expect(again.count == 2)
        #expect(again.contains(.backend(.write(Self.id, Self.cid, [0x02], .request))))
        #expect(again.contains(.backend(.setNotify(Self.id, hrmChar, true))))
        Fixture.apply(&s, .notifyChanged(hrmChar, enabled: true, nil))
        #expect(s.subscriptions == [hrmChar])
    }

    @Test func aLinkThatDropsWhilePairingForgetsTheOperation() {
        var s = Self.open()
        _ = Reducer.reduce(&s, .readRequested)
        _ = Fixture.apply(&s, .readCompleted(Self.cid, .failure(Self.notPaired)))
        Fixture.apply(&s, .disconnected(Self.id, .remote))
        #expect(s.operations.isEmpty)
        #expect(Fixture.apply(&s, .pairCompleted(Self.id, .failed("Not connected"))) == [])
    }
}

@Suite("Encryption on demand: bluetoothd pairs for a command's operation by itself")
struct CommandPairingTests {
    /// `read` of the HRM's 2A38, under way.
    static func reading(_ agent: AgentSettings) -> AppState {
        var s = Fixture.connectedHRM()
        var job = JobState(job: .read(address: Fixture.hrm.rawValue, uuid: "2A38", offset: 0))
        job.phase = .working
        job.target = Fixture.hrm
        job.characteristic = Fixture.bslChar
        s.job = job
        s.agent = agent
        OnDemand.track(&s, [.backend(.read(Fixture.hrm, Fixture.bslChar, offset: 0))])
        return s
    }

    static let asked = BackendEvent.agentRequested(AgentRequest(id: 3, device: Fixture.hrm, kind: .authorization))

    @Test func anAnsweredRequestGivesThePersonTime() {
        var s = Self.reading(AgentSettings(confirm: true))
        let effects = Fixture.apply(&s, Self.asked)
        #expect(effects == [.backend(.answerAgent(3, .accept)), .startTimer(.operation, after: JobReducer.pairTimeout)])
    }

    @Test func aRefusedRequestEndsTheCommandAtOnceSayingWhy() {
        // bluetoothd 5.66 never answers the read after a refused pairing: the command does not wait for NoReply.
        var s = Self.reading(AgentSettings())
        let effects = Fixture.apply(&s, Self.asked)
        let why = "Demo HRM asks for authorization and there is no terminal to ask on: give --confirm yes|no"
        #expect(effects.contains(.backend(.answerAgent(3, .reject(why)))))
        #expect(effects.contains(.output(.failure("read failed: bluetoothd asked to pair for it, and the request was rejected: \(why)"))))
        #expect(effects.contains(.finish(exitCode: 1)) || s.job?.phase == .leaving(exitCode: 1))
    }
}

@Suite("Encryption on demand: the demo's Demo Lock, headless")
struct DemoOnDemandTests {
    static let lock = PeripheralID("C4:7A:0E:51:3B:D9")

    /// Runs `job` on the demo world through the reducer, as the binary does, to its end.
    static func run(_ job: Job, _ agent: AgentSettings) -> (code: Int32?, out: [CommandOutput], world: SimulatedWorld) {
        var s = AppState(now: Fixture.t0)
        s.job = JobState(job: job)
        s.agent = agent
        let w = SimulatedWorld(seed: 1)
        var pending = Reducer.reduce(&s, .appStarted(recordTo: nil))
        var out: [CommandOutput] = []
        var timers: [JobTimer: Double] = [:]
        var t = 0.0
        var finished: Int32?
        while t < 120, finished == nil {
            for e in pending {
                switch e {
                case let .backend(c): w.handle(c, at: t)
                case let .finish(code): finished = code
                case let .output(o): out.append(o)
                case let .startTimer(timer, after): timers[timer] = t + after
                case let .cancelTimer(timer): timers[timer] = nil
                default: break
                }
            }
            pending = []
            t += 0.1
            for (at, e) in w.advance(to: t) { pending += Reducer.reduce(&s, .backend(e, at: Fixture.t0 + at)) }
            for (timer, at) in timers where at <= t {
                timers[timer] = nil
                pending += Reducer.reduce(&s, .jobTimerFired(timer))
            }
        }
        return (finished, out, w)
    }

    static func warnings(_ out: [CommandOutput]) -> [String] {
        out.compactMap { if case let .warning(w) = $0 { w } else { nil } }
    }

    @Test func aReadOfTheBoltPairsWithThePasskeyThenReads() {
        let r = Self.run(.read(address: Self.lock.rawValue, uuid: "2A56", offset: 0), AgentSettings(passkey: DemoCatalog.lockPasskey))
        #expect(r.code == 0)
        #expect(Self.warnings(r.out).contains("C4:7A:0E:51:3B:D9 refused the read for want of encryption: pairing…"))
        #expect(Self.warnings(r.out).contains("paired with C4:7A:0E:51:3B:D9; sent again"))
        #expect(r.out.contains { if case let .value(v) = $0 { v.bytes == [0x00] } else { false } })
    }

    @Test func aWrongPasskeyIsTheReadsExactFailure() {
        let r = Self.run(.read(address: Self.lock.rawValue, uuid: "2A56", offset: 0), AgentSettings(passkey: 111_111))
        #expect(r.code == 1)
        #expect(r.out.contains(.failure("pairing with C4:7A:0E:51:3B:D9 failed: AuthenticationFailed: Authentication Failed")))
    }

    @Test func withoutAnAnswerAndNoTerminalTheRequestIsRejected() {
        let r = Self.run(.write(address: Self.lock.rawValue, uuid: "2A56", value: [0x01], type: .request), AgentSettings())
        #expect(r.code == 1)
        #expect(r.out.contains(.failure("pairing with C4:7A:0E:51:3B:D9 failed: AuthenticationRejected: Authentication Rejected")))
    }

    @Test func aWriteWithThePasskeyIsWritten() {
        let r = Self.run(.write(address: Self.lock.rawValue, uuid: "2A56", value: [0x01], type: .request),
                         AgentSettings(passkey: DemoCatalog.lockPasskey))
        #expect(r.code == 0)
        #expect(r.out.contains { if case let .wrote(w) = $0 { w.bytes == [0x01] } else { false } })
    }
}
