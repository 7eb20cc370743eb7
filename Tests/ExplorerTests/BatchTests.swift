import Foundation
import Testing
@testable import Explorer

/// A batch of advertising updates (`.advertisingUpdates`, what the BlueZ backend sends
/// for a run of signals) must be exactly their reports one by one: the same state, the
/// same effects in the same order, the same recording lines.
@MainActor
@Suite("Advertisement batches")
struct BatchTests {
    static let porch: BLEUUID = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"

    static func iBeacon(rssi: Int, minor: UInt8) -> AdvertisingUpdate {
        let uuid: Bytes = [0xB9, 0x40, 0x7F, 0x30, 0xF5, 0xF8, 0x46, 0x6E, 0xAF, 0xF9, 0x25, 0x55, 0x6B, 0x57, 0xFE, 0x6D]
        let data: Bytes = [0x02, 0x15] + uuid + [0, 7, 0, minor, 0xC5]
        return AdvertisingUpdate(id: Fixture.beacon, rssi: rssi, company: 0x004C, data: ShortBytes(data))
    }

    static func update(_ id: PeripheralID, _ rssi: Int?, _ company: UInt16, _ data: Bytes?) -> AdvertisingUpdate {
        AdvertisingUpdate(id: id, rssi: rssi, company: company, data: data.flatMap { ShortBytes($0) })
    }

    /// New devices, repeated ones, updates without RSSI or data, data that changes length
    /// or keeps it, and an iBeacon that brings a region in (an effect) mid-run.
    static let updates: [AdvertisingUpdate] = [
        update(Fixture.hrm, -61, 0x0059, [1, 2]),
        update(Fixture.itag, -80, 0x0001, [9]),
        update(Fixture.hrm, nil, 0x0059, [3, 4, 5]),
        iBeacon(rssi: -90, minor: 1),
        iBeacon(rssi: -60, minor: 1),
        update(Fixture.hrm, -55, 0x0059, [6]),
        update(Fixture.itag, -81, 0x0002, [8]),
        update(Fixture.itag, nil, 0, nil),
        iBeacon(rssi: -58, minor: 1),
        update(Fixture.hrm, -54, 0x0059, [7]),
    ]
    static var reports: [AdvertisementReport] { updates.map(\.report) }

    static func initial() -> AppState {
        var s = AppState(now: Fixture.t0)
        s.adapter = AdapterStatus(name: "hci0", power: .on, discovering: true)
        s.presence = PresenceState(regions: [Region(name: "Porch", uuid: porch, major: 7)], config: PresenceConfig())
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
        let batchEffects = Reducer.reduce(&batched, .backend(.advertisingUpdates(Self.updates), at: at))
        #expect(batched == one)
        #expect(batchEffects == singleEffects)
        #expect(singleEffects.count == 1)   // the porch entered once, mid-run
        #expect(one.peripherals[Fixture.hrm]?.rssiHistory.samples == [-70, -61, -55, -54])
        #expect(one.peripherals[Fixture.hrm]?.advertisement.manufacturerData[0x0059] == [7])
        #expect(one.peripherals[Fixture.hrm]?.name == "HRM")
        #expect(one.peripherals[Fixture.itag]?.advertisement.manufacturerData == [0x0001: [9], 0x0002: [8]])
    }

    /// Data overwritten in place never shows through a copy of the state taken before
    /// (the recorder, a screen, a test may hold one).
    @Test func anUpdateInPlaceLeavesEarlierCopiesAlone() {
        var s = Self.initial()
        let before = s
        _ = Reducer.reduce(&s, update: Self.update(Fixture.hrm, -50, 0x0059, [42]), at: Fixture.t0 + 1)
        #expect(s.peripherals[Fixture.hrm]?.advertisement.manufacturerData[0x0059] == [42])
        #expect(before.peripherals[Fixture.hrm]?.advertisement.manufacturerData[0x0059] == [0])
        #expect(before.peripherals[Fixture.hrm]?.rssi == -70)
    }

    @Test func shortBytesHoldUpTo32BytesExactly() {
        #expect(ShortBytes([])?.bytes == [])
        let full = Bytes(0..<32)
        #expect(ShortBytes(full)?.bytes == full)
        #expect(ShortBytes(full + [32]) == nil)
        #expect(ShortBytes([1, 2]) == ShortBytes([1, 2]))
        #expect(ShortBytes([1, 2]) != ShortBytes([1, 2, 0]))   // the length counts, not only the bytes
    }

    /// Through a store, watched (an observer sees every report as an action) or not (the
    /// updates are applied where they lie in the batch): the same state and effects.
    @Test func aStoreHandlesABatchAsItsReports() {
        func run(_ events: [BackendEvent], watched: Bool) -> (AppState, [Effect], [Action], [Int?]) {
            let store = Store(state: Self.initial())
            var effects: [Effect] = [], seen: [Action] = [], rssiAtEffect: [Int?] = []
            // An effect sees the state as it was when its update was applied: none after it.
            store.effectHandler = { effects.append($0); rssiAtEffect.append(store.state.peripherals[Fixture.hrm]?.rssi) }
            if watched { store.observers.append { a, _ in seen.append(a) } }
            for e in events { store.send(.backend(e, at: Fixture.t0 + 1)) }
            return (store.state, effects, seen, rssiAtEffect)
        }
        let singles = run(Self.reports.map { .advertisementReceived($0) }, watched: true)
        for watched in [true, false] {
            let batched = run([.advertisingUpdates(Self.updates)], watched: watched)
            #expect(batched.0 == singles.0)
            #expect(batched.1 == singles.1)
            #expect(batched.2 == (watched ? singles.2 : []))
            #expect(batched.3 == singles.3)
        }
        #expect(singles.1.count == 1)
        #expect(singles.2.count == Self.updates.count)
        #expect(singles.3 == [-61])   // the HRM's update after the porch's is not applied yet
    }

    /// A run of updates stops after the first that has effects, and goes on from there.
    @Test func aRunOfUpdatesStopsAtTheFirstWithEffects() {
        var s = Self.initial()
        var next = 0
        let first = Reducer.reduce(&s, updates: Self.updates, from: &next, at: Fixture.t0 + 1)
        #expect(next == 5)   // the second iBeacon update (-60 dBm) brings the porch in
        #expect(first.count == 1)
        #expect(s.peripherals[Fixture.hrm]?.rssi == -61)
        let rest = Reducer.reduce(&s, updates: Self.updates, from: &next, at: Fixture.t0 + 1)
        #expect(rest.isEmpty)
        #expect(next == Self.updates.count)
        #expect(s.peripherals[Fixture.hrm]?.rssi == -54)
    }

    @Test func forEachFactExpandsOnlyBatches() {
        var facts: [BackendEvent] = []
        BackendEvent.advertisingUpdates(Self.updates).forEachFact { facts.append($0) }
        #expect(facts == Self.reports.map { .advertisementReceived($0) })
        facts = []
        BackendEvent.rssiLost(Fixture.hrm).forEachFact { facts.append($0) }
        #expect(facts == [.rssiLost(Fixture.hrm)])
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
        let first = Array(Self.updates.prefix(3)), second = Array(Self.updates.dropFirst(3))
        let singles = try Self.record(first.map { (.advertisementReceived($0.report), 1.0) } + [(.rssiLost(Fixture.itag), 1.5)]
                                      + second.map { (.advertisementReceived($0.report), 2.0) })
        let batched = try Self.record([(.advertisingUpdates(first), 1.0), (.rssiLost(Fixture.itag), 1.5),
                                       (.advertisingUpdates(second), 2.0)])
        #expect(batched.lines == singles.lines)
        #expect(batched.state == singles.state)
        // adapter, every update, rssi-lost, the porch entering (the named device was
        // listed before the recording started)
        #expect(singles.lines.count == 1 + Self.updates.count + 1 + 1)
        #expect(singles.lines.filter { $0.contains(#""type":"advertisement""#) }.count == Self.updates.count)
        #expect(singles.lines.contains { $0.contains(#""type":"region""#) })
    }
}
