import TestSupport
import Foundation
import Synchronization
import Testing
import Explorer
@testable import DBus

/// A client and an exported peer service, both DBusConnection, on a private
/// dbus-daemon, driven by one EventLoop as the app drives them.
@MainActor
@Suite("D-Bus against a private dbus-daemon", .serialized)
final class BusIntegrationTests {
    let bus: PrivateBus
    let loop = EventLoop()
    let service: DBusConnection
    let client: DBusConnection
    var received: [DBusMethodCall] = []
    static let peer = "org.example.Peer"

    init() throws {
        bus = try PrivateBus()
        service = try DBusConnection.open(address: bus.address, loop: loop)
        client = try DBusConnection.open(address: bus.address, loop: loop)
        service.exportHandler { [unowned self] call in
            received.append(call)
            switch call.member {
            case "Echo": return .values(call.args)
            case "Fail": return .error(DBusError(name: "org.example.Error.Nope", message: "not today"))
            case "Hang": return .deferred
            default: return nil
            }
        }
        var owned: Result<UInt32, DBusError>?
        service.requestName(Self.peer) { owned = $0 }
        #expect(loop.run(until: { owned != nil }, timeout: 5))
        #expect(owned == .success(1))
    }

    private func call(_ member: String, _ args: [DBusValue] = [], timeout: Double = 5,
                      path: String = "/org/example") -> Result<[DBusValue], DBusError>? {
        var result: Result<[DBusValue], DBusError>?
        client.call(DBusCall(destination: Self.peer, path: path, interface: "org.example.Test",
                             member: member, args: args), timeout: timeout) { result = $0 }
        loop.run(until: { result != nil }, timeout: timeout + 5)
        return result
    }

    @Test func uniqueNames() {
        #expect(service.uniqueName.hasPrefix(":"))
        #expect(client.uniqueName.hasPrefix(":"))
        #expect(service.uniqueName != client.uniqueName)
    }

    @Test func everyTypeRoundTripsThroughThePeer() throws {
        let big = (0..<65_536).map { UInt8(truncatingIfNeeded: $0) }
        let args: [DBusValue] = MarshalTests.basics + [
            .variant(.variant(.uint16(3))), .bytes([]), .bytes(big),
            .array(element: "s", []), .array(element: "(ias)", [.structure([.int32(1), .array(element: "s", [.string("x")])])]),
            .dict(key: "s", value: "v", []),
            .dict(key: "o", value: "a{sa{sv}}", [DBusDictEntry(.objectPath("/org/bluez/hci0"), .dict(key: "s", value: "a{sv}", [
                DBusDictEntry(.string("org.bluez.Adapter1"), .vardict(["Powered": .bool(true), "Address": .string("00:AA")]))]))]),
        ]
        let reply = call("Echo", args)
        #expect(reply == .success(args))
        #expect(received.last?.args == args)
        #expect(received.last?.sender == client.uniqueName)
        #expect(received.last?.interface == "org.example.Test")
        #expect(received.last?.path == "/org/example")
    }

    /// A file descriptor crosses a Unix socket bus (AcquireNotify's socket): the peer gets
    /// one of its own for the same socket, owned by the DBusFD it read.
    @Test func aFileDescriptorCrossesTheBus() throws {
        #expect(client.canPassFileDescriptors)
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0)
        defer { close(pair[0]) }
        let reply = call("Echo", [.unixFD(DBusFD(owning: pair[1])), .uint16(185)])
        guard case let .success(values)? = reply, values.count == 2, let fd = values[0].fd else {
            Issue.record("\(String(describing: reply))"); return
        }
        #expect(values[1] == .uint16(185))
        let theirs = fd.take()
        defer { close(theirs) }
        #expect(theirs >= 0 && theirs != pair[1])
        #expect(send(pair[0], "hi", 2, 0) == 2)
        var b = [UInt8](repeating: 0, count: 8)
        #expect(recv(theirs, &b, 8, 0) == 2 && b[0] == UInt8(ascii: "h"))
    }

    @Test func errorReplyHasNameAndMessage() {
        #expect(call("Fail") == .failure(DBusError(name: "org.example.Error.Nope", message: "not today")))
    }

    @Test func unknownMethodIsAnErrorReply() {
        guard case let .failure(error)? = call("NoSuchMethod") else { Issue.record("no error"); return }
        #expect(error.name == "org.freedesktop.DBus.Error.UnknownMethod")
    }

    @Test func callToANameNobodyOwnsFails() {
        var result: Result<[DBusValue], DBusError>?
        client.call(DBusCall(destination: "org.example.Nobody", path: "/", interface: "org.example.Test", member: "M"),
                    timeout: 5) { result = $0 }
        loop.run(until: { result != nil }, timeout: 5)
        guard case let .failure(error)? = result else { Issue.record("no error: \(String(describing: result))"); return }
        #expect(error.name == "org.freedesktop.DBus.Error.ServiceUnknown")
    }

    @Test func silentPeerTimesOutWithNoReply() {
        let start = monotonicSeconds()
        let result = call("Hang", timeout: 0.5)
        let elapsed = monotonicSeconds() - start
        guard case let .failure(error)? = result else { Issue.record("no timeout: \(String(describing: result))"); return }
        #expect(error.name == DBusError.noReply("").name)
        #expect(elapsed >= 0.45 && elapsed < 2, "timed out after \(elapsed) s")
    }

    @Test func deferredReplyArrivesLater() throws {
        var result: Result<[DBusValue], DBusError>?
        client.call(DBusCall(destination: Self.peer, path: "/org/example", interface: "org.example.Test", member: "Hang"),
                    timeout: 5) { result = $0 }
        loop.run(until: { self.received.last?.member == "Hang" }, timeout: 5)
        let pending = try #require(received.last)
        try service.reply(to: pending, with: .values([.string("late")]))
        loop.run(until: { result != nil }, timeout: 5)
        #expect(result == .success([.string("late")]))
    }

    @Test func invalidCallFailsAsynchronouslyWithoutSending() {
        var result: Result<[DBusValue], DBusError>?
        client.call(DBusCall(destination: Self.peer, path: "not/a/path", interface: "org.example.Test", member: "Echo"),
                    timeout: 5) { result = $0 }
        #expect(result == nil)  // never from inside call()
        loop.run(until: { result != nil }, timeout: 5)
        guard case let .failure(error)? = result else { Issue.record("no error"); return }
        #expect(error.name == DBusError.invalidArgs("").name)
        #expect(received.isEmpty)
        #expect(throws: DBusError.self) { try self.service.emitSignal(path: "/ok", interface: "bad", member: "M") }
    }

    @Test func matchRuleDeliversSignals() throws {
        var signals: [DBusSignal] = []
        client.signalHandler = { signals.append($0) }
        var matched: DBusError?? = .none
        client.addMatch("type='signal',interface='org.example.Test',member='Changed'") { matched = .some($0) }
        loop.run(until: { matched != nil }, timeout: 5)
        #expect(matched == .some(nil))
        try service.emitSignal(path: "/org/example/thing", interface: "org.example.Test", member: "Other", args: [.int32(0)])
        try service.emitSignal(path: "/org/example/thing", interface: "org.example.Test", member: "Changed",
                               args: [.string("RSSI"), .variant(.int16(-42))])
        loop.run(until: { !signals.isEmpty }, timeout: 5)
        #expect(signals == [DBusSignal(sender: service.uniqueName, path: "/org/example/thing", interface: "org.example.Test",
                                       member: "Changed", args: [.string("RSSI"), .variant(.int16(-42))])])
    }

    /// The fast handler sees each signal first, reads its body in place and keeps what it
    /// handles; the rest reach signalHandler as values. Replies keep their place among
    /// signals (signals skip libdbus's dispatch, replies go through it).
    @Test func fastSignalHandlerReadsInPlaceAndKeepsOrder() throws {
        var order: [String] = []
        client.fastSignalHandler = { raw in
            guard raw.isMember("Changed"), raw.isInterface("org.example.Test"), raw.hasSignature("svay"),
                  let (rssi, bytes) = raw.withBody({ w -> (Int16, [UInt8])? in
                      guard let key = w.string(), DBusWireReader.same(key, "RSSI"), let t = w.signature(),
                            DBusWireReader.same(t, "n"), let rssi = w.int16(), let end = w.array(elementAlignment: 1),
                            let bytes = w.bytes(end - w.offset), w.atEnd else { return nil }
                      return (rssi, bytes)
                  }) else { return false }
            order.append("fast \(String(cString: raw.path)) \(rssi) \(bytes)")
            return true
        }
        client.signalHandler = { order.append("slow \($0.member) \($0.args)") }
        var matched: DBusError?? = .none
        client.addMatch("type='signal',interface='org.example.Test'") { matched = .some($0) }
        loop.run(until: { matched != nil }, timeout: 5)
        try service.emitSignal(path: "/org/example/a", interface: "org.example.Test", member: "Changed",
                               args: [.string("RSSI"), .variant(.int16(-42)), .bytes([1, 2])])
        try service.emitSignal(path: "/org/example/a", interface: "org.example.Test", member: "Changed",
                               args: [.string("RSSI"), .variant(.int32(-42)), .bytes([])])   // odd type: slow
        client.call(DBusCall(destination: Self.peer, path: "/org/example", interface: "org.example.Test",
                             member: "Echo", args: [.uint16(7)]), timeout: 5) { order.append("reply \($0)") }
        loop.run(until: { self.received.count == 1 }, timeout: 5)
        try service.emitSignal(path: "/org/example/b", interface: "org.example.Test", member: "Other", args: [])
        try service.emitSignal(path: "/org/example/b", interface: "org.example.Test", member: "Changed",
                               args: [.string("RSSI"), .variant(.int16(-7)), .bytes([3])])
        loop.run(until: { order.count == 5 }, timeout: 5)
        #expect(order == [
            "fast /org/example/a -42 [1, 2]",
            "slow Changed [DBus.DBusValue.string(\"RSSI\"), DBus.DBusValue.variant(DBus.DBusValue.int32(-42)), DBus.DBusValue.bytes([])]",
            "reply success([DBus.DBusValue.uint16(7)])",
            "slow Other []",
            "fast /org/example/b -7 [3]",
        ])
    }

    /// A burst longer than a run (the loop binding hands signals on 64 at a time): every
    /// one arrives, in order, and the end of each run is announced after its signals.
    @Test func aBurstArrivesWholeAndInOrder() throws {
        var seen: [Int16] = []
        var runsEndedAt: [Int] = []
        client.fastSignalHandler = { raw in
            guard raw.isMember("Changed"), let n = raw.withBody({ w -> Int16? in
                guard let key = w.string(), DBusWireReader.same(key, "N"), let t = w.signature(), DBusWireReader.same(t, "n") else {
                    return nil
                }
                return w.int16()
            }) else { return false }
            seen.append(n)
            return true
        }
        client.signalsDispatched = { runsEndedAt.append(seen.count) }
        var matched: DBusError?? = .none
        client.addMatch("type='signal',interface='org.example.Test'") { matched = .some($0) }
        loop.run(until: { matched != nil }, timeout: 5)
        for n in 0..<150 {
            try service.emitSignal(path: "/org/example/a", interface: "org.example.Test", member: "Changed",
                                   args: [.string("N"), .variant(.int16(Int16(n)))])
        }
        loop.run(until: { seen.count == 150 }, timeout: 5)
        #expect(seen == (0..<150).map(Int16.init))
        #expect(runsEndedAt.last == 150)
        #expect(runsEndedAt == runsEndedAt.sorted() && !runsEndedAt.contains(0))
    }

    @Test func badMatchRuleIsAnError() {
        var matched: DBusError?? = .none
        client.addMatch("type='nonsense'") { matched = .some($0) }
        loop.run(until: { matched != nil }, timeout: 5)
        #expect(matched??.name == "org.freedesktop.DBus.Error.MatchRuleInvalid")
    }

    @Test func lostBusCallsDisconnectHandlerOnceAndFailsPendingCalls() {
        var disconnects = 0
        client.disconnectHandler = { disconnects += 1 }
        var result: Result<[DBusValue], DBusError>?
        client.call(DBusCall(destination: Self.peer, path: "/org/example", interface: "org.example.Test", member: "Hang"),
                    timeout: 30) { result = $0 }
        loop.run(until: { self.received.last?.member == "Hang" }, timeout: 5)
        bus.kill()
        loop.run(until: { disconnects > 0 && result != nil }, timeout: 5)
        #expect(disconnects == 1)
        guard case let .failure(error)? = result else { Issue.record("pending call not failed"); return }
        #expect(error.name == DBusError.disconnected("").name)
        #expect(!client.isConnected)
        // Afterwards: calls fail, nothing crashes, the handler is not called again.
        var after: Result<[DBusValue], DBusError>?
        client.call(DBusCall(destination: Self.peer, path: "/", interface: "org.example.Test", member: "Echo"),
                    timeout: 1) { after = $0 }
        loop.run(until: { after != nil }, timeout: 5)
        #expect(after == .failure(.disconnected("not connected to the bus")))
        #expect(throws: DBusError.self) { try self.client.emitSignal(path: "/", interface: "org.example.Test", member: "M") }
        loop.run(until: { false }, timeout: 0.2)
        #expect(disconnects == 1)
    }
}

@MainActor
@Suite("D-Bus connection failures")
struct DBusOpenTests {
    @Test func unreachableAddressThrows() {
        #expect(throws: DBusError.self) {
            _ = try DBusConnection.open(address: "unix:path=/nonexistent/bleexplr-no-bus", loop: EventLoop())
        }
        #expect(throws: DBusError.self) { _ = try DBusConnection.open(address: "not an address", loop: EventLoop()) }
        #expect(throws: DBusError.self) { _ = try DBusConnection.open(address: "unix:path=/a\u{0}b", loop: EventLoop()) }
    }

    /// nil means the system bus, found the way libdbus finds it: DBUS_SYSTEM_BUS_ADDRESS.
    @Test func systemBusHonoursTheEnvironment() throws {
        let bus = try PrivateBus()
        let loop = EventLoop()
        // Set only while connecting, with no child being spawned meanwhile (environmentLock).
        let conn = try environmentLock.withLock { _ in
            setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)
            defer { unsetenv("DBUS_SYSTEM_BUS_ADDRESS") }
            return try DBusConnection.open(address: nil, loop: loop)
        }
        var reply: Result<[DBusValue], DBusError>?
        conn.call(DBusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                           interface: "org.freedesktop.DBus", member: "GetNameOwner", args: [.string(conn.uniqueName)]),
                  timeout: 5) { reply = $0 }
        loop.run(until: { reply != nil }, timeout: 5)
        #expect(reply == .success([.string(conn.uniqueName)]))
        // dbus_bus_get_private turned exit-on-disconnect on; we turned it off, so this
        // process survives the bus going away.
        var lost = false
        conn.disconnectHandler = { lost = true }
        bus.kill()
        #expect(loop.run(until: { lost }, timeout: 5))
    }
}
