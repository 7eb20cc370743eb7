@preconcurrency import Glibc
import Explorer

/// Device object path -> peripheral, looked up either by String or straight by the C
/// string a received message holds, so the advertising fast path never turns a path
/// ("/org/bluez/hci0/dev_C0_FF_EE_00_00_01", too long for a small String: a heap
/// allocation and a copy each time) into a String just to find its device.
struct DevicePathIndex {
    private var byPath: [String: PeripheralID] = [:]
    /// FNV-1a of the path's bytes -> the path and its device. A hash shared by two paths
    /// keeps the first; the other takes the String lookup (slower, still right).
    private var byHash: [UInt64: (path: [UInt8], id: PeripheralID)] = [:]

    subscript(path: String) -> PeripheralID? {
        get { byPath[path] }
        set {
            if let newValue { insert(path, newValue) } else { removeValue(forKey: path) }
        }
    }

    private mutating func insert(_ path: String, _ id: PeripheralID) {
        byPath[path] = id
        let bytes = Array(path.utf8)
        let h = bytes.withUnsafeBytes { Self.hash($0.baseAddress, $0.count) }
        if let existing = byHash[h], existing.path != bytes { return }
        byHash[h] = (bytes, id)
    }

    @discardableResult
    mutating func removeValue(forKey path: String) -> PeripheralID? {
        guard let id = byPath.removeValue(forKey: path) else { return nil }
        let bytes = Array(path.utf8)
        let h = bytes.withUnsafeBytes { Self.hash($0.baseAddress, $0.count) }
        if byHash[h]?.path == bytes { byHash.removeValue(forKey: h) }
        return id
    }

    mutating func removeAll() {
        byPath.removeAll()
        byHash.removeAll()
    }

    /// The device whose path is this NUL-terminated string, without making a String.
    func lookup(_ cPath: UnsafePointer<CChar>) -> PeripheralID? {
        let n = strlen(cPath)
        guard n > 0, let entry = byHash[Self.hash(UnsafeRawPointer(cPath), n)], entry.path.count == n else { return nil }
        let same = entry.path.withUnsafeBufferPointer { memcmp($0.baseAddress!, cPath, n) == 0 }
        return same ? entry.id : nil
    }

    /// A 64-bit digest of `n` bytes, eight at a time (a path is about 37).
    static func hash(_ p: UnsafeRawPointer?, _ n: Int) -> UInt64 {
        guard let p else { return 0 }
        let prime: UInt64 = 0x0000_0100_0000_01b3
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(n)
        var i = 0
        while i + 8 <= n {
            h = (h ^ p.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* prime
            h ^= h >> 29
            i += 8
        }
        var tail: UInt64 = 0, shift: UInt64 = 0
        while i < n {
            tail |= UInt64(p.load(fromByteOffset: i, as: UInt8.self)) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* prime
        return h ^ (h >> 32)
    }
}
