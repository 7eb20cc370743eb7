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
    private var fast = KeyTable()
    /// Adapter paths seen in device paths ("/org/bluez/hci0"; one or two), one after the
    /// other: reading them takes no reference-counted copy of each.
    private var adapterBytes: [UInt8] = []
    private var adapters: [Range<Int>] = []

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
        fast.insert(Self.key(address, adapter: a), id)
    }

    @discardableResult
    mutating func removeValue(forKey path: String) -> PeripheralID? {
        guard let id = byPath.removeValue(forKey: path) else { return nil }
        if let (adapter, address) = Self.split(path), let a = adapterIndex(adapter) {
            fast.remove(Self.key(address, adapter: a))
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
        return fast.find(Self.key(address, adapter: a))
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

    /// Never 0 (the adapter's part is at least 1), which `KeyTable` keeps for an empty slot.
    static func key(_ address: UInt64, adapter: Int) -> UInt64 { address | UInt64(adapter + 1) << 48 }

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
        // Six pairs of digits, each followed by "_" but the last; `bad` collects every
        // digit's value, and any character that is not a digit makes it 16 or more: 175
        // instructions a path in callgrind, against 370 for a loop over the 17 characters
        // with a branch for each kind (docs/bench.md, issue 15).
        var value: UInt64 = 0
        var bad: UInt8 = 0
        for pair in 0..<6 {
            let hi = hexDigit(t[5 + 3 * pair]), lo = hexDigit(t[6 + 3 * pair])
            bad |= hi | lo
            if pair < 5 && t[7 + 3 * pair] != UInt8(ascii: "_") { return nil }
            value = value << 8 | UInt64(hi << 4 | lo & 0x0F)
        }
        return bad < 16 ? value : nil
    }

    /// 0...15 for "0"..."9" and "A"..."F", 16 or more for anything else.
    private static func hexDigit(_ c: UInt8) -> UInt8 {
        let d = c &- UInt8(ascii: "0")
        if d < 10 { return d }
        let u = c &- UInt8(ascii: "A")
        return u < 6 ? u + 10 : 0xFF
    }
}

/// 64-bit keys (never 0) -> peripherals: an open-addressing table with linear probing,
/// at most half full. A `Dictionary` of a `Hashable` key hashed each lookup with SipHash:
/// the whole lookup of a path took 745 instructions a signal in callgrind, about 340 of them
/// the Dictionary's; now about 355, `find` 59 of them (docs/bench.md, issue 15). The slot
/// is a multiplication and a shift.
/// The multiplier is random for each table, so that addresses, which any device in radio
/// range picks, cannot be chosen to pile up in one run of slots.
struct KeyTable {
    private var keys: [UInt64] = Array(repeating: 0, count: 16)
    private var values: [PeripheralID?] = Array(repeating: nil, count: 16)
    private var count = 0
    private var shift: UInt64 = 64 - 4
    private let multiplier = UInt64.random(in: 1...UInt64.max) | 1

    private func slot(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* multiplier) >> shift) }

    func find(_ key: UInt64) -> PeripheralID? {
        let mask = keys.count - 1
        var i = slot(key)
        while true {
            let k = keys[i]
            if k == key { return values[i] }
            if k == 0 { return nil }
            i = (i + 1) & mask
        }
    }

    mutating func insert(_ key: UInt64, _ value: PeripheralID) {
        precondition(key != 0)
        if (count + 1) * 2 > keys.count { grow() }
        let mask = keys.count - 1
        var i = slot(key)
        while keys[i] != 0 && keys[i] != key { i = (i + 1) & mask }
        if keys[i] == 0 { count += 1 }
        keys[i] = key
        values[i] = value
    }

    mutating func remove(_ key: UInt64) {
        let mask = keys.count - 1
        var i = slot(key)
        while keys[i] != key {
            if keys[i] == 0 { return }
            i = (i + 1) & mask
        }
        // Backward-shift deletion: move up every later key of the run that may sit in the
        // hole, so that no lookup stops early at it.
        var hole = i
        keys[hole] = 0
        values[hole] = nil
        count -= 1
        i = (hole + 1) & mask
        while keys[i] != 0 {
            let home = slot(keys[i])
            // Whether `home` lies cyclically in (hole, i]: if not, the key may move to the hole.
            let stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i)
            if !stays {
                keys[hole] = keys[i]
                values[hole] = values[i]
                keys[i] = 0
                values[i] = nil
                hole = i
            }
            i = (i + 1) & mask
        }
    }

    mutating func removeAll() { self = KeyTable() }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = Array(repeating: 0, count: oldKeys.count * 2)
        values = Array(repeating: nil, count: oldKeys.count * 2)
        shift -= 1
        count = 0
        for (k, v) in zip(oldKeys, oldValues) where k != 0 { insert(k, v!) }
    }
}
