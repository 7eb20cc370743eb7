/// An advertisement's manufacturer-specific data, keyed by Bluetooth SIG company
/// identifier (0x004C Apple, ...): a dictionary to read and write, laid out for the traffic
/// of a busy room.
///
/// Nearly every advertiser sends one company's data of at most 27 bytes (a legacy
/// advertisement's limit). That one company's bytes are held inline, in the peripheral's
/// own memory: an advertisement that changes them (most of a room's traffic) touches no
/// other allocation, where a `[UInt16: Bytes]` took a dictionary's storage and an array's,
/// a few cache lines each time for one of a thousand devices (docs/bench.md). Any further
/// company, and data longer than `ShortBytes.capacity`, go into an ordinary dictionary.
/// A company is only ever in one of the two places.
public struct ManufacturerData: Equatable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// The company held inline (meaningful when `first` is not nil).
    private var firstCompany: UInt16 = 0
    private var first: ShortBytes?
    private var rest: [UInt16: Bytes] = [:]

    public init() {}

    public init(dictionaryLiteral elements: (UInt16, Bytes)...) {
        for (k, v) in elements { self[k] = v }
    }

    public init(_ dictionary: [UInt16: Bytes]) {
        for (k, v) in dictionary { self[k] = v }
    }

    /// One company's data, without making an array.
    public init(company: UInt16, data: ShortBytes) {
        firstCompany = company
        first = data
    }

    public var isEmpty: Bool { first == nil && rest.isEmpty }
    public var count: Int { (first == nil ? 0 : 1) + rest.count }

    /// In no particular order (as a dictionary's).
    public var keys: [UInt16] { (first == nil ? [] : [firstCompany]) + rest.keys }

    public subscript(company: UInt16) -> Bytes? {
        get {
            if let first, company == firstCompany { return first.bytes }
            return rest[company]
        }
        set {
            guard let newValue else {
                if first != nil, company == firstCompany { first = nil } else { rest[company] = nil }
                return
            }
            // Data that fits inline is placed as an advertisement's change places it.
            if let short = ShortBytes(newValue) { set(company, short); return }
            if first != nil, company == firstCompany { first = nil }
            rest[company] = newValue
        }
    }

    /// What an advertisement's change does: `company`'s data is now `data`. The inline
    /// company's is overwritten in place.
    public mutating func set(_ company: UInt16, _ data: ShortBytes) {
        if first != nil, company == firstCompany {
            first = data
        } else if first == nil, rest[company] == nil {
            firstCompany = company
            first = data
        } else {
            rest[company] = data.bytes
        }
    }

    public func makeIterator() -> AnyIterator<(key: UInt16, value: Bytes)> {
        var pending = first.map { (key: firstCompany, value: $0.bytes) }
        var others = rest.makeIterator()
        return AnyIterator {
            if let p = pending { pending = nil; return p }
            return others.next()
        }
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.count == b.count && a.allSatisfy { b[$0.key] == $0.value }
    }
}
