@preconcurrency import Glibc
import Explorer

/// Device object path -> peripheral, looked up either by String or straight by the C
/// string a received message holds, so the advertising fast path never turns a path
/// ("/org/bluez/hci0/dev_C0_FF_EE_00_00_01", too long for a small String: a heap
/// allocation and a copy each time) into a String just to find its device.
///
/// BlueZ names a device's object after its address, under its adapter's path. The fast
/// lookup reads the address from the path's last 17 characters (upper-case hex, as BlueZ
/// writes it) and compares what comes before with the few adapter paths seen, which stay
/// in cache: no hashing of the whole path and no second copy of it to compare against.
/// A path of another shape, or a device whose address another adapter's device already
/// holds, is found by its String only (slower, still right).
struct DevicePathIndex {
    private var byPath: [String: PeripheralID] = [:]
    /// Address (48 bits) -> which adapter path comes before "/dev_…" and the device.
    private var byAddress: [UInt64: (adapter: Int, id: PeripheralID)] = [:]
    /// Adapter paths seen in device paths ("/org/bluez/hci0"): one or two.
    private var adapters: [[UInt8]] = []

    subscript(path: String) -> PeripheralID? {
        get { byPath[path] }
        set {
            if let newValue { insert(path, newValue) } else { removeValue(forKey: path) }
        }
    }

    private mutating func insert(_ path: String, _ id: PeripheralID) {
        byPath[path] = id
        let bytes = Array(path.utf8)
        guard let (adapter, address) = bytes.withUnsafeBufferPointer({ Self.split($0.baseAddress!, $0.count) }) else { return }
        let a: Int
        if let known = adapters.firstIndex(of: adapter) { a = known } else { adapters.append(adapter); a = adapters.count - 1 }
        if let existing = byAddress[address], existing.adapter != a { return }
        byAddress[address] = (a, id)
    }

    @discardableResult
    mutating func removeValue(forKey path: String) -> PeripheralID? {
        guard let id = byPath.removeValue(forKey: path) else { return nil }
        let bytes = Array(path.utf8)
        if let (adapter, address) = bytes.withUnsafeBufferPointer({ Self.split($0.baseAddress!, $0.count) }),
           let entry = byAddress[address], adapters[entry.adapter] == adapter {
            byAddress.removeValue(forKey: address)
        }
        return id
    }

    mutating func removeAll() {
        byPath.removeAll()
        byAddress.removeAll()
        adapters.removeAll()
    }

    /// The device whose path is this NUL-terminated string, without making a String.
    /// Mutating only in name: called on the backend's property it then works on the index
    /// in place, where a plain method got a copy (a retain and a release of each of its
    /// three tables, on every advertising signal).
    mutating func lookup(_ cPath: UnsafePointer<CChar>) -> PeripheralID? {
        let n = strlen(cPath)
        let p = UnsafeRawPointer(cPath).assumingMemoryBound(to: UInt8.self)
        guard let address = Self.address(p, n), let entry = byAddress[address] else { return nil }
        let adapter = adapters[entry.adapter]
        guard adapter.count == n - Self.tail else { return nil }
        let same = adapter.withUnsafeBufferPointer { memcmp($0.baseAddress!, p, adapter.count) == 0 }
        return same ? entry.id : nil
    }

    /// "/dev_" and "XX_XX_XX_XX_XX_XX".
    static let tail = 5 + 17

    /// A device path's adapter path and address, or nil for a path of another shape.
    static func split(_ p: UnsafePointer<UInt8>, _ n: Int) -> ([UInt8], UInt64)? {
        guard let address = address(p, n) else { return nil }
        return (Array(UnsafeBufferPointer(start: p, count: n - tail)), address)
    }

    /// The address in ".../dev_XX_XX_XX_XX_XX_XX" (upper-case hex only, so that one
    /// address is one spelling), or nil.
    static func address(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64? {
        guard n > tail else { return nil }
        let t = p + (n - tail)
        guard t[0] == UInt8(ascii: "/"), t[1] == UInt8(ascii: "d"), t[2] == UInt8(ascii: "e"), t[3] == UInt8(ascii: "v"),
              t[4] == UInt8(ascii: "_") else { return nil }
        return PeripheralID.parseAddress(t + 5, separator: UInt8(ascii: "_"))
    }
}
