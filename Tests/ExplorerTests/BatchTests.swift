import Foundation
import Testing
@testable import Explorer

/// A batch of reports (`.advertisementsReceived`, what the BlueZ backend sends for a run
/// of signals) must be exactly its reports one by one: the same state, the same effects in
/// the same order, the same recording lines.
@MainActor
@Suite("Advertisement batches")
struct BatchTests {
    static let porch: BLEUUID = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"

    static func iBeacon(rssi: Int, minor: UInt8) -> AdvertisementReport {
        let uuid: Bytes = [0xB9, 0x40, 0x7F, 0x30, 0xF5, 0xF8, 0x46, 0x6E, 0xAF, 0xF9, 0x25, 0x55, 0x6B, 0x57, 0xFE, 0x6D]
        return report(Fixture.beacon, rssi, [0x004C: [0x02, 0x15] + uuid + [0, 7, 0, minor, 0xC5]])
    }

    /// What the BlueZ backend reports for an advertising signal: RSSI and manufacturer data.
    static func report(_ id: PeripheralID, _ rssi: Int?, _ data: ManufacturerData) -> AdvertisementReport {
        AdvertisementReport(id: id, address: id.rawValue, name: nil, rssi: rssi, connectable: nil,
                            advertisement: Advertisement(manufacturerData: data))
    }

    /// New devices, repeated ones, reports without RSSI or data, data that changes length
    /// or keeps it, and an iBeacon that brings a region in (an effect) mid-run.
    static let reports: [AdvertisementReport] = [
        report(Fixture.hrm, -61, [0x0059: [1, 2]]),
        report(Fixture.itag, -80, [0x0001: [9]]),
        report(Fixture.hrm, nil, [0x0059: [3, 4, 5]]),
        iBeacon(rssi: -90, minor: 1),
        iBeacon(rssi: -60, minor: 1),
        report(Fixture.hrm, -55, [0x0059: [6]]),
        report(Fixture.itag, -81, [0x0002: [8]]),
        report(Fixture.itag, nil, [:]),
        iBeacon(rssi: -58, minor: 1),
        report(Fixture.hrm, -54, [0x0059: [7]]),
    ]

    static func initial() -> AppState {
        var s = AppState(now: Fixture.t0)
        s.adapter = AdapterStatus(name: "hci0", power: .on, discovering: true)
        s.regionWatch = RegionWatch(regions: [Region(name: "Porch", uuid: porch, major: 7)], config: RegionConfig())
        // A named device already listed: updates leave its name and services alone.
        _ = Reducer.reduce(&s, .backend(.advertisementReceived(AdvertisementReport(
            id: Fixture.hrm, address: Fixture.hrm.rawValue, name: "HRM", rssi: -70, connectable: true,
            advertisement: Advertisement(serviceUUIDs: ["180D"], manufacturerData: [0x0059: [0]]))), at: Fixture.t0))
        return s
    }

    @Test func aBatchReducesToTheSameStateAndEffectsAsItsReports() {
        let at = Fixture.t0 + 2.5
        var one = Self.initial(), batched = Self.initial()
        var singleEffects: [Effect] = []
        for r in Self.reports { singleEffects += Reducer.reduce(&one, .backend(.advertisementReceived(r), at: at)) }
        let batchEffects = Reducer.reduce(&batched, .backend(.advertisementsReceived(Self.reports), at: at))
        #expect(batched == one)
        #expect(batchEffects == singleEffects)
        #expect(singleEffects.count == 1)   // the porch entered once, mid-run
        #expect(one.peripherals[Fixture.hrm]?.rssiHistory.samples == [-70, -61, -55, -54])
        #expect(one.peripherals[Fixture.hrm]?.advertisement.manufacturerData[0x0059] == [7])
        #expect(one.peripherals[Fixture.hrm]?.name == "HRM")
        #expect(one.peripherals[Fixture.itag]?.advertisement.manufacturerData == [0x0001: [9], 0x0002: [8]])
    }

    /// Through a store, a batch is one action: observers see it once, its reports are
    /// reduced one by one, and the effects they caused run after the whole batch (what
    /// those send is handled next). The state is the same as for the reports one by one.
    @Test func aStoreHandlesABatchAsOneAction() {
        func run(_ events: [BackendEvent]) -> (AppState, [Effect], [Action], [Int?]) {
            let store = Store(state: Self.initial())
            var effects: [Effect] = [], seen: [Action] = [], rssiAtEffect: [Int?] = []
            store.effectHandler = { e in
                effects.append(e)
                rssiAtEffect.append(store.state.peripherals[Fixture.hrm]?.rssi)
                store.send(.tick(Fixture.t0 + 1))   // an action sent by an effect
            }
            store.observers.append { a, _ in seen.append(a) }
            for e in events { store.send(.backend(e, at: Fixture.t0 + 1)) }
            return (store.state, effects, seen, rssiAtEffect)
        }
        let singles = run(Self.reports.map { .advertisementReceived($0) })
        let batch = BackendEvent.advertisementsReceived(Self.reports)
        let batched = run([batch])
        #expect(batched.0 == singles.0)
        #expect(batched.1 == singles.1)
        #expect(singles.1.count == 1)
        #expect(batched.2 == [.backend(batch, at: Fixture.t0 + 1), .tick(Fixture.t0 + 1)])
        #expect(singles.3 == [-61])   // one by one: the HRM's report after the porch's is not reduced yet
        #expect(batched.3 == [-54])   // as a batch: all of it is
    }

    /// Notifications read together record the lines their values would one by one, each at
    /// its own time (their characteristic is named once for the batch).
    @Test func notificationsReadTogetherRecordTheLinesOfTheirValues() {
        let s = Fixture.connectedHRM()
        let values = [NotifiedValue([0x06, 0x48], at: Fixture.t0 + 1), NotifiedValue([0x06, 0x49], at: Fixture.t0 + 1.5)]
        let batched = RecordingFormat.lines(for: .backend(.valuesNotified(Fixture.hrmChar, values), at: Fixture.t0 + 1.5), state: s)
        var singles: [String] = []
        for v in values {
            singles += RecordingFormat.lines(for: .backend(.valueNotified(Fixture.hrmChar, v.bytes), at: v.at), state: s)
        }
        #expect(batched == singles)
        #expect(batched.count == 2)
        #expect(batched.first?.contains(#""name":"Heart Rate Measurement""#) == true, "\(batched)")
        #expect(batched.first?.contains(#""decoded":"72 bpm"#) == true, "\(batched)")
    }

    /// NotificationLines writes a notification's line without JSONLine: it is still the line
    /// JSONLine makes of the same fields, escapes and all.
    @Test func aNotificationLineIsWhatJSONLineMakesOfItsFields() throws {
        var s = Fixture.connectedHRM()
        let at = Fixture.t0 + 1.25
        var j = JSONLine()
        j.time("t", at); j.string("type", "notification"); j.string("address", Fixture.hrm.rawValue)
        j.string("uuid", "00002a37-0000-1000-8000-00805f9b34fb"); j.string("name", "Heart Rate Measurement")
        j.string("path", Fixture.hrmChar.path); j.hex("hex", [0x06, 0x48]); j.string("decoded", "72 bpm, contact")
        #expect(RecordingFormat.line(for: .backend(.valueNotified(Fixture.hrmChar, [0x06, 0x48]), at: at), state: s) == j.finish())

        // A path no device has (only the path is known), and a name whose decoding has quotes.
        let stray = CharacteristicID("/x/\"quoted\"\u{1B}[2J")
        var k = JSONLine()
        k.time("t", at); k.string("type", "notification"); k.string("path", stray.path); k.hex("hex", [])
        let strayLine = RecordingFormat.line(for: .backend(.valueNotified(stray, []), at: at), state: s)
        #expect(strayLine == k.finish())
        #expect(strayLine?.contains(#"\u001b"#) == true)

        let nameChar = GATTCharacteristic(id: CharacteristicID("/sim/dev_E4_1C_22_5D_90_11/service0001/char0002"), uuid: "2A00",
                                          properties: CharacteristicProperties(flags: ["notify", "read"]))
        _ = s.peripherals.update(Fixture.hrm) { $0.services?.append(GATTService(id: AttributeID("/sim/dev_E4_1C_22_5D_90_11/service0001"),
                                                                             uuid: "1800", characteristics: [nameChar])) }
        let bytes = Bytes("a\"b\\".utf8)
        var n = JSONLine()
        n.time("t", at); n.string("type", "notification"); n.string("address", Fixture.hrm.rawValue)
        n.string("uuid", nameChar.uuid.canonical); n.string("name", s.name(nameChar)); n.string("path", nameChar.id.path)
        n.hex("hex", bytes); n.string("decoded", s.decoded(nameChar, bytes))
        let nameLine = RecordingFormat.line(for: .backend(.valueNotified(nameChar.id, bytes), at: at), state: s)
        #expect(nameLine == n.finish())
        let parsed = try JSONSerialization.jsonObject(with: Data((nameLine ?? "").utf8)) as? [String: Any]
        #expect(parsed?["decoded"] as? String == s.decoded(nameChar, bytes))
        #expect(s.decoded(nameChar, bytes)?.contains("\"") == true)
    }

    /// A recorder keeps a batch's NotificationLines for the next batch; anything other than
    /// a notification (here the services resolved again: the same path is now another
    /// characteristic) lets them go, so no line carries a stale name or decoding.
    @Test func keptNotificationLinesGoWhenAnythingElseHappens() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bx-kept-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = Store(state: Fixture.connectedHRM())
        let r = try Recorder(path: path, header: .init(started: Fixture.t0, backend: "simulated", adapter: "sim0", seed: nil))
        store.recordingObserver = { action, state in r.record(action, state) }
        let at = Fixture.t0 + 2
        func batch(_ k: Double) -> Action {
            .backend(.valuesNotified(Fixture.hrmChar, [NotifiedValue([0x06, 0x48], at: at + k), NotifiedValue([0x06, 0x49], at: at + k + 0.5)]), at: at + k + 0.5)
        }
        var expected: [String] = []
        for k in [0.0, 1, 2] {
            store.send(batch(k))
            expected += RecordingFormat.lines(for: batch(k), state: store.state)
        }
        let renamed = [GATTService(id: AttributeID("/sim/dev_E4_1C_22_5D_90_11/service000b"), uuid: "1800", characteristics: [
            GATTCharacteristic(id: Fixture.hrmChar, uuid: "2A00", properties: [.notify])])]
        let resolved = Action.backend(.servicesResolved(Fixture.hrm, renamed, mtu: 247), at: at + 3)
        store.send(resolved)
        expected += RecordingFormat.lines(for: resolved, state: store.state)
        store.send(batch(4))
        expected += RecordingFormat.lines(for: batch(4), state: store.state)
        try r.flush()
        let written = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map(String.init)
        #expect(written == expected)
        #expect(written.count == 9)
        #expect(written.first?.contains(#""name":"Heart Rate Measurement""#) == true, "\(written)")
        #expect(written.first?.contains(#""decoded":"72 bpm"#) == true, "\(written)")
        #expect(written.last?.contains(#""name":"Device Name""#) == true, "\(written)")
        #expect(written.last?.contains("bpm") == false, "\(written)")
    }

    @Test func forEachFactExpandsOnlyBatches() {
        var facts: [BackendEvent] = []
        var times: [Timestamp] = []
        BackendEvent.advertisementsReceived(Self.reports).forEachFact(at: Fixture.t0) { facts.append($0); times.append($1) }
        #expect(facts == Self.reports.map { .advertisementReceived($0) })
        #expect(times == Self.reports.map { _ in Fixture.t0 })
        facts = []
        BackendEvent.rssiLost(Fixture.hrm).forEachFact(at: Fixture.t0) { f, _ in facts.append(f) }
        #expect(facts == [.rssiLost(Fixture.hrm)])
        // Notifications read together: each value at its own time.
        let cid = CharacteristicID("/org/bluez/hci0/dev_X/service0010/char0011")
        facts = []
        times = []
        BackendEvent.valuesNotified(cid, [NotifiedValue([1], at: Fixture.t0), NotifiedValue([2], at: Fixture.t0 + 0.3)])
            .forEachFact(at: Fixture.t0 + 1) { facts.append($0); times.append($1) }
        #expect(facts == [.valueNotified(cid, [1]), .valueNotified(cid, [2])])
        #expect(times == [Fixture.t0, Fixture.t0 + 0.3])
    }

    /// A backend that does nothing: the store, the effect runner and its recorder are what
    /// is under test.
    final class QuietBackend: Backend {
        let kind = "bluez"
        func start(loop: EventLoop, emit: @escaping @MainActor (BackendEvent, Timestamp) -> Void) {}
        func execute(_ command: BackendCommand) {}
        func shutdown() {}
    }

    /// Through the store and the effect runner into a recording file: the lines after the
    /// header, and the final state.
    static func record(_ actions: [(BackendEvent, Double)]) throws -> (lines: [String], state: AppState) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bx-batch-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var s = initial()
        s.scanWanted = false
        let store = Store(state: s)
        let runner = EffectRunner(store: store, backend: QuietBackend()) { .init(started: $0, backend: "bluez", adapter: "hci0", seed: nil) }
        store.send(.appStarted(recordTo: path))
        for (e, after) in actions { store.send(.backend(e, at: Fixture.t0 + after)) }
        runner.finish()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        return (Array(lines.dropFirst()), store.state)
    }

    @Test func aBatchRecordsTheLinesOfItsReports() throws {
        // Two runs of reports with another fact between them, one by one and as batches
        // (a batch carries the time it was sent: its reports are recorded at that time).
        let first = Array(Self.reports.prefix(3)), second = Array(Self.reports.dropFirst(3))
        let singles = try Self.record(first.map { (.advertisementReceived($0), 1.0) } + [(.rssiLost(Fixture.itag), 1.5)]
                                      + second.map { (.advertisementReceived($0), 2.0) })
        let batched = try Self.record([(.advertisementsReceived(first), 1.0), (.rssiLost(Fixture.itag), 1.5),
                                       (.advertisementsReceived(second), 2.0)])
        #expect(batched.state == singles.state)
        // adapter, every report, rssi-lost, the porch entering (the named device was
        // listed before the recording started)
        #expect(singles.lines.count == 1 + Self.reports.count + 1 + 1)
        #expect(singles.lines.filter { $0.contains(#""type":"advertisement""#) }.count == Self.reports.count)
        // The same lines; the region the second batch brought in is recorded after the
        // batch's reports (its effect runs after the batch), not after the fifth report.
        let region = singles.lines.first { $0.contains(#""type":"region""#) }
        #expect(region != nil)
        #expect(batched.lines == singles.lines.filter { $0 != region } + [region ?? ""])
    }
}
