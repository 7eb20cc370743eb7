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
        let h = bytes.withUnsafeBufferPointer { Self.hash($0) }
        if let existing = byHash[h], existing.path != bytes { return }
        byHash[h] = (bytes, id)
    }

    @discardableResult
    mutating func removeValue(forKey path: String) -> PeripheralID? {
        guard let id = byPath.removeValue(forKey: path) else { return nil }
        let bytes = Array(path.utf8)
        let h = bytes.withUnsafeBufferPointer { Self.hash($0) }
        if byHash[h]?.path == bytes { byHash.removeValue(forKey: h) }
        return id
    }

    mutating func removeAll() {
        byPath.removeAll()
        byHash.removeAll()
    }

    /// The device whose path is this NUL-terminated string, without making a String.
    func lookup(_ cPath: UnsafePointer<CChar>) -> PeripheralID? {
        // One pass: hash and length together.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        var n = 0
        while cPath[n] != 0 {
            h ^= UInt64(UInt8(bitPattern: cPath[n]))
            h = h &* 0x0000_0100_0000_01b3
            n += 1
        }
        guard n > 0, let entry = byHash[h], entry.path.count == n else { return nil }
        let same = entry.path.withUnsafeBufferPointer { memcmp($0.baseAddress!, cPath, n) == 0 }
        return same ? entry.id : nil
    }

    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }
}
