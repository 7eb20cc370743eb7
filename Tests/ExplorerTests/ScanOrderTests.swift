import Testing
@testable import Explorer

/// The scan list's order is kept as peripherals change instead of sorted for every frame:
/// after any sequence of reports, removals, expiries, connections and setting changes it
/// must be exactly what filtering and sorting everything from scratch gives.
@Suite("Scan order")
struct ScanOrderTests {
    /// Filtering and sorting every peripheral, as the list did before it was kept.
    static func fromScratch(_ s: AppState) -> [PeripheralID] {
        let needle = s.scan.filter.lowercased()
        let kept = s.peripherals.values.filter { p in
            if s.scan.connectableOnly && !p.connectable { return false }
            if s.scan.hideUnnamed && (p.name ?? "").isEmpty { return false }
            if let floor = s.scan.minRSSI, (p.rssi ?? -999) < floor { return false }
            return needle.isEmpty || ScanQuery.matches(p, needle)
        }
        func byID(_ a: Peripheral, _ b: Peripheral) -> Bool { a.id < b.id }
        let sorted: [Peripheral]
        switch s.scan.sort {
        case .rssi: sorted = kept.sorted { ($0.rssi ?? -999, $1.id) > ($1.rssi ?? -999, $0.id) }
        case .name:
            sorted = kept.sorted { a, b in
                switch (a.name?.lowercased(), b.name?.lowercased()) {
                case let (x?, y?) where x != y: return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                default: return byID(a, b)
                }
            }
        case .interval: sorted = kept.sorted { ($0.rhythm.interval ?? .infinity, $0.id) < ($1.rhythm.interval ?? .infinity, $1.id) }
        case .lastSeen: sorted = kept.sorted { (-$0.lastSeen.seconds, $0.id) < (-$1.lastSeen.seconds, $1.id) }
        case .firstSeen: sorted = kept.sorted { ($0.firstSeen.seconds, $0.id) < ($1.firstSeen.seconds, $1.id) }
        }
        return sorted.map(\.id)
    }

    static let names: [String?] = [nil, "Sensor", "sensor 2", "Polar H10", "", "iTag", "ZEPHYR", "Édith"]
    static let filters = ["", "sens", "apple", "180d", "heart", "aa:00:00:00:00:1", "zz"]

    /// Four thousand random steps over sixty devices: the kept order never differs from
    /// the one computed from scratch, and the cursor's row is found where it is.
    @Test func theKeptOrderIsAlwaysTheSortedFilteredList() {
        var rng = SeededRandom(seed: 7)
        func pick<T>(_ a: [T]) -> T { a[Int(rng.next() % UInt64(a.count))] }
        var s = AppState(now: Timestamp(1_000))
        var t = 1_000.0
        var firstMismatch: String?
        for step in 0..<4_000 where firstMismatch == nil {
            t += Double(rng.next() % 400) / 1000
            let address = "AA:00:00:00:00:" + String(10 + Int(rng.next() % 60))
            let id = PeripheralID(address)
            switch rng.next() % 20 {
            case 0..<11:
                let companies: [UInt16] = [0x004C, 0x0006, 0x0059, 0xFFFF]
                let adv = Advertisement(serviceUUIDs: rng.next() % 4 == 0 ? ["180D"] : [],
                                        manufacturerData: rng.next() % 2 == 0 ? [pick(companies): [1, 2, UInt8(step & 0xFF)]] : [:])
                let rssi: Int? = rng.next() % 8 == 0 ? nil : -40 - Int(rng.next() % 60)
                _ = Reducer.reduce(&s, .backend(.advertisementReceived(AdvertisementReport(
                    id: id, address: address, name: pick(Self.names), rssi: rssi,
                    connectable: rng.next() % 3 == 0 ? nil : rng.next() % 2 == 0, advertisement: adv)), at: Timestamp(t)))
            case 11:
                _ = Reducer.reduce(&s, .backend(.peripheralRemoved(id), at: Timestamp(t)))
            case 12:
                s.peripherals[id]?.connection = rng.next() % 2 == 0 ? .connected : .disconnected
            case 13:
                s.peripherals[id]?.name = pick(Self.names)
            case 14:
                s.scan.sort = pick(SortOrder.allCases)
            case 15:
                s.scan.filter = pick(Self.filters)
            case 16:
                s.scan.minRSSI = pick([nil, -70, -55])
            case 17:
                s.scan.connectableOnly = rng.next() % 3 == 0
                s.scan.hideUnnamed = rng.next() % 3 == 0
            case 18:
                t += Double(rng.next() % 2) * AppState.expireAfter
                _ = Reducer.reduce(&s, .tick(Timestamp(t)))
            default:
                _ = Reducer.reduce(&s, .cursorMoved(pick([.down, .up, .pageDown, .top, .bottom])))
            }
            let expected = Self.fromScratch(s)
            if ScanQuery.ids(s) != expected {
                firstMismatch = "step \(step), sort \(s.scan.sort), filter \"\(s.scan.filter)\": \(ScanQuery.ids(s).map(\.rawValue)) != \(expected.map(\.rawValue))"
            } else if let c = s.scan.cursor, let i = expected.firstIndex(of: c), ScanQuery.cursorIndex(s) != i {
                firstMismatch = "step \(step): cursor \(c) found at \(String(describing: ScanQuery.cursorIndex(s))), is at \(i)"
            }
        }
        #expect(firstMismatch == nil, "\(firstMismatch ?? "")")
        #expect(s.peripherals.count >= 10)   // the walk ends in a busy room, not an emptied one
    }

    /// Peripherals set as a whole (a replay starting over, a test's fixture) are sorted to
    /// the settings already chosen, and emptying keeps the settings.
    @Test func peripheralsSetAtOnceFollowTheSettings() {
        var s = AppState(now: Timestamp(10))
        s.scan.sort = .name
        let a = Peripheral(id: PeripheralID("AA:00:00:00:00:01"), address: "AA:00:00:00:00:01", name: "beta", rssi: -40,
                           seen: Timestamp(1), connectable: true, advertisement: Advertisement())
        let b = Peripheral(id: PeripheralID("AA:00:00:00:00:02"), address: "AA:00:00:00:00:02", name: "Alpha", rssi: -90,
                           seen: Timestamp(1), connectable: true, advertisement: Advertisement())
        s.peripherals = [a.id: a, b.id: b]
        #expect(ScanQuery.ids(s) == [b.id, a.id])
        s.scan.sort = .rssi
        #expect(ScanQuery.ids(s) == [a.id, b.id])
        s.peripherals.removeAll()
        #expect(ScanQuery.ids(s).isEmpty)
        s.peripherals[b.id] = b
        s.peripherals[a.id] = a
        #expect(ScanQuery.ids(s) == [a.id, b.id])
    }
}

/// A command (no screen) does not keep the order as reports come: it sorts when asked,
/// and gets the same list.
@Suite("Scan order without a screen")
struct ScanOrderCommandTests {
    @Test func aCommandSortsWhenAskedAndGetsTheSameList() {
        var app = AppState(now: Timestamp(1))
        var command = AppState(now: Timestamp(1))
        command.run(JobState(job: .scan(duration: 5)))
        #expect(!command.peripherals.keepsOrder)
        for i in 0..<50 {
            let address = "AA:00:00:00:00:" + String(10 + i % 30)
            let r = AdvertisementReport(id: PeripheralID(address), address: address, name: i % 4 == 0 ? "n\(i % 7)" : nil,
                                        rssi: -40 - (i * 37) % 55, connectable: true, advertisement: Advertisement())
            _ = Reducer.reduce(&app, .backend(.advertisementReceived(r), at: Timestamp(Double(i))))
            _ = Reducer.reduce(&command, .backend(.advertisementReceived(r), at: Timestamp(Double(i))))
        }
        #expect(ScanQuery.ids(command) == ScanQuery.ids(app))
        #expect(ScanQuery.ids(command) == ScanOrderTests.fromScratch(command))
        command.scan.sort = .name
        app.scan.sort = .name
        #expect(ScanQuery.ids(command) == ScanQuery.ids(app))
        command.run(nil)
        #expect(command.peripherals.keepsOrder)
        #expect(command.peripherals.shown.ids == app.peripherals.shown.ids)
    }
}
