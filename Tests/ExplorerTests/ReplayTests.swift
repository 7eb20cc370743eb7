import Testing
@testable import Explorer

/// What a session shows, without the times (a recording keeps milliseconds).
struct WorldSnapshot: Equatable {
    struct Device: Equatable {
        var name: String?, rssi: Int?, connectable: Bool, advertisement: Advertisement
        var connection: ConnectionState, services: [GATTService]?, mtu: Int?
    }
    var adapter: AdapterStatus
    var devices: [PeripheralID: Device]
    var values: [CharacteristicID: [Bytes]]
    var subscriptions: Set<CharacteristicID>
    var descriptors: [AttributeID: Bytes]

    init(_ s: AppState) {
        adapter = s.adapter
        devices = s.peripherals.mapValues {
            Device(name: $0.name, rssi: $0.rssi, connectable: $0.connectable, advertisement: $0.advertisement,
                   connection: $0.connection, services: $0.services, mtu: $0.mtu)
        }
        values = s.values.mapValues { $0.history.map(\.bytes) }
        subscriptions = s.subscriptions
        descriptors = s.descriptorValues
    }
}

@MainActor
@Suite("Replay")
struct ReplayTests {
    static let hrm = PeripheralID("E4:1C:22:5D:90:11")

    /// A demo session as the app records it: scan, connect to the HRM, read its body sensor
    /// location, subscribe to its measurements. Returns the file's text and the final state.
    static func recordDemoSession(until end: Double = 12) -> (text: String, state: AppState) {
        let w = SimulatedWorld(seed: 3)
        var s = AppState(now: Fixture.t0)
        var lines = [RecordingFormat.headerLine(.init(started: Fixture.t0, backend: "simulated", adapter: "sim0", seed: 3))]
        func send(_ a: Action, at t: Double) {
            let effects = Reducer.reduce(&s, a)
            if let line = RecordingFormat.line(for: a, state: s) { lines.append(line) }
            for e in effects { if case let .backend(c) = e { w.handle(c, at: t) } }
        }
        func run(to t: Double) { for (at, e) in w.advance(to: t) { send(.backend(e, at: Fixture.t0 + at), at: at) } }
        w.handle(.startScan, at: 0)
        run(to: 3)
        s.scan.cursor = hrm
        send(.rowActivated, at: 3)
        run(to: 6)
        let chars = s.peripherals[hrm]?.services?.flatMap(\.characteristics) ?? []
        if let bsl = chars.first(where: { $0.uuid == "2A38" }) { w.handle(.read(hrm, bsl.id), at: 6) }
        if let hr = chars.first(where: { $0.uuid == "2A37" }) { w.handle(.setNotify(hrm, hr.id, true), at: 6) }
        run(to: end)
        return (lines.joined(separator: "\n") + "\n", s)
    }

    /// Plays a recording to its end as fast as possible into a store.
    static func replay(_ r: Recording) -> (Store, ReplayBackend, EventLoop) {
        let loop = EventLoop()
        let backend = ReplayBackend(recording: r, speed: .max)
        var initial = AppState(now: r.start)
        initial.scanWanted = false
        initial.replay = backend.status
        let store = Store(state: initial)
        store.effectHandler = { if case let .backend(c) = $0 { backend.execute(c) } }
        backend.onStatus = { store.send(.replayChanged($0)) }
        backend.onRewind = { store.send(.replayRewound($0)) }
        backend.start(loop: loop) { e, at in store.send(.backend(e, at: at)) }
        loop.run(until: { backend.finished }, timeout: 10)
        return (store, backend, loop)
    }

    @Test func aRecordedSessionReplaysToTheSameWorld() throws {
        let (text, original) = Self.recordDemoSession()
        let recording = try Recording.parse(text)
        #expect(recording.skipped == 0)
        #expect(recording.backend == "simulated" && recording.adapter == "sim0")
        let (store, backend, _) = Self.replay(recording)
        #expect(backend.finished)
        let hrm = try #require(store.state.peripherals[Self.hrm])
        #expect(hrm.connection == .connected)
        #expect(hrm.services?.isEmpty == false)
        #expect(store.state.subscriptions.count == 1)
        #expect(store.state.values.values.contains { $0.history.contains { $0.origin == .notify } })
        #expect(store.state.values.values.contains { $0.history.contains { $0.origin == .read } })
        #expect(WorldSnapshot(store.state) == WorldSnapshot(original))
        #expect(store.state.replay?.finished == true)
    }

    @Test func seekingBackRebuildsFromTheStart() throws {
        let (text, _) = Self.recordDemoSession()
        let recording = try Recording.parse(text)
        let (store, backend, _) = Self.replay(recording)
        backend.control(.speedCycled)   // max → 1x: nothing plays on by itself within this test
        #expect(backend.speed == .one)
        let target = recording.start + 4
        backend.seek(to: target)
        // The same as a fresh replay of the events up to the target.
        var fresh = AppState(now: recording.start)
        for (at, e) in recording.events where at <= target { _ = Reducer.reduce(&fresh, .backend(e, at: at)) }
        #expect(WorldSnapshot(store.state) == WorldSnapshot(fresh))
        #expect(fresh.peripherals.count > 3)
        #expect(abs((store.state.replay?.position ?? Timestamp(0)) - target) < 0.5)
        #expect(store.state.replay?.finished == false)
        backend.control(.pauseToggled)
        #expect(store.state.replay?.paused == true)
        // Forward: everything up to the new position, here the end.
        backend.control(.seek(100))
        #expect(backend.finished)
        #expect(store.state.peripherals[Self.hrm]?.connection == .connected)
    }

    @Test func commandsAreAnsweredReadOnly() throws {
        let (text, _) = Self.recordDemoSession(until: 7)
        let (store, backend, _) = Self.replay(try Recording.parse(text))
        let hrmChar = try #require(store.state.peripherals[Self.hrm]?.services?.first?.characteristics.first)
        final class Box { var events: [BackendEvent] = [] }
        let box = Box()
        backend.start(loop: EventLoop()) { e, _ in box.events.append(e) }
        backend.execute(.read(Self.hrm, hrmChar.id))
        backend.execute(.connect(Self.hrm))
        backend.execute(.readDescriptor(Self.hrm, AttributeID("/x")))
        let events = box.events
        #expect(events.count == 3)
        guard case let .readCompleted(_, .failure(e)) = events.first else { Issue.record("no read failure"); return }
        #expect(e.name == "org.bluez.Error.NotSupported" && e.message.hasPrefix("replay: read-only"))
        guard case .connectFailed(Self.hrm, _) = events[1] else { Issue.record("no connect failure"); return }
        // A descriptor read is answered too, so a peripheral of an older recording (with no
        // recorded answers) still becomes ready; a recorded answer that follows sets the value.
        guard case .descriptorRead(AttributeID("/x"), .failure) = events.last else { Issue.record("no descriptor answer"); return }
    }

    @Test func badLinesAreSkippedAndCounted() throws {
        let (text, _) = Self.recordDemoSession(until: 2)
        var lines = text.split(separator: "\n").map(String.init)
        lines.insert("{not json", at: 2)
        lines.insert(#"{"t":"2026-05-28T20:26:40.000Z","type":"notification","path":"/x","hex":"zz"}"#, at: 3)
        lines.insert(#"{"t":"yesterday","type":"adapter","adapter":"hci0","power":"on"}"#, at: 4)
        lines.insert(#"{"t":"2026-05-28T20:26:40.000Z","type":"command","message":"ran","problem":false}"#, at: 5)
        lines.insert(String(repeating: "[", count: 10_000), at: 6)
        lines.append(#"{"t":"2026-05-28T20:26:4"#)   // cut by a crash
        let r = try Recording.parse(lines.joined(separator: "\n"))
        #expect(r.skipped == 5)
        #expect(r.other == 1)
        #expect(r.events.count == lines.count - 7)
        #expect(ReplayStatus(start: r.start, end: r.end, position: r.start, speed: .one, paused: false, finished: false,
                             skipped: r.skipped).summary.hasSuffix("(5 bad lines skipped)"))
    }

    @Test func aFileThatIsNotARecordingIsAClearError() {
        for text in ["", "hello\n", #"{"type":"notification"}"#, "\u{0}\u{1}\u{2}", #"{"type":"header","format":99}"#] {
            #expect(throws: Recording.ReadError.self) { try Recording.parse(text, name: "x.jsonl") }
        }
        #expect(throws: Recording.ReadError(description: "x.jsonl was recorded in format 99; this bleexplr reads format 1")) {
            try Recording.parse(#"{"type":"header","format":99}"#, name: "x.jsonl")
        }
        #expect(throws: Recording.ReadError.self) { try Recording.load(path: "/nonexistent/rec.jsonl") }
    }

    @Test func timestampsReadBackAsWritten() {
        for t in [Fixture.t0, Fixture.t0 + 1.5, Fixture.t0 + 0.001, Timestamp(0), Timestamp(951_782_400.25)] {
            #expect(Timestamp(iso8601: t.iso8601) == t)
        }
        #expect(Timestamp(iso8601: "2026-13-01T00:00:00Z") == nil)
        #expect(Timestamp(iso8601: "2026-01-01T00:00:00+01:00") == nil)
        #expect(Timestamp(iso8601: "2026-01-01T00:00:00Z")?.seconds == 1_767_225_600)
    }

    @Test func replayKeysOnlyInAReplay() {
        var s = Fixture.scanning()
        #expect(Keymap.action(for: .char("p"), in: s) == nil)
        s.replay = ReplayStatus(start: Fixture.t0, end: Fixture.t0 + 75, position: Fixture.t0 + 12, speed: .ten,
                                paused: false, finished: false, skipped: 0)
        #expect(Keymap.action(for: .char("p"), in: s) == .replayControlled(.pauseToggled))
        #expect(Keymap.action(for: .char("x"), in: s) == .replayControlled(.speedCycled))
        #expect(Keymap.action(for: .char("["), in: s) == .replayControlled(.seek(-10)))
        #expect(Reducer.reduce(&s, .replayControlled(.seek(60))) == [.replay(.seek(60))])
        #expect(s.replay?.summary == "replay ▶ 10x 0:12/1:15")
    }
}
