@preconcurrency import Glibc
import Explorer

/// Device object path -> peripheral, looked up either by String or straight by the C
/// string a received message holds, so the advertising fast path never turns a path
/// ("/org/bluez/hci0/dev_C0_FF_EE_00_00_01", too long for a small String: a heap
/// allocation and a copy each time) into a String just to find its device.
///
/// BlueZ names a device's object after its address, under its adapter's path. The fast
/// lookup reads the address from the path's last 17 characters (upper-case hex, as BlueZ
/// writes it), compares what comes before with the few adapter paths seen (they stay in
/// cache), and looks the two up as one 64-bit key: no hashing of the whole path, no second
/// copy of it to compare against. A path of another shape is found by its String only
/// (slower, still right).
struct DevicePathIndex {
    private var byPath: [String: PeripheralID] = [:]
    /// The devices whose path has the usual shape, by its address (48 bits) and, above
    /// it, 1 + the index of the adapter path before "/dev_…" in `adapters`.
    private var fast: [FastKey: PeripheralID] = [:]
    /// Adapter paths seen in device paths ("/org/bluez/hci0"; one or two), one after the
    /// other: reading them takes no reference-counted copy of each.
    private var adapterBytes: [UInt8] = []
    private var adapters: [Range<Int>] = []

    struct FastKey: Hashable {
        let bits: UInt64
    }

    subscript(path: String) -> PeripheralID? {
        get { byPath[path] }
        set {
            if let newValue { insert(path, newValue) } else { removeValue(forKey: path) }
        }
    }

    private mutating func insert(_ path: String, _ id: PeripheralID) {
        byPath[path] = id
        guard let (adapter, address) = Self.split(path) else { return }
        let a: Int
        if let known = adapterIndex(adapter) {
            a = known
        } else {
            adapters.append(adapterBytes.count..<adapterBytes.count + adapter.count)
            adapterBytes += adapter
            a = adapters.count - 1
        }
        fast[Self.key(address, adapter: a)] = id
    }

    @discardableResult
    mutating func removeValue(forKey path: String) -> PeripheralID? {
        guard let id = byPath.removeValue(forKey: path) else { return nil }
        if let (adapter, address) = Self.split(path), let a = adapterIndex(adapter) {
            fast[Self.key(address, adapter: a)] = nil
        }
        return id
    }

    mutating func removeAll() {
        byPath.removeAll()
        fast.removeAll()
        adapterBytes.removeAll()
        adapters.removeAll()
    }

    /// The device whose path is this NUL-terminated string, without making a String.
    /// Mutating only in name: called on the backend's property it then works on the index
    /// in place, where a plain method got a copy (a retain and a release of each of its
    /// tables, on every advertising signal).
    mutating func lookup(_ cPath: UnsafePointer<CChar>) -> PeripheralID? {
        let n = strlen(cPath)
        let p = UnsafeRawPointer(cPath).assumingMemoryBound(to: UInt8.self)
        guard let address = Self.address(p, n), let a = adapterIndex(p, n - Self.tail) else { return nil }
        return fast[Self.key(address, adapter: a)]
    }

    /// Which of the adapter paths seen these `count` bytes are, if any.
    private func adapterIndex(_ p: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        adapterBytes.withUnsafeBufferPointer { all in
            for (i, r) in adapters.enumerated() where r.count == count && memcmp(all.baseAddress! + r.lowerBound, p, count) == 0 {
                return i
            }
            return nil
        }
    }

    private func adapterIndex(_ path: [UInt8]) -> Int? {
        path.withUnsafeBufferPointer { adapterIndex($0.baseAddress!, $0.count) }
    }

    static func key(_ address: UInt64, adapter: Int) -> FastKey { FastKey(bits: address | UInt64(adapter + 1) << 48) }

    /// "/dev_" and "XX_XX_XX_XX_XX_XX".
    static let tail = 5 + 17

    /// A device path's adapter path and address, or nil for a path of another shape.
    static func split(_ path: String) -> ([UInt8], UInt64)? {
        let bytes = Array(path.utf8)
        return bytes.withUnsafeBufferPointer { b in
            guard let address = address(b.baseAddress!, b.count) else { return nil }
            return (Array(b[..<(b.count - tail)]), address)
        }
    }

    /// The address in ".../dev_XX_XX_XX_XX_XX_XX" as 48 bits (upper-case hex only, so
    /// that one address is one spelling), or nil.
    static func address(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64? {
        guard n > tail else { return nil }
        let t = p + (n - tail)
        guard t[0] == UInt8(ascii: "/"), t[1] == UInt8(ascii: "d"), t[2] == UInt8(ascii: "e"), t[3] == UInt8(ascii: "v"),
              t[4] == UInt8(ascii: "_") else { return nil }
        var value: UInt64 = 0
        for i in 0..<17 {
            let c = t[5 + i]
            if i % 3 == 2 {
                guard c == UInt8(ascii: "_") else { return nil }
            } else {
                guard let d = hexDigit(c) else { return nil }
                value = value << 4 | UInt64(d)
            }
        }
        return value
    }

    /// 0...15 for "0"..."9" and "A"..."F".
    private static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
