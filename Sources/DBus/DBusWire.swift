@preconcurrency import CDBus
@preconcurrency import Glibc

/// A received message's body read as the bytes on the wire (the D-Bus marshalling
/// format: little- or big-endian, every value aligned to its size from the start of the
/// body), with a cursor. For the one signal a busy room sends thousands of a second
/// (BlueZ's advertising PropertiesChanged): libdbus's own iterator costs several hundred
/// instructions for each step, about as much as everything else the signal costs.
///
/// Only valid inside the closure it is lent to. libdbus validated the whole message
/// against its signature when it arrived; every read here still checks its bounds and
/// gives nil past the end, so a reader that expects the wrong shape only gets nil.
public struct DBusWireReader {
    // Inlinable: the fast path reads a dozen values a signal, and a call into this module
    // for each cost more than the read.
    @usableFromInline let base: UnsafeRawPointer
    public let count: Int
    /// The message is big-endian (bleexplr runs little-endian only; see `DBusRawSignal.withBody`).
    @usableFromInline let bigEndian: Bool
    @usableFromInline var position = 0
    /// Bytes from the start of the body (alignment counts from there).
    @inlinable public var offset: Int { position }

    init(base: UnsafeRawPointer, count: Int, bigEndian: Bool) {
        self.base = base; self.count = count; self.bigEndian = bigEndian
    }

    /// A reader over plain bytes (tests).
    public static func with<R>(_ bytes: [UInt8], bigEndian: Bool = false, _ body: (inout DBusWireReader) -> R) -> R {
        bytes.withUnsafeBytes { buf in
            var r = DBusWireReader(base: buf.baseAddress ?? UnsafeRawPointer(bitPattern: 8)!, count: buf.count, bigEndian: bigEndian)
            return body(&r)
        }
    }

    @inlinable public var atEnd: Bool { position >= count }

    /// Skips padding up to a multiple of `n` (1, 2, 4 or 8).
    @inlinable
    @discardableResult
    public mutating func align(_ n: Int) -> Bool {
        let o = (position + n - 1) & ~(n - 1)
        guard o <= count else { return false }
        position = o
        return true
    }

    @inlinable
    public mutating func uint8() -> UInt8? {
        guard position < count else { return nil }
        defer { position += 1 }
        return base.load(fromByteOffset: position, as: UInt8.self)
    }

    @inlinable
    public mutating func uint16() -> UInt16? {
        guard align(2), position + 2 <= count else { return nil }
        defer { position += 2 }
        let v = base.loadUnaligned(fromByteOffset: position, as: UInt16.self)
        return bigEndian ? UInt16(bigEndian: v) : UInt16(littleEndian: v)
    }

    @inlinable
    public mutating func int16() -> Int16? { uint16().map { Int16(bitPattern: $0) } }

    @inlinable
    public mutating func uint32() -> UInt32? {
        guard align(4), position + 4 <= count else { return nil }
        defer { position += 4 }
        let v = base.loadUnaligned(fromByteOffset: position, as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v)
    }

    /// A string or object path (u32 length, bytes, NUL): its bytes, in place.
    @inlinable
    public mutating func string() -> UnsafeRawBufferPointer? {
        guard let n = uint32().map(Int.init), n < count, position + n < count,
              base.load(fromByteOffset: position + n, as: UInt8.self) == 0 else { return nil }
        defer { position += n + 1 }
        return UnsafeRawBufferPointer(start: base + position, count: n)
    }

    /// A signature (u8 length, bytes, NUL), as in a variant: its bytes, in place.
    @inlinable
    public mutating func signature() -> UnsafeRawBufferPointer? {
        guard let n = uint8().map(Int.init), position + n < count,
              base.load(fromByteOffset: position + n, as: UInt8.self) == 0 else { return nil }
        defer { position += n + 1 }
        return UnsafeRawBufferPointer(start: base + position, count: n)
    }

    /// Enters an array: reads its length and skips the padding before its first element
    /// (there even when the array is empty). Returns the offset where the array ends; read
    /// elements while `offset` is below it.
    @inlinable
    public mutating func array(elementAlignment: Int) -> Int? {
        guard let n = uint32().map(Int.init), align(elementAlignment), position + n <= count else { return nil }
        return position + n
    }

    /// The next `n` bytes, in place (an `ay`'s contents).
    @inlinable
    public mutating func rawBytes(_ n: Int) -> UnsafeRawBufferPointer? {
        guard n >= 0, position + n <= count else { return nil }
        defer { position += n }
        return UnsafeRawBufferPointer(start: base + position, count: n)
    }

    /// The next `n` bytes, copied out (an `ay`'s contents).
    @inlinable
    public mutating func bytes(_ n: Int) -> [UInt8]? {
        guard n >= 0, position + n <= count else { return nil }
        defer { position += n }
        return Array(UnsafeRawBufferPointer(start: base + position, count: n))
    }

    /// Whether text read in place is `s`.
    @inlinable
    public static func same(_ p: UnsafeRawBufferPointer, _ s: StaticString) -> Bool {
        p.count == s.utf8CodeUnitCount && memcmp(p.baseAddress!, s.utf8Start, p.count) == 0
    }
}

extension DBusRawSignal {
    /// Lends the body of the message as wire bytes, or returns nil if it cannot (no
    /// memory, a big-endian host). The bytes are a copy that libdbus makes of the
    /// whole message (`dbus_message_marshal`, the public way to the bytes): one
    /// allocation and a copy of a few hundred bytes, much less than walking it with
    /// libdbus's iterator.
    public func withBody<R>(_ body: (inout DBusWireReader) -> R?) -> R? {
        guard 1.littleEndian == 1 else { return nil }
        var data: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(message, &data, &length) != 0, let data else { return nil }
        defer { dbus_free(data) }
        let n = Int(length)
        // Header: endianness, type, flags, version, body length (u32), serial (u32), then
        // the header fields as an array (u32 length at 12), padded to 8; the body follows.
        guard n >= 16 else { return nil }
        let raw = UnsafeRawPointer(data)
        let order = raw.load(as: UInt8.self)
        guard order == UInt8(ascii: "l") || order == UInt8(ascii: "B") else { return nil }
        let big = order == UInt8(ascii: "B")
        func u32(_ at: Int) -> Int {
            let v = raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)
            return Int(big ? UInt32(bigEndian: v) : UInt32(littleEndian: v))
        }
        let bodyLength = u32(4)
        let bodyStart = (16 + u32(12) + 7) & ~7
        guard bodyStart <= n, bodyLength <= n - bodyStart else { return nil }
        var reader = DBusWireReader(base: raw + bodyStart, count: bodyLength, bigEndian: big)
        return body(&reader)
    }
}
