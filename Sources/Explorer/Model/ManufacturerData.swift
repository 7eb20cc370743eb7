/// An advertisement's manufacturer-specific data, keyed by Bluetooth SIG company
/// identifier (0x004C Apple, ...).
public typealias ManufacturerData = [UInt16: Bytes]
