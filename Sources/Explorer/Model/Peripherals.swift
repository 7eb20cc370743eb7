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
                let before = byID.index(forKey: id).flatMap { shown.query.entry(byID.values[$0]) }
                yield &byID[id]
                shown.replace(before, with: byID.index(forKey: id).flatMap { shown.query.entry(byID.values[$0]) })
            } else {
                yield &byID[id]
            }
        }
    }

    /// Whether a peripheral with this ID was heard (without copying it out).
    public func contains(_ id: PeripheralID) -> Bool { byID.index(forKey: id) != nil }

    /// Changes a peripheral already heard, in place; nil when there is none. Every report
    /// takes this way: one lookup, and the peripheral is never copied.
    @discardableResult
    public mutating func update<R>(_ id: PeripheralID, _ change: (inout Peripheral) -> R) -> R? {
        guard let i = byID.index(forKey: id) else { return nil }
        guard keepsOrder else { return change(&byID.values[i]) }
        let query = shown.query
        var before: ScanOrder.Entry?, after: ScanOrder.Entry?
        func changed(_ p: inout Peripheral) -> R {
            before = query.entry(p)
            defer { after = query.entry(p) }
            return change(&p)
        }
        let result = changed(&byID.values[i])
        shown.replace(before, with: after)
        return result
    }

    @discardableResult
    public mutating func removeValue(forKey id: PeripheralID) -> Peripheral? {
        guard let p = byID.removeValue(forKey: id) else { return nil }
        if keepsOrder { shown.replace(shown.query.entry(p), with: nil) }
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

    /// The names shown changed (an alias chosen with `N`): the order is made again with them.
    mutating func namesChanged() {
        if keepsOrder { shown = ScanOrder(shown.query, byID.values) }
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

        /// The peripheral's entry, or nil when the filter hides it. Strongest signal first;
        /// named devices by name, then the unnamed by address; most frequent advertiser first
        /// (heard once: last); newest or oldest first.
        func entry(_ p: Peripheral) -> Entry? {
            guard keeps(p) else { return nil }
            var e: Entry
            switch sort {
            case .rssi: e = Entry(key: -Double(p.rssi ?? -999), name: nil, id: p.id)
            case .name: let n = p.alias ?? p.name; e = Entry(key: n == nil ? 1 : 0, name: n?.lowercased(), id: p.id)
            case .interval: e = Entry(key: p.rhythm.interval ?? .infinity, name: nil, id: p.id)
            case .lastSeen: e = Entry(key: -p.lastSeen.seconds, name: nil, id: p.id)
            case .firstSeen: e = Entry(key: p.firstSeen.seconds, name: nil, id: p.id)
            }
            e.pinned = UserNames.current.isFavourite(p.address)
            return e
        }
    }

    /// Where a peripheral sorts: by `key`, then `name` (sorting by name), then ID, so that
    /// no two entries are equal and each one can be found again.
    struct Entry: Comparable, Sendable {
        var key: Double
        /// Lower case, sorting by name; "" otherwise (and for the unnamed: `key` puts them last).
        /// Not an optional: an optional entry of an optional string is copied through the
        /// runtime's generic value witnesses, 10 times an event (callgrind: Store.send,
        /// ScanOrder's copies of Entry?).
        var name: String
        var id: PeripheralID
        /// A favourite (the configuration's): before every other, in any sort.
        var pinned = false
        /// The ID's first 16 bytes as two big-endian numbers: the same order as the IDs'
        /// bytes, compared without a string comparison (in a room most rows share an RSSI).
        private var idHigh: UInt64 = 0, idLow: UInt64 = 0

        init(key: Double, name: String?, id: PeripheralID) {
            self.key = key
            self.name = name ?? ""
            self.id = id
            func pack(_ bytes: some Collection<UInt8>) -> (UInt64, UInt64) {
                var high: UInt64 = 0, low: UInt64 = 0, n: UInt64 = 0
                for byte in bytes.prefix(16) {
                    if n < 8 { high |= UInt64(byte) << (56 - 8 * n) } else { low |= UInt64(byte) << (120 - 8 * n) }
                    n += 1
                }
                return (high, low)
            }
            (idHigh, idLow) = id.rawValue.utf8.withContiguousStorageIfAvailable(pack) ?? pack(id.rawValue.utf8)
        }

        static func < (a: Self, b: Self) -> Bool {
            if a.pinned != b.pinned { return a.pinned }
            if a.key != b.key { return a.key < b.key }
            if a.name != b.name { return a.name < b.name }
            if a.idHigh != b.idHigh { return a.idHigh < b.idHigh }
            if a.idLow != b.idLow { return a.idLow < b.idLow }
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
        let sorted = peripherals.compactMap(query.entry).sorted()
        count = sorted.count
        chunks = stride(from: 0, to: sorted.count, by: Self.chunkSize / 2).map {
            Array(sorted[$0..<min(sorted.count, $0 + Self.chunkSize / 2)])
        }
    }

    /// One peripheral changed: its entry was `old` and is now `new` (nil: not shown).
    mutating func replace(_ old: Entry?, with new: Entry?) {
        if old == new { return }
        if let o = old, let (c, i) = place(of: o) {
            if let n = new, fits(n, at: c, i) {
                chunks[c][i] = n   // still between the same neighbours
                return
            }
            remove(at: c, i)
        }
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

    private mutating func remove(at c: Int, _ i: Int) {
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

    public subscript(i: Int) -> PeripheralID {
        var start = 0
        for chunk in chunks {
            if i < start + chunk.count { return chunk[i - start].id }
            start += chunk.count
        }
        preconditionFailure("row \(i) of \(count)")
    }

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
        guard let e = query.entry(p), let (c, i) = place(of: e) else { return nil }
        return chunks[..<c].reduce(i) { $0 + $1.count }
    }
}
