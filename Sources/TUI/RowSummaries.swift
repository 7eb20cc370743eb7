import Explorer
import Synchronization

/// The scan list's one-line advertisement summaries, decoded once per advertisement change
/// instead of once per frame: a row is drawn thirty times a second, its device advertises
/// something new far less often, and decoding it (beacons, BTHome, company names) costs
/// more than drawing the whole row. Frames stay a function of the state: an entry is used
/// only while the advertisement and the keys it was decoded with are the same.
final class RowSummaries: Sendable {
    static let shared = RowSummaries()

    private struct Entry {
        var advertisement: Advertisement
        var address: String
        var keys: [String: Bytes]
        var summary: String
    }

    /// Bounded: rows scrolled past are decoded again if they come back.
    private static let capacity = 2_048
    private let entries = Mutex<[PeripheralID: Entry]>([:])

    func summary(_ p: Peripheral, keys: [String: Bytes]) -> String {
        let cached = entries.withLock { $0[p.id] }
        if let c = cached, c.advertisement == p.advertisement, c.address == p.address, c.keys == keys { return c.summary }
        let summary = p.advertisement.summary(address: p.address, keys: keys)
        entries.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[p.id] = Entry(advertisement: p.advertisement, address: p.address, keys: keys, summary: summary)
        }
        return summary
    }
}
