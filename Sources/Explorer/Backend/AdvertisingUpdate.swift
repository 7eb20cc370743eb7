/// What most of a busy room's advertising traffic is (over BlueZ, nearly every Device1
/// PropertiesChanged): a new RSSI and one company's manufacturer data, for a peripheral.
/// The same fact as `report`, in a form that is cheap to make, copy and apply: no
/// dictionary, no array, one reference-counted field instead of seven. A peripheral
/// already listed takes it in place (`Peripheral.apply(_:at:)`): its data lands inline
/// (`ManufacturerData`), without an allocation.
public struct AdvertisingUpdate: Equatable, Sendable {
    public var id: PeripheralID
    public var rssi: Int?
    /// The manufacturer data that changed, if it did: one company and its bytes.
    public var company: UInt16
    public var data: ShortBytes?

    public init(id: PeripheralID, rssi: Int?, company: UInt16 = 0, data: ShortBytes? = nil) {
        self.id = id; self.rssi = rssi; self.company = company; self.data = data
    }

    /// The same fact as a report (what observers, recordings and headless commands see).
    public var report: AdvertisementReport {
        AdvertisementReport(id: id, address: id.rawValue, name: nil, rssi: rssi, connectable: nil,
                            advertisement: Advertisement(manufacturerData: data.map { ManufacturerData(company: company, data: $0) } ?? [:]))
    }
}

/// Up to 32 bytes held inline, without a heap allocation: the manufacturer data of a
/// legacy advertisement is at most 27 bytes (longer extended-advertising data goes the
/// general way, as `Bytes`).
public struct ShortBytes: Equatable, Sendable, CustomStringConvertible {
    public static let capacity = 32
    private var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private let length: UInt8
    public var count: Int { Int(length) }

    /// nil when there are more than `capacity` bytes.
    public init?(_ source: UnsafeRawBufferPointer) {
        guard source.count <= Self.capacity else { return nil }
        length = UInt8(source.count)
        if let base = source.baseAddress, source.count > 0 {
            withUnsafeMutableBytes(of: &storage) { $0.baseAddress!.copyMemory(from: base, byteCount: source.count) }
        }
    }

    public init?(_ bytes: Bytes) {
        guard let s = bytes.withUnsafeBytes({ ShortBytes($0) }) else { return nil }
        self = s
    }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: storage) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }

    public var bytes: Bytes { withUnsafeBytes { Bytes($0) } }

    public static func == (a: Self, b: Self) -> Bool {
        // Bytes past `count` are always zero.
        a.length == b.length && a.storage.0 == b.storage.0 && a.storage.1 == b.storage.1
            && a.storage.2 == b.storage.2 && a.storage.3 == b.storage.3
    }

    public var description: String { bytes.description }
}
