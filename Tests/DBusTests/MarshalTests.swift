import Testing
@testable import DBus

/// Values through a real DBusMessage: appended, serialized to wire bytes with
/// dbus_message_marshal, parsed back with dbus_message_demarshal, read.
@Suite("D-Bus marshalling")
struct MarshalTests {
    static let basics: [DBusValue] = [
        .byte(0), .byte(255), .bool(true), .bool(false),
        .int16(.min), .int16(.max), .uint16(.max), .int32(.min), .int32(-1), .uint32(.max),
        .int64(.min), .int64(.max), .uint64(.max), .double(-1.5), .double(.infinity),
        .string(""), .string("héllo ✓ 🦷"), .objectPath("/"), .objectPath("/org/bluez/hci0/dev_AA_BB"),
        .signature(""), .signature("a{sv}(iiay)"),
    ]

    @Test("every basic type round-trips", arguments: basics)
    func basic(_ v: DBusValue) throws {
        #expect(try DBusMarshal.roundTrip([v]) == [v])
    }

    @Test func allBasicsInOneMessage() throws {
        #expect(try DBusMarshal.roundTrip(Self.basics) == Self.basics)
    }

    @Test func emptyBody() throws {
        #expect(try DBusMarshal.roundTrip([]) == [])
    }

    @Test func nanSurvives() throws {
        let back = try DBusMarshal.roundTrip([.double(.nan)])
        guard case let .double(d) = back.first else { Issue.record("not a double: \(back)"); return }
        #expect(d.isNaN)
    }

    @Test func variants() throws {
        let vs: [DBusValue] = [.variant(.int32(7)), .variant(.variant(.string("deep"))),
                               .variant(.bytes([1, 2])), .variant(.array(element: "s", []))]
        #expect(try DBusMarshal.roundTrip(vs) == vs)
    }

    @Test func byteArrays() throws {
        let big = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(try DBusMarshal.roundTrip([.bytes([])]) == [.bytes([])])
        #expect(try DBusMarshal.roundTrip([.bytes([0, 1, 0xff])]) == [.bytes([0, 1, 0xff])])
        #expect(try DBusMarshal.roundTrip([.bytes(big)]) == [.bytes(big)])
        // `ay` always reads back as .bytes, however it was built.
        #expect(try DBusMarshal.roundTrip([.array(element: "y", [.byte(9)])]) == [.bytes([9])])
    }

    @Test func emptyContainersKeepTheirType() throws {
        let vs: [DBusValue] = [
            .array(element: "s", []), .array(element: "(ib)", []), .array(element: "aas", []),
            .dict(key: "s", value: "v", []), .dict(key: "o", value: "a{sa{sv}}", []),
            .variant(.dict(key: "q", value: "ay", [])),
        ]
        let back = try DBusMarshal.roundTrip(vs)
        #expect(back == vs)
        #expect(back.map(\.signature) == ["as", "a(ib)", "aaas", "a{sv}", "a{oa{sa{sv}}}", "v"])
    }

    @Test func nestedContainers() throws {
        // GetManagedObjects' shape: a{oa{sa{sv}}}.
        let props = DBusValue.vardict(["Address": .string("AA:BB"), "RSSI": .int16(-60),
                                       "UUIDs": .array(element: "s", [.string("180d")]),
                                       "ManufacturerData": .dict(key: "q", value: "v", [DBusDictEntry(.uint16(76), .variant(.bytes([2, 21])))])])
        let ifaces = DBusValue.dict(key: "s", value: "a{sv}", [DBusDictEntry(.string("org.bluez.Device1"), props)])
        let objects = DBusValue.dict(key: "o", value: "a{sa{sv}}", [DBusDictEntry(.objectPath("/org/bluez/hci0/dev_AA"), ifaces)])
        let structs = DBusValue.array(element: "(ias(yv))", [
            .structure([.int32(1), .array(element: "s", [.string("a"), .string("b")]), .structure([.byte(3), .variant(.bool(true))])]),
            .structure([.int32(2), .array(element: "s", []), .structure([.byte(4), .variant(.structure([.uint64(5), .double(0.25)]))])]),
        ])
        let nestedArrays = DBusValue.array(element: "aay", [.array(element: "ay", [.bytes([]), .bytes([1])]), .array(element: "ay", [])])
        let vs = [objects, structs, nestedArrays, .structure([.dict(key: "x", value: "t", [DBusDictEntry(.int64(-1), .uint64(1))])])]
        #expect(try DBusMarshal.roundTrip(vs) == vs)
    }

    @Test func invalidInputsThrowInsteadOfAborting() {
        let bad: [(String, DBusValue)] = [
            ("object path", .objectPath("no/leading/slash")),
            ("object path trailing slash", .objectPath("/a/")),
            ("empty object path", .objectPath("")),
            ("signature", .signature("a{")),
            ("signature with unknown type", .signature("z")),
            ("string with NUL", .string("a\u{0}b")),
            ("array element mismatch", .array(element: "s", [.int32(1)])),
            ("array element not a type", .array(element: "", [])),
            ("array element two types", .array(element: "ss", [])),
            ("array of dict entries", .array(element: "{sv}", [])),
            ("dict key not basic", .dict(key: "v", value: "s", [])),
            ("dict entry mismatch", .dict(key: "s", value: "v", [DBusDictEntry(.string("k"), .string("not a variant"))])),
            ("empty struct", .structure([])),
            ("bad path inside a variant", .variant(.objectPath("//"))),
            ("bad path deep inside", .array(element: "(o)", [.structure([.objectPath("x")])])),
            ("too deep", (0..<40).reduce(DBusValue.int32(0)) { v, _ in .array(element: v.signature, [v]) }),
        ]
        for (what, v) in bad {
            #expect(throws: DBusError.self, "\(what)") { try DBusMarshal.roundTrip([v]) }
        }
        // The error says what was wrong, under the agreed name.
        do {
            _ = try DBusMarshal.roundTrip([.objectPath("x")])
            Issue.record("no error")
        } catch {
            #expect(error.name == "org.freedesktop.DBus.Error.InvalidArgs")
            #expect(error.message.contains("object path"))
        }
    }

    @Test func bodySignatureLimit() {
        // 256 int32 arguments: a body signature longer than D-Bus allows (255).
        let many = [DBusValue](repeating: .int32(1), count: 256)
        #expect(throws: DBusError.self) { try DBusMarshal.roundTrip(many) }
    }

    @Test func invalidCallHeaders() {
        let calls = [
            DBusCall(destination: "org.example.Peer", path: "bad path", interface: "org.example.I", member: "M"),
            DBusCall(destination: "org.example.Peer", path: "/ok", interface: "noDots", member: "M"),
            DBusCall(destination: "org.example.Peer", path: "/ok", interface: "org.example.I", member: "Bad.Member"),
            DBusCall(destination: "org.example.Peer", path: "/ok", interface: "org.example.I", member: ""),
            DBusCall(destination: "not a bus name", path: "/ok", interface: "org.example.I", member: "M"),
            DBusCall(destination: "org.example.Peer", path: "/ok\u{0}", interface: "org.example.I", member: "M"),
            DBusCall(destination: "org.example.Peer", path: "/ok", interface: "org.example.I", member: "M", args: [.objectPath("")]),
        ]
        for c in calls {
            #expect(throws: DBusError.self, "\(c)") { _ = try DBusMessageRef.methodCall(c) }
        }
        #expect(throws: Never.self) {
            _ = try DBusMessageRef.methodCall(DBusCall(destination: ":1.42", path: "/ok", interface: "org.example.I", member: "M"))
        }
    }

    @Test func errorReplies() throws {
        let msg = try DBusMessageRef.reply(toSerial: 7, destination: ":1.5",
                                           .error(DBusError(name: "org.bluez.Error.NotPermitted", message: "Read not permitted")))
        #expect(msg.asError == DBusError(name: "org.bluez.Error.NotPermitted", message: "Read not permitted"))
        #expect(throws: DBusError.self) {
            _ = try DBusMessageRef.reply(toSerial: 7, destination: nil, .error(DBusError(name: "NoDots", message: "")))
        }
    }
}
