import Testing
@testable import Explorer

/// Demo Stream's flood: numbered notifications at the rate asked, and no job left on the
/// world's clock once it stops.
@Suite("Simulated flood")
struct SimulatedFloodTests {
    static let stream = PeripheralID("5C:F3:70:8A:00:42")

    /// The world with Demo Stream connected and its flood characteristic, not subscribed yet.
    static func connected() -> (SimulatedWorld, CharacteristicID) {
        let w = SimulatedWorld(seed: 9)
        w.handle(.connect(stream), at: 0)
        let events = w.advance(to: 3)
        let gatt = events.compactMap { _, e -> [GATTService]? in
            if case let .servicesResolved(id, services, _) = e, id == stream { return services }
            return nil
        }.first!
        let flood = gatt.flatMap { $0.characteristics }.first { $0.uuid == DemoCatalog.floodCharacteristic }!
        return (w, flood.id)
    }

    static func sequences(_ events: [(Double, BackendEvent)], _ cid: CharacteristicID) -> [Int] {
        events.compactMap { _, e in
            if case let .valueNotified(id, bytes) = e, id == cid { return SimulatedWorld.floodSequence(bytes) }
            return nil
        }
    }

    @Test func fiveThousandNumberedNotificationsASecond() {
        let (w, cid) = Self.connected()
        w.handle(.setNotify(Self.stream, cid, true), at: 3)
        let first = Self.sequences(w.advance(to: 4), cid)   // the subscription's answer, then the flood
        let second = Self.sequences(w.advance(to: 5), cid)
        #expect(second.count >= 4_960 && second.count <= 5_040)   // 5,000 a second, give or take an event's 37
        let all = first + second
        #expect(all == Array(1...all.count))                     // numbered from 1, none skipped or repeated
        #expect(w.floodSent == all.count)
    }

    @Test func valuesAreTwentyBytesWithTheSequenceFirst() {
        let v = SimulatedWorld.floodValue(0x0102_0304)
        #expect(v.count == 20)
        #expect(Array(v.prefix(4)) == [0x04, 0x03, 0x02, 0x01])
        #expect(SimulatedWorld.floodSequence(v) == 0x0102_0304)
        #expect(SimulatedWorld.floodSequence([0x01]) == nil)
    }

    @Test func theRateChangesAndZeroLeavesTheClockIdle() {
        let (w, cid) = Self.connected()
        w.handle(.setNotify(Self.stream, cid, true), at: 3)
        _ = w.advance(to: 4)
        w.setFloodRate(1_000, at: 4)
        let slower = Self.sequences(w.advance(to: 6), cid).count
        #expect(slower >= 1_980 && slower <= 2_010)   // 1,000 a second for 2 s
        let before = w.floodSent
        w.setFloodRate(0, at: 6)
        #expect(Self.sequences(w.advance(to: 8), cid).isEmpty)
        #expect(w.floodSent == before)
        // No connection event is left on the clock: one advertising job a device, nothing else.
        #expect(w.scheduledJobs == w.devices.count)
        w.setFloodRate(5_000, at: 8)
        let again = Self.sequences(w.advance(to: 9), cid)
        #expect(again.first == before + 1)
        #expect(again.count >= 4_960)
    }

    @Test func unsubscribingEndsTheFlood() {
        let (w, cid) = Self.connected()
        w.handle(.setNotify(Self.stream, cid, true), at: 3)
        _ = w.advance(to: 4)
        w.handle(.setNotify(Self.stream, cid, false), at: 4)
        _ = w.advance(to: 4.2)   // the answer, and the events already under way
        let sent = w.floodSent
        #expect(Self.sequences(w.advance(to: 6), cid).isEmpty)
        #expect(w.floodSent == sent)
        #expect(w.scheduledJobs == w.devices.count)
    }
}
