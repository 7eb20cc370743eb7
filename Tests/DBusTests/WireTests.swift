import Testing
import Glibc
@testable import DBus

/// The wire reader (`DBusWireReader`, `DBusRawSignal.withBody`): the bytes libdbus
/// marshals, read in place with the format's alignment, and never past the end.
@Suite("D-Bus wire reader")
struct WireTests {
    /// A PropertiesChanged as BlueZ sends it, read back field by field from its bytes.
    @Test func readsAPropertiesChangedBody() throws {
        let args: [DBusValue] = [
            .string("org.bluez.Device1"),
            .vardict(["RSSI": .int16(-61), "ManufacturerData": .dict(key: "q", value: "v", [
                DBusDictEntry(.uint16(0x004C), .variant(.bytes([2, 0x15, 9]))),
                DBusDictEntry(.uint16(0xFFFF), .variant(.bytes([])))])]),
            .array(element: "s", [.string("Name")]),
        ]
        struct Read: Equatable { var iface = "", entries: [String] = [], rssi: Int16?, companies: [UInt16: [UInt8]] = [:], invalidated: [String] = [] }
        func text(_ p: UnsafeRawBufferPointer) -> String { String(decoding: p, as: UTF8.self) }
        let read = DBusRawSignal.with(path: "/org/bluez/hci0/dev_AA", interface: "org.freedesktop.DBus.Properties",
                                      member: "PropertiesChanged", args: args) { raw in
            raw.withBody { w -> Read? in
                var r = Read(rssi: nil)
                guard let iface = w.string(), let end = w.array(elementAlignment: 8) else { return nil }
                r.iface = text(iface)
                while w.offset < end {
                    guard w.align(8), let key = w.string(), let sig = w.signature() else { return nil }
                    r.entries.append(text(key) + ":" + text(sig))
                    if DBusWireReader.same(key, "RSSI") {
                        r.rssi = w.int16()
                    } else {
                        guard let cEnd = w.array(elementAlignment: 8) else { return nil }
                        while w.offset < cEnd {
                            guard w.align(8), let k = w.uint16(), w.signature() != nil, let bEnd = w.array(elementAlignment: 1),
                                  let b = w.bytes(bEnd - w.offset) else { return nil }
                            r.companies[k] = b
                        }
                    }
                }
                guard let iEnd = w.array(elementAlignment: 4) else { return nil }
                while w.offset < iEnd { if let s = w.string() { r.invalidated.append(text(s)) } else { return nil } }
                #expect(w.atEnd)
                return r
            }
        }
        let r = try #require(read ?? nil)
        #expect(r.iface == "org.bluez.Device1")
        #expect(Set(r.entries) == ["RSSI:n", "ManufacturerData:a{qv}"])
        #expect(r.rssi == -61)
        #expect(r.companies == [0x004C: [2, 0x15, 9], 0xFFFF: []])
        #expect(r.invalidated == ["Name"])
    }

    /// `withBody` reads libdbus's own copy of the body where it can (see there): on this
    /// libdbus it can, and for every shape of message the bytes are exactly those of the
    /// copy `dbus_message_marshal` makes.
    @Test func theBodyInPlaceIsTheMarshalledBody() throws {
        #expect(DBusRawSignal.bodyInPlace, "libdbus no longer keeps a body as its wire bytes: withBody copies every message")
        let cases: [[DBusValue]] = [
            [.string("org.bluez.Device1"),
             .vardict(["RSSI": .int16(-61), "ManufacturerData": .dict(key: "q", value: "v", [
                DBusDictEntry(.uint16(0x004C), .variant(.bytes(Array(0..<200))))]), "TxPower": .int16(4)]),
             .array(element: "s", [])],
            [.string("")],
            [.string("x"), .byte(1), .uint64(7), .string("after an 8-aligned value")],
            [.string("s"), .structure([.int32(-1), .double(2.5), .objectPath("/a/b"), .signature("a{sv}")]), .bool(true)],
            [.string("v"), .variant(.variant(.array(element: "(qs)", [.structure([.uint16(1), .string("one")])])))],
            [.string("é ünïcödé"), .array(element: "ay", [.bytes([]), .bytes([1]), .bytes([1, 2, 3])]), .int64(-9)],
            [.string("e"), .dict(key: "s", value: "v", []), .array(element: "t", []), .byte(0)],
        ]
        for args in cases {
            let same = DBusRawSignal.with(path: "/org/bluez/hci0/dev_00_11_22_33_44_55", interface: "org.freedesktop.DBus.Properties",
                                          member: "PropertiesChanged", args: args) { raw -> Bool in
                guard let inPlace = raw.inPlaceBody() else { return false }
                return raw.withMarshalledBody { copied -> Bool? in
                    inPlace.count == copied.count && memcmp(inPlace.base, copied.base, inPlace.count) == 0
                } ?? false
            }
            #expect(same == true, "\(args.map(\.signature).joined())")
        }
        // A body that does not start with a string has no place to start from: the copy.
        let copied = DBusRawSignal.with(path: "/a", interface: "a.b", member: "C", args: [.uint32(5)]) { raw in
            (raw.inPlaceBody() == nil, raw.withBody { w in w.uint32() })
        }
        #expect(copied?.0 == true && copied?.1 == 5)
    }

    /// The walk that finds where a body ends: one value per complete type, and nothing
    /// for a signature that is not one.
    @Test func skipsValuesBySignature() {
        func skip(_ bytes: [UInt8], _ sig: String) -> Int? {
            DBusWireReader.with(bytes) { w -> Int? in
                var sig = sig
                return sig.withUTF8 { w.skip(signature: UnsafeRawBufferPointer($0)) } ? w.offset : nil
            }
        }
        #expect(skip([1, 0, 0, 0, 0x61, 0, 0, 0, 8, 0, 0, 0, 9, 9, 9, 9], "sau") == nil)        // the array runs past the end
        #expect(skip([1, 0, 0, 0, 0x61, 0, 0, 0, 4, 0, 0, 0, 9, 9, 9, 9], "sau") == 16)
        #expect(skip([0, 0, 0, 0, 0xEE, 0xEE, 0xEE, 0xEE], "a{sv}") == 8)                         // empty, padded to 8
        #expect(skip([7, 0, 0x34, 0x12], "yq") == 4)
        #expect(skip([1, 0x69, 0, 0, 5, 0, 0, 0], "v") == 8)                                       // variant holding an i
        for bad in ["a", "(i", "i)", "{sv", "a{s", "z", "ai}"] {
            #expect(skip(Array(repeating: 0, count: 64), bad) == nil, "\(bad)")
        }
    }

    /// Lengths that point past the end, a string without its NUL, nothing left: nil,
    /// never a read beyond the bytes.
    @Test func neverReadsPastTheEnd() {
        #expect(DBusWireReader.with([5, 0, 0, 0, 0x41]) { $0.string() } == nil)
        #expect(DBusWireReader.with([1, 0, 0, 0, 0x41, 0x42]) { $0.string() } == nil)     // no NUL
        #expect(DBusWireReader.with([0xFF, 0xFF, 0xFF, 0x7F, 0]) { $0.string() } == nil)
        #expect(DBusWireReader.with([9, 0, 0, 0, 1, 2]) { $0.array(elementAlignment: 1) } == nil)
        #expect(DBusWireReader.with([3, 0x61]) { $0.signature() } == nil)
        #expect(DBusWireReader.with([1]) { $0.uint16() } == nil)
        #expect(DBusWireReader.with([1, 2]) { w -> [UInt8]? in _ = w.uint8(); return w.bytes(2) } == nil)
        #expect(DBusWireReader.with([]) { $0.uint8() } == nil)
        #expect(DBusWireReader.with([2, 0, 0, 0, 0x68, 0x69, 0]) { w in w.string().map { String(decoding: $0, as: UTF8.self) } } == "hi")
    }

    /// Alignment counts from the start of the body; a big-endian message reads the same.
    @Test func alignsAndReadsBothByteOrders() {
        let little: (UInt8?, UInt16?, UInt32?) = DBusWireReader.with([7, 0, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12]) { w in
            (w.uint8(), w.uint16(), w.uint32())
        }
        #expect(little.0 == 7 && little.1 == 0x1234 && little.2 == 0x1234_5678)
        let big: (UInt8?, UInt16?, UInt32?) = DBusWireReader.with([7, 0, 0x12, 0x34, 0x12, 0x34, 0x56, 0x78], bigEndian: true) { w in
            (w.uint8(), w.uint16(), w.uint32())
        }
        #expect(big.0 == 7 && big.1 == 0x1234 && big.2 == 0x1234_5678)
        // An empty array of 8-aligned elements still has its padding.
        #expect(DBusWireReader.with([0, 0, 0, 0, 0xEE, 0xEE, 0xEE, 0xEE]) { w -> Int? in
            guard let end = w.array(elementAlignment: 8) else { return nil }
            return end == w.offset ? end : nil
        } == 8)
    }
}
