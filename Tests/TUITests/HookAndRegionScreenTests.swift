import Testing
@testable import Explorer
@testable import TUI

/// `a` on a characteristic screen (an action on each notification) and `b` (regions).
@Suite("Hooks and regions on screen, 80x24")
struct HookAndRegionScreenTests {
    typealias T = ScreenTests
    static let porchUUID: BLEUUID = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"

    static func onCharacteristic() -> AppState {
        var s = T.connected()
        s.route = .characteristic(T.hrm, T.hrmChar)
        return s
    }

    static func type(_ s: inout AppState, _ text: String) -> [Effect] {
        _ = Reducer.reduce(&s, .inputEdited(.clear))
        _ = Reducer.reduce(&s, .inputEdited(.insert(text)))
        return Reducer.reduce(&s, .inputSubmitted)
    }

    @Test func attachingAHookSubscribesAndEachNotificationFiresIt() {
        var s = Self.onCharacteristic()
        #expect(Keymap.action(for: .char("a"), in: s) == .hookStarted)
        _ = Reducer.reduce(&s, .hookStarted)
        _ = Reducer.reduce(&s, .inputEdited(.insert("exec ./on-press")))
        #expect(T.render(s)[22] == "hook (exec CMD · post URL · off): exec ./on-press▏")
        let effects = Reducer.reduce(&s, .inputSubmitted)
        #expect(effects == [.attachHook(T.hrmChar, .exec(command: "./on-press")), .backend(.setNotify(T.hrm, T.hrmChar, true))])
        #expect(s.input == nil && s.alert?.message == "Hook attached: exec ./on-press, on each notification")

        _ = Reducer.reduce(&s, .backend(.notifyChanged(T.hrmChar, enabled: true, nil), at: T.t0 + 5))
        let fired = Reducer.reduce(&s, .backend(.valueNotified(T.hrmChar, [0x06, 72]), at: T.t0 + 6))
        #expect(fired == [.fireHook(T.hrmChar, FiredEvent(at: T.t0 + 6, address: "E4:1C:22:5D:90:11", uuid: "2A37", bytes: [0x06, 72]))])
        _ = Reducer.reduce(&s, .hookReported(.queued(seq: 1, pending: 1), for: T.hrmChar))
        _ = Reducer.reduce(&s, .hookReported(.delivered(seq: 1, attempt: 1, detail: "exit 0"), for: T.hrmChar))
        let lines = T.render(s)
        #expect(lines[9] == " Hook     ↯ exec ./on-press  1 fired, 1 delivered · #1 delivered: exit 0")
        #expect(lines[22] == "Hook #1 delivered: exit 0")
        #expect(lines[23].contains("↯1 fired"))
    }

    @Test func aBadLineStaysOpenAndOffDetaches() {
        var s = Self.onCharacteristic()
        _ = Reducer.reduce(&s, .hookStarted)
        #expect(Self.type(&s, "run it").isEmpty)
        #expect(s.input != nil && s.alert?.level == .error && s.alert?.message == "type 'exec COMMAND' or 'post URL'")
        #expect(Self.type(&s, "post ftp://example.com/").isEmpty)
        #expect(s.input != nil && s.alert?.level == .error)
        let attached = Self.type(&s, "post http://127.0.0.1:8080/press")
        guard case .attachHook(T.hrmChar, .post(let h)?)? = attached.first else { Issue.record("\(attached)"); return }
        #expect(h.url == "http://127.0.0.1:8080/press")
        // `a` again opens empty, with what is attached as a hint; "off" (typed as the
        // README says) detaches, and says so.
        _ = Reducer.reduce(&s, .hookStarted)
        #expect(s.input?.text == "")
        #expect(T.render(s)[22] == "hook (exec CMD · post URL · off): ▏  now: post http://127.0.0.1:8080/press")
        _ = Reducer.reduce(&s, .inputEdited(.insert("off")))
        #expect(T.render(s)[22] == "hook (exec CMD · post URL · off): off▏")
        #expect(Reducer.reduce(&s, .inputSubmitted) == [.attachHook(T.hrmChar, nil)])
        #expect(s.attachedHooks.isEmpty && s.alert?.message == "Hook detached")
        #expect(!T.render(s)[9].contains("Action"))
        // Notifications no longer fire anything.
        #expect(Reducer.reduce(&s, .backend(.valueNotified(T.hrmChar, [0x06, 70]), at: T.t0 + 9)).isEmpty)
    }

    @Test func aHookThatCannotBeSetUpIsTakenBackWithTheReason() {
        var s = Self.onCharacteristic()
        _ = Reducer.reduce(&s, .hookStarted)
        _ = Self.type(&s, "exec true")
        _ = Reducer.reduce(&s, .hookAttachFailed(T.hrmChar, "no value for ${TOKEN}"))
        #expect(s.attachedHooks.isEmpty)
        #expect(s.alert?.level == .error && s.alert?.message == "Hook not attached: no value for ${TOKEN}")
        #expect(Reducer.reduce(&s, .backend(.valueNotified(T.hrmChar, [0x06, 70]), at: T.t0 + 9)).isEmpty)
    }

    static func porch(rssi: [(Double, Int)]) -> AppState {
        var s = T.state()
        s.regionWatch = RegionWatch(regions: [Region(name: "Porch", uuid: porchUUID, major: 7),
                                             Region(name: "Office", uuid: porchUUID, major: 9)],
                                   config: RegionConfig(exitAfter: 10))
        for (dt, r) in rssi {
            let beacon: Bytes = [0x02, 0x15] + DemoCatalog.uuidBytes(porchUUID) + [0x00, 0x07, 0x00, 0x01, 0xC5]
            _ = Reducer.reduce(&s, .backend(.advertisementReceived(AdvertisementReport(
                id: PeripheralID("7C:9E:BD:4F:10:77"), address: "7C:9E:BD:4F:10:77", name: nil, rssi: r, connectable: false,
                advertisement: Advertisement(manufacturerData: [0x004C: beacon]))), at: T.t0 + dt))
        }
        return s
    }

    @Test func regionsScreen() {
        var s = Self.porch(rssi: [(4, -70), (6, -80), (8, -90)])
        #expect(Keymap.action(for: .char("b"), in: s) == .regionsRequested)
        _ = Reducer.reduce(&s, .regionsRequested)
        _ = Reducer.reduce(&s, .tick(T.t0 + 9))
        let lines = T.render(s)
        T.expectLines(Array(lines.prefix(14)), [
            " bleexplr │ Scan › Regions",
            " iBeacon regions     enter at ≥ -75 dBm · leave when nothing ≥ -85 dBm for 10 s",
            "",
            " ● Porch  INSIDE since 20:26:44.000 (5s)",
            "     B9407F30-F5F8-466E-AFF9-25556B57FE6D  major 7 · minor any",
            "     leaving in 7 s unless a beacon is heard at ≥ -85 dBm",
            "     7C:9E:BD:4F:10:77  7/1           -90 dBm  1s ago    below -85 dBm",
            "",
            " ○ Office  outside",
            "     B9407F30-F5F8-466E-AFF9-25556B57FE6D  major 9 · minor any",
            "     no beacon of this region heard",
            "",
            " TRANSITIONS newest first",
            " 20:26:44.000  enter   Porch             7C:9E:BD:4F:10:77  7/1  -70 dBm",
        ])
        #expect(lines[23].contains("⌂ Porch"))
        _ = Reducer.reduce(&s, .backRequested)
        #expect(s.route == .scan)
    }

    @Test func regionsScreenAfterLeavingAndWithNoRegions() {
        var s = Self.porch(rssi: [(4, -70)])
        s.route = .regions
        _ = Reducer.reduce(&s, .tick(T.t0 + 15))
        let lines = T.render(s)
        #expect(lines[3] == " ○ Porch  outside since 20:26:55.000 (0s)")
        #expect(lines[5] == "     7C:9E:BD:4F:10:77  7/1           -70 dBm  11s ago   not heard lately")
        #expect(lines[12] == " 20:26:55.000  exit    Porch             7C:9E:BD:4F:10:77  7/1  -70 dBm")
        #expect(lines[23].contains("⌂ outside"))
        var empty = T.state()
        empty.route = .regions
        let none = T.render(empty)
        #expect(none[3] == " No regions. Give some with --region NAME=UUID[:MAJOR[:MINOR]] (repeatable);")
        #expect(!none[23].contains("⌂"))
    }
}
