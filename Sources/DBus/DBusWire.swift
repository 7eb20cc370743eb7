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

    /// A fixed-size integer, aligned to its size, in the message's byte order.
    @inlinable
    mutating func fixed<T: FixedWidthInteger>(_: T.Type) -> T? {
        let n = MemoryLayout<T>.size
        guard align(n), position + n <= count else { return nil }
        defer { position += n }
        let v = base.loadUnaligned(fromByteOffset: position, as: T.self)
        return bigEndian ? T(bigEndian: v) : T(littleEndian: v)
    }

    @inlinable
    public mutating func uint16() -> UInt16? { fixed(UInt16.self) }

    @inlinable
    public mutating func int16() -> Int16? { fixed(Int16.self) }

    @inlinable
    public mutating func uint32() -> UInt32? { fixed(UInt32.self) }

    /// A string or object path (u32 length, bytes, NUL): its bytes, in place.
    @inlinable
    public mutating func string() -> UnsafeRawBufferPointer? { terminated(length: uint32().map(Int.init)) }

    /// A signature (u8 length, bytes, NUL), as in a variant: its bytes, in place.
    @inlinable
    public mutating func signature() -> UnsafeRawBufferPointer? { terminated(length: uint8().map(Int.init)) }

    /// `length` bytes and the NUL after them (what follows a string's or a signature's
    /// length): the bytes, in place.
    @inlinable
    mutating func terminated(length n: Int?) -> UnsafeRawBufferPointer? {
        guard let n, position + n < count, base.load(fromByteOffset: position + n, as: UInt8.self) == 0 else { return nil }
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
    public mutating func bytes(_ n: Int) -> [UInt8]? { rawBytes(n).map { Array($0) } }

    /// Whether text read in place is `s`.
    @inlinable
    public static func same(_ p: UnsafeRawBufferPointer, _ s: StaticString) -> Bool {
        p.count == s.utf8CodeUnitCount && memcmp(p.baseAddress!, s.utf8Start, p.count) == 0
    }
}

extension DBusRawSignal {
    /// Lends the body of the message as wire bytes, or returns nil if it cannot (no
    /// memory, a big-endian host).
    ///
    /// Where it can, the bytes are the message's own: libdbus holds a message's body as
    /// its wire bytes (in this machine's byte order once an iterator has been made, which
    /// swaps a message that came the other way), and a string read by reference points
    /// into them. So the first argument, when it is a string, gives where the body
    /// starts (its length prefix is just before it), and the body's signature how far it
    /// reaches, read from lengths libdbus validated on arrival. That layout is libdbus's,
    /// not its documented API: `bodyInPlace` checks it once against `dbus_message_marshal`,
    /// and every message checks the length prefix; anything else takes the copy that
    /// `dbus_message_marshal` makes (one allocation, two reallocations and a copy of the
    /// whole message, which in a storm cost more than reading the body).
    public func withBody<R>(_ body: (inout DBusWireReader) -> R?) -> R? {
        guard 1.littleEndian == 1 else { return nil }
        if Self.bodyInPlace, var reader = inPlaceBody() { return body(&reader) }
        return withMarshalledBody(body)
    }

    /// `withBody` without finding where the body ends, for a reader that goes through the
    /// body only as its signature says (which the caller has checked, `hasSignature`) and
    /// checks the signature inside every variant before reading its value: libdbus
    /// validated the body against its signature on arrival, so every length such a reader
    /// follows keeps it inside the body, as the walk in `inPlaceBody` relies on. The reader's
    /// `count` is then no end (`atEnd` is never true). Walking the body for its end was 530
    /// instructions of the advertising fast path's 3.25k a signal (callgrind, docs/bench.md,
    /// issue 15).
    public func withValidatedBody<R>(_ body: (inout DBusWireReader) -> R?) -> R? {
        guard 1.littleEndian == 1 else { return nil }
        if Self.bodyInPlace, let first = firstString {
            let start = UnsafeRawPointer(first) - 4
            if Int(start.loadUnaligned(as: UInt32.self)) == strlen(first) {
                var reader = DBusWireReader(base: start, count: Int(Int32.max), bigEndian: false)
                return body(&reader)
            }
        }
        return withMarshalledBody(body)
    }

    /// Whether libdbus's body layout is as `withBody` reads it in place, checked once on a
    /// message built here against the copy `dbus_message_marshal` makes.
    public static let bodyInPlace: Bool = {
        guard 1.littleEndian == 1 else { return false }
        let args: [DBusValue] = [
            .string("org.bluez.Device1"),
            .vardict(["RSSI": .int16(-60), "ManufacturerData": .dict(key: "q", value: "v", [
                DBusDictEntry(.uint16(0x004C), .variant(.bytes([2, 0x15, 1, 2, 3])))]), "Name": .string("é")]),
            .array(element: "s", [.string("TxPower")]),
        ]
        return DBusRawSignal.with(path: "/org/bluez/hci0/dev_00_11_22_33_44_55", interface: "org.freedesktop.DBus.Properties",
                                  member: "PropertiesChanged", args: args) { raw -> Bool in
            guard let inPlace = raw.inPlaceBody() else { return false }
            return raw.withMarshalledBody { copied -> Bool? in
                inPlace.count == copied.count && memcmp(inPlace.base, copied.base, inPlace.count) == 0
            } ?? false
        } ?? false
    }()

    /// The body where libdbus holds it, or nil (see `withBody`).
    func inPlaceBody() -> DBusWireReader? {
        guard let first = firstString else { return nil }
        let start = UnsafeRawPointer(first) - 4
        guard Int(start.loadUnaligned(as: UInt32.self)) == strlen(first) else { return nil }
        // Lengths inside a validated body keep every step within it.
        var walk = DBusWireReader(base: start, count: Int(Int32.max), bigEndian: false)
        guard walk.skip(signature: UnsafeRawBufferPointer(start: signature, count: strlen(signature))) else { return nil }
        return DBusWireReader(base: start, count: walk.offset, bigEndian: false)
    }

    /// The body in the copy of the whole message `dbus_message_marshal` makes.
    func withMarshalledBody<R>(_ body: (inout DBusWireReader) -> R?) -> R? {
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

extension DBusWireReader {
    /// Skips one value of each complete type in `signature` ("sa{sv}as": three values).
    /// False if the signature is malformed or a value runs past the end.
    public mutating func skip(signature: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        while i < signature.count {
            guard skipValue(signature, &i, depth: 0) else { return false }
        }
        return true
    }

    /// Skips the value of the single complete type at `sig[i...]`, moving `i` past it.
    mutating func skipValue(_ sig: UnsafeRawBufferPointer, _ i: inout Int, depth: Int) -> Bool {
        guard i < sig.count, depth < 64 else { return false }
        let c = sig[i]
        i += 1
        switch c {
        case UInt8(ascii: "y"): return uint8() != nil
        case UInt8(ascii: "n"), UInt8(ascii: "q"): return uint16() != nil
        case UInt8(ascii: "b"), UInt8(ascii: "i"), UInt8(ascii: "u"), UInt8(ascii: "h"): return uint32() != nil
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"): return fixed(UInt64.self) != nil
        case UInt8(ascii: "s"), UInt8(ascii: "o"): return string() != nil
        case UInt8(ascii: "g"): return signature() != nil
        case UInt8(ascii: "v"):
            guard let inner = signature() else { return false }
            var j = 0
            return skipValue(inner, &j, depth: depth + 1) && j == inner.count
        case UInt8(ascii: "a"):
            // The element type sets the padding before the first element; the length
            // covers the elements.
            let elementStart = i
            guard Self.skipType(sig, &i), let end = array(elementAlignment: Self.alignment(of: sig[elementStart])) else {
                return false
            }
            position = end
            return true
        case UInt8(ascii: "("), UInt8(ascii: "{"):
            let close = c == UInt8(ascii: "(") ? UInt8(ascii: ")") : UInt8(ascii: "}")
            guard align(8) else { return false }
            while i < sig.count, sig[i] != close {
                guard skipValue(sig, &i, depth: depth + 1) else { return false }
            }
            guard i < sig.count else { return false }
            i += 1
            return true
        default:
            return false
        }
    }

    /// Moves `i` past the single complete type at `signature[i...]` (no value read).
    static func skipType(_ signature: UnsafeRawBufferPointer, _ i: inout Int, depth: Int = 0) -> Bool {
        guard i < signature.count, depth < 64 else { return false }
        let c = signature[i]
        i += 1
        switch c {
        case UInt8(ascii: "a"):
            return skipType(signature, &i, depth: depth + 1)
        case UInt8(ascii: "("), UInt8(ascii: "{"):
            let close = c == UInt8(ascii: "(") ? UInt8(ascii: ")") : UInt8(ascii: "}")
            while i < signature.count, signature[i] != close {
                guard skipType(signature, &i, depth: depth + 1) else { return false }
            }
            guard i < signature.count else { return false }
            i += 1
            return true
        case UInt8(ascii: ")"), UInt8(ascii: "}"):
            return false
        default:
            return true
        }
    }

    static func alignment(of type: UInt8) -> Int {
        switch type {
        case UInt8(ascii: "y"), UInt8(ascii: "g"), UInt8(ascii: "v"): return 1
        case UInt8(ascii: "n"), UInt8(ascii: "q"): return 2
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): return 8
        default: return 4
        }
    }
}
