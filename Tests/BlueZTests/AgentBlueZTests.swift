import TestSupport
import Testing
@testable import Explorer
@testable import DBus
@testable import BlueZ

/// The pairing agent on a real (private) dbus-daemon: a fake org.bluez sees it registered
/// and made default, calls its methods as bluetoothd does, and gets the answers the
/// reducer gave (through the keymap, as a user would) as deferred method replies.
@MainActor
@Suite("BlueZ pairing agent against a fake org.bluez on a private bus", .serialized)
final class AgentBlueZTests {
    static let dev = "/org/bluez/hci0/dev_C4_7A_0E_51_3B_D9"
    static let id = PeripheralID("C4:7A:0E:51:3B:D9")
    static let agent = "/org/bleexplr/agent"

    let bus: PrivateBus
    let loop = EventLoop()
    var bluez: DBusConnection
    let client: DBusConnection
    let backend: BlueZBackend
    var calls: [DBusMethodCall] = []
    var state = AppState(now: Timestamp(1_780_000_000))

    init() throws {
        bus = try PrivateBus()
        bluez = try DBusConnection.open(address: bus.address, loop: loop)
        client = try DBusConnection.open(address: bus.address, loop: loop)
        backend = BlueZBackend(bus: client, options: .init(agent: .displayYesNo))
        try becomeBlueZ(bluez)
        backend.start(loop: loop) { [unowned self] e, at in
            // The app's own loop: the reducer decides, its effects go back to the backend.
            for case let .backend(command) in Reducer.reduce(&state, .backend(e, at: at)) { backend.execute(command) }
        }
        #expect(loop.run(until: { self.calls.contains { $0.member == "RequestDefaultAgent" } }, timeout: 5))
    }

    func becomeBlueZ(_ c: DBusConnection) throws {
        c.exportHandler { [unowned self] call in
            calls.append(call)
            if call.member == "GetManagedObjects" {
                return .values([BlueZBackendTests.tree([
                    "/org/bluez/hci0": BlueZBackendTests.adapter,
                    Self.dev: ["org.bluez.Device1": ["Address": .string(Self.id.rawValue), "Name": .string("Lock \u{1B}[2J"),
                                                     "AddressType": .string("random"), "Paired": .bool(false)]],
                ])])
            }
            return .values([])
        }
        var owned: Result<UInt32, DBusError>?
        c.requestName("org.bluez") { owned = $0 }
        #expect(loop.run(until: { owned != nil }, timeout: 5))
    }

    /// bluetoothd calls our agent; the result is the method reply it gets.
    func ask(_ member: String, _ args: [DBusValue], from c: DBusConnection? = nil) -> () -> Result<[DBusValue], DBusError>? {
        var result: Result<[DBusValue], DBusError>?
        (c ?? bluez).call(DBusCall(destination: client.uniqueName, path: Self.agent, interface: "org.bluez.Agent1",
                                   member: member, args: args), timeout: 5) { result = $0 }
        return { result }
    }

    func press(_ keys: Key...) {
        for k in keys {
            guard let a = Keymap.action(for: k, in: state) else { continue }
            for case let .backend(command) in Reducer.reduce(&state, a) { backend.execute(command) }
        }
    }

    @Test func registeredWithTheCapabilityAndMadeDefault() throws {
        let register = try #require(calls.first { $0.member == "RegisterAgent" })
        #expect(register.path == "/org/bluez" && register.interface == "org.bluez.AgentManager1")
        #expect(register.args == [.objectPath(Self.agent), .string("DisplayYesNo")])
        #expect(calls.first { $0.member == "RequestDefaultAgent" }?.args == [.objectPath(Self.agent)])
        // The device's pairing facts came with the snapshot.
        #expect(state.peripherals[Self.id]?.bond == Bond(addressType: "random"))
    }

    @Test func requestPasskeyGetsWhatWasTyped() {
        let reply = ask("RequestPasskey", [.objectPath(Self.dev)])
        #expect(loop.run(until: { self.state.agentPrompt != nil }, timeout: 5))
        #expect(state.agentPrompt?.request.kind == .passkey)
        #expect(reply() == nil)   // deferred: BlueZ waits, the loop does not
        press(.char("0"), .char("4"), .char("2"), .char("4"), .char("2"), .char("4"), .enter)
        #expect(loop.run(until: { reply() != nil }, timeout: 5))
        #expect(reply() == .success([.uint32(42_424)]))
    }

    @Test func requestConfirmationYesAndNo() {
        var reply = ask("RequestConfirmation", [.objectPath(Self.dev), .uint32(123_456)])
        #expect(loop.run(until: { self.state.agentPrompt != nil }, timeout: 5))
        #expect(state.agentPrompt?.request.kind == .confirmation(123_456))
        press(.char("y"))
        #expect(loop.run(until: { reply() != nil }, timeout: 5))
        #expect(reply() == .success([]))
        reply = ask("RequestConfirmation", [.objectPath(Self.dev), .uint32(7)])
        #expect(loop.run(until: { self.state.agentPrompt != nil }, timeout: 5))
        press(.char("n"))
        #expect(loop.run(until: { reply() != nil }, timeout: 5))
        #expect(reply() == .failure(DBusError(name: "org.bluez.Error.Rejected", message: "refused by the user")))
    }

    @Test func headlessWithoutAnAnswerIsRejected() {
        state.job = JobState(job: .pair(address: Self.id.rawValue))
        let reply = ask("RequestPasskey", [.objectPath(Self.dev)])
        #expect(loop.run(until: { reply() != nil }, timeout: 5))
        guard case let .failure(e)? = reply() else { Issue.record("not rejected: \(String(describing: reply()))"); return }
        #expect(e.name == "org.bluez.Error.Rejected")
        #expect(e.message.contains("give --passkey N"))
        // --passkey answers it.
        state.agent.passkey = 246_810
        let answered = ask("RequestPasskey", [.objectPath(Self.dev)])
        #expect(loop.run(until: { answered() != nil }, timeout: 5))
        #expect(answered() == .success([.uint32(246_810)]))
    }

    @Test func cancelTakesThePromptAway() {
        _ = ask("RequestPasskey", [.objectPath(Self.dev)])
        #expect(loop.run(until: { self.state.agentPrompt != nil }, timeout: 5))
        let cancel = ask("Cancel", [])
        #expect(loop.run(until: { cancel() != nil }, timeout: 5))
        #expect(cancel() == .success([]))
        #expect(state.agentPrompt == nil)
        #expect(state.alert?.message.hasSuffix("cancelled") == true)
    }

    @Test func displayPasskeyIsAnsweredAtOnceAndShown() {
        let reply = ask("DisplayPasskey", [.objectPath(Self.dev), .uint32(1234), .uint16(2)])
        #expect(loop.run(until: { reply() != nil }, timeout: 5))
        #expect(reply() == .success([]))
        #expect(state.agentPrompt?.request.kind == .displayPasskey(1234, entered: 2))
    }

    @Test func registeredAgainWhenBluetoothdRestartsAndUnregisteredAtExit() throws {
        let before = calls.filter { $0.member == "RegisterAgent" }.count
        bluez.close()   // bluetoothd exits: its name goes
        let restarted = try DBusConnection.open(address: bus.address, loop: loop)
        bluez = restarted
        try becomeBlueZ(restarted)
        #expect(loop.run(until: { self.calls.filter { $0.member == "RegisterAgent" }.count == before + 1 }, timeout: 5))
        #expect(loop.run(until: { self.calls.filter { $0.member == "RequestDefaultAgent" }.count == 2 }, timeout: 5))
        backend.shutdown()
        #expect(loop.run(until: { self.calls.contains { $0.member == "UnregisterAgent" } }, timeout: 5))
        #expect(calls.last { $0.member == "UnregisterAgent" }?.args == [.objectPath(Self.agent)])
    }

    @Test func onlyBluetoothdMayAsk() throws {
        // Once a signal from org.bluez has told its owner, a stranger's call is refused.
        try bluez.emitSignal(path: "/org/bluez/hci0", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                             args: [.string("org.bluez.Adapter1"), .vardict(["Discovering": .bool(false)]), .array(element: "s", [])])
        #expect(loop.run(until: { self.backend.bluezOwner == self.bluez.uniqueName }, timeout: 5))
        let stranger = try DBusConnection.open(address: bus.address, loop: loop)
        let reply = ask("RequestPasskey", [.objectPath(Self.dev)], from: stranger)
        #expect(loop.run(until: { reply() != nil }, timeout: 5))
        #expect(reply() == .failure(DBusError(name: "org.bluez.Error.Rejected", message: "not bluetoothd")))
        #expect(state.agentPrompt == nil)
    }

    @Test func pairTrustAndForgetAreDeviceAndAdapterCalls() {
        backend.execute(.pair(Self.id))
        backend.execute(.setTrusted(Self.id, true))
        backend.execute(.forget(Self.id))
        #expect(loop.run(until: { self.calls.contains { $0.member == "RemoveDevice" } }, timeout: 5))
        #expect(calls.contains { $0.member == "Pair" && $0.path == Self.dev && $0.interface == "org.bluez.Device1" })
        #expect(calls.contains { $0.member == "Set" && $0.args == [.string("org.bluez.Device1"), .string("Trusted"), .variant(.bool(true))] })
        #expect(calls.first { $0.member == "RemoveDevice" }?.args == [.objectPath(Self.dev)])
        #expect(loop.run(until: { self.state.peripherals[Self.id]?.bond.paired == true }, timeout: 5))
    }
}
