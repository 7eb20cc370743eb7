/// Every peripheral heard, by ID, with the scan list's order of them kept as they change.
///
/// The list shown is filtered and sorted as `ScanScreenState` says. Sorting it again for
/// every frame costs what the whole room costs (ten thousand devices in a hall); here each
/// change to a peripheral moves its one row, so a frame costs what it shows. Every change
/// goes through the subscript, so the order can never miss one.
public struct Peripherals: Equatable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: PeripheralID, value: Peripheral)

    private var byID: [PeripheralID: Peripheral] = [:]
    /// The scan list as shown: the peripherals the filter keeps, in the chosen order.
    public private(set) var shown = ScanOrder(ScanOrder.Query(ScanScreenState()))

    public init() {}

    public init(dictionaryLiteral elements: (PeripheralID, Peripheral)...) {
        for (id, p) in elements { self[id] = p }
    }

    /// Whether the order is kept as peripherals change. A command without a screen (`scan`,
    /// `bench-ingest`) has no list to keep: `ScanQuery` sorts once when it prints, and a
    /// storm of reports costs it nothing here (the same order, computed once).
    public private(set) var keepsOrder = true

    public subscript(id: PeripheralID) -> Peripheral? {
        get { byID[id] }
        _modify {
            if keepsOrder {
                let before = byID[id].flatMap(shown.entry)
                yield &byID[id]
                shown.replace(before, with: byID[id].flatMap(shown.entry))
            } else {
                yield &byID[id]
            }
        }
    }

    @discardableResult
    public mutating func removeValue(forKey id: PeripheralID) -> Peripheral? {
        guard let p = byID.removeValue(forKey: id) else { return nil }
        if keepsOrder { shown.replace(shown.entry(p), with: nil) }
        return p
    }

    public mutating func removeAll() {
        byID.removeAll()
        shown = ScanOrder(shown.query)
    }

    /// Filters and sorts anew when the scan settings change (a key typed into the filter,
    /// `o` for another order); nothing happens when they did not.
    mutating func arrange(_ scan: ScanScreenState) {
        guard !shown.query.describes(scan) else { return }
        shown = keepsOrder ? ScanOrder(ScanOrder.Query(scan), byID.values) : ScanOrder(ScanOrder.Query(scan))
    }

    mutating func keepOrder(_ on: Bool) {
        guard on != keepsOrder else { return }
        keepsOrder = on
        shown = on ? ScanOrder(shown.query, byID.values) : ScanOrder(shown.query)
    }

    /// The list as shown, sorted now if it is not kept.
    var order: ScanOrder { keepsOrder ? shown : ScanOrder(shown.query, byID.values) }

    public var count: Int { byID.count }
    public var isEmpty: Bool { byID.isEmpty }
    public var keys: Dictionary<PeripheralID, Peripheral>.Keys { byID.keys }
    public var values: Dictionary<PeripheralID, Peripheral>.Values { byID.values }
    public func makeIterator() -> Dictionary<PeripheralID, Peripheral>.Iterator { byID.makeIterator() }
    public func mapValues<T>(_ transform: (Peripheral) throws -> T) rethrows -> [PeripheralID: T] {
        try byID.mapValues(transform)
    }

    /// Equal when they hold the same peripherals: the order follows from them and the settings.
    public static func == (a: Self, b: Self) -> Bool { a.byID == b.byID }
}

/// The IDs of the scan list in the order shown, with where each one is: (sort key, ID)
/// entries of the peripherals the filter keeps, sorted, in chunks of at most 64, so that a
/// peripheral moving from one end of a list of ten thousand to the other shifts a chunk,
/// not the list.
public struct ScanOrder: Sendable {
    /// What decides the list: the scan settings without the cursor.
    struct Query: Equatable, Sendable {
        var sort: SortOrder
        var filter: String
        var needle: String
        var minRSSI: Int?
        var connectableOnly: Bool
        var hideUnnamed: Bool

        init(_ scan: ScanScreenState) {
            sort = scan.sort
            filter = scan.filter
            needle = scan.filter.lowercased()
            minRSSI = scan.minRSSI
            connectableOnly = scan.connectableOnly
            hideUnnamed = scan.hideUnnamed
        }

        /// Cheaper than building a query to compare: this runs on every change of state.
        func describes(_ scan: ScanScreenState) -> Bool {
            sort == scan.sort && filter == scan.filter && minRSSI == scan.minRSSI
                && connectableOnly == scan.connectableOnly && hideUnnamed == scan.hideUnnamed
        }

        func keeps(_ p: Peripheral) -> Bool {
            if connectableOnly && !p.connectable { return false }
            if hideUnnamed && (p.name ?? "").isEmpty { return false }
            if let floor = minRSSI, (p.rssi ?? -999) < floor { return false }
            return needle.isEmpty || ScanQuery.matches(p, needle)
        }
    }

    /// Where a peripheral sorts: by `key`, then `name` (sorting by name), then ID, so that
    /// no two entries are equal and each one can be found again.
    struct Entry: Comparable, Sendable {
        var key: Double
        var name: String?
        var id: PeripheralID
        /// A favourite (the configuration's): before every other, in any sort.
        var pinned = false

        static func < (a: Self, b: Self) -> Bool {
            if a.pinned != b.pinned { return a.pinned }
            if a.key != b.key { return a.key < b.key }
            if a.name != b.name { return (a.name ?? "") < (b.name ?? "") }
            return a.id < b.id
        }
    }

    static let chunkSize = 64
    let query: Query
    /// Each sorted and never empty; every entry of a chunk sorts before those of the next.
    private var chunks: [[Entry]] = []
    public private(set) var count = 0

    init(_ query: Query) { self.query = query }

    init(_ query: Query, _ peripherals: some Sequence<Peripheral>) {
        self.query = query
        let sorted = peripherals.compactMap(entry).sorted()
        count = sorted.count
        chunks = stride(from: 0, to: sorted.count, by: Self.chunkSize / 2).map {
            Array(sorted[$0..<min(sorted.count, $0 + Self.chunkSize / 2)])
        }
    }

    /// The peripheral's entry, or nil when the filter hides it. Strongest signal first;
    /// named devices by name, then the unnamed by address; most frequent advertiser first
    /// (heard once: last); newest or oldest first.
    func entry(_ p: Peripheral) -> Entry? {
        guard query.keeps(p) else { return nil }
        guard var e = sorted(p) else { return nil }
        e.pinned = UserNames.current.isFavourite(p.address)
        return e
    }

    private func sorted(_ p: Peripheral) -> Entry? {
        switch query.sort {
        case .rssi: return Entry(key: -Double(p.rssi ?? -999), name: nil, id: p.id)
        case .name: let n = p.alias ?? p.name; return Entry(key: n == nil ? 1 : 0, name: n?.lowercased(), id: p.id)
        case .interval: return Entry(key: p.rhythm.interval ?? .infinity, name: nil, id: p.id)
        case .lastSeen: return Entry(key: -p.lastSeen.seconds, name: nil, id: p.id)
        case .firstSeen: return Entry(key: p.firstSeen.seconds, name: nil, id: p.id)
        }
    }

    /// One peripheral changed: its entry was `old` and is now `new` (nil: not shown).
    mutating func replace(_ old: Entry?, with new: Entry?) {
        if old == new { return }
        if let o = old, let n = new, let (c, i) = place(of: o), fits(n, at: c, i) {
            chunks[c][i] = n   // still between the same neighbours
            return
        }
        if let o = old { remove(o) }
        if let n = new { insert(n) }
    }

    private func fits(_ e: Entry, at c: Int, _ i: Int) -> Bool {
        let before = i > 0 ? chunks[c][i - 1] : c > 0 ? chunks[c - 1].last : nil
        let after = i + 1 < chunks[c].count ? chunks[c][i + 1] : c + 1 < chunks.count ? chunks[c + 1].first : nil
        return (before.map { $0 < e } ?? true) && (after.map { e < $0 } ?? true)
    }

    private mutating func insert(_ e: Entry) {
        count += 1
        guard !chunks.isEmpty else { chunks = [[e]]; return }
        let c = chunk(for: e)
        chunks[c].insert(e, at: Self.lowerBound(e, in: chunks[c]))
        if chunks[c].count > Self.chunkSize {
            let half = chunks[c].count / 2
            let tail = Array(chunks[c][half...])
            chunks[c].removeSubrange(half...)
            chunks.insert(tail, at: c + 1)
        }
    }

    private mutating func remove(_ e: Entry) {
        guard let (c, i) = place(of: e) else { return }
        count -= 1
        chunks[c].remove(at: i)
        if chunks[c].isEmpty { chunks.remove(at: c) }
    }

    /// The chunk an entry belongs in: the first whose last entry is not less than it (the
    /// last chunk for an entry beyond them all).
    private func chunk(for e: Entry) -> Int {
        var low = 0, high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid].last! < e { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private static func lowerBound(_ e: Entry, in entries: [Entry]) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid] < e { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The chunk and index of an entry in the list.
    private func place(of e: Entry) -> (Int, Int)? {
        guard !chunks.isEmpty else { return nil }
        let c = chunk(for: e)
        let i = Self.lowerBound(e, in: chunks[c])
        return i < chunks[c].count && chunks[c][i] == e ? (c, i) : nil
    }

    public var isEmpty: Bool { count == 0 }
    public var first: PeripheralID? { chunks.first?.first?.id }
    public var ids: [PeripheralID] { chunks.flatMap { $0.map(\.id) } }

    public subscript(i: Int) -> PeripheralID { ids(in: i..<(i + 1))[0] }

    /// The IDs of rows `range` (what a screen shows), walking the chunks once.
    public func ids(in range: Range<Int>) -> [PeripheralID] {
        var out: [PeripheralID] = []
        out.reserveCapacity(range.count)
        var start = 0
        for chunk in chunks {
            let end = start + chunk.count
            if end > range.lowerBound {
                for i in max(range.lowerBound, start)..<min(range.upperBound, end) { out.append(chunk[i - start].id) }
            }
            if end >= range.upperBound { break }
            start = end
        }
        return out
    }

    /// Where the peripheral is in the list, nil when the filter hides it.
    public func index(of p: Peripheral) -> Int? {
        guard let e = entry(p), let (c, i) = place(of: e) else { return nil }
        return chunks[..<c].reduce(i) { $0 + $1.count }
    }
}
