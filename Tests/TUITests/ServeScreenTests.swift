import Testing
@testable import Explorer
@testable import TUI

/// `serve` on a terminal: advertising state, centrals, subscriptions, latest requests.
@Suite("Peripheral screen")
struct ServeScreenTests {
    @Test func showsWhatCentralsDo() throws {
        let spec = try PeripheralSpec.parse(#"""
        {"name": "bx Thermo", "services": [{"uuid": "181A", "characteristics": [
          {"uuid": "2A6E", "properties": ["read", "notify"], "value": "3408"}]}]}
        """#)
        var s = ServeState(spec: spec, source: "thermo.json")
        let t0 = Timestamp(1_780_000_000)
        var lines = ServeScreen.render(s, width: 80, height: 24).lines()
        #expect(lines[0].contains("serving bx Thermo"))
        #expect(lines[2].contains("Advertising  registering…"))
        #expect(lines.contains { $0.contains("none has asked yet") })
        let c = CharacteristicEvent(uuid: "2A6E", path: "/p/service0/char0", central: "F0:F1:F2:F3:F4:00")
        s.apply(.registered(adapter: "hci7"), at: t0)
        s.apply(.read(c, offset: 0, bytes: [0x34, 0x08]), at: t0 + 1)
        s.apply(.subscribed(CharacteristicEvent(uuid: "2A6E", path: "/p/service0/char0", central: nil)), at: t0 + 2)
        lines = ServeScreen.render(s, width: 80, height: 24).lines()
        #expect(lines[2].contains("advertising on hci7"))
        #expect(lines[4].contains("F0:F1:F2:F3:F4:00"))
        #expect(lines.contains { $0.contains("2A6E  Temperature") && $0.contains("● subscribed") })
        let reqs = lines.filter { $0.contains("20:26:4") }
        #expect(reqs.count == 3)
        #expect(reqs[0].contains("subscribed  2A6E"))           // newest first
        #expect(reqs[1].contains("read  2A6E  by F0:F1:F2:F3:F4:00  34 08"))
        #expect(lines[23].hasPrefix(" 1 subscription · 1 central · 3 events"))
        s.apply(.bluezGone, at: t0 + 3)
        #expect(s.subscriptions.isEmpty)
        #expect(ServeScreen.render(s, width: 80, height: 24).lines()[2].contains("bluetoothd is gone"))
    }
}
