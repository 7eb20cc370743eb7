import Testing
@testable import Explorer
@testable import TUI

/// Screens render into a cell grid at a fixed size; tests compare its lines.
@Suite("Screens at 80x24")
struct ScreenTests {
    static let t0 = Timestamp(1_780_000_000)
    static let hrm = PeripheralID("E4:1C:22:5D:90:11")
    static let hrmChar = CharacteristicID("/sim/dev_E4_1C_22_5D_90_11/service000b/char000c")

    static func state() -> AppState {
        var s = AppState(now: t0)
        s.adapter = AdapterStatus(name: "sim0", power: .on, discovering: true)
        func add(_ addr: String, _ name: String?, _ rssi: Int, _ adv: Advertisement, connectable: Bool = true) {
            let id = PeripheralID(addr)
            _ = Reducer.reduce(&s, .backend(.advertisementReceived(AdvertisementReport(
                id: id, address: addr, name: name, rssi: rssi, connectable: connectable, advertisement: adv)), at: t0))
        }
        add("E4:1C:22:5D:90:11", "Demo HRM", -52, Advertisement(serviceUUIDs: ["180D", "180F"], manufacturerData: [0x0059: [1]]))
        add("FC:58:FA:1A:2B:3C", "Demo iTag", -61, Advertisement(serviceUUIDs: ["FFE0"], txPower: 0))
        let beacon: Bytes = [0x02, 0x15] + DemoCatalog.uuidBytes(DemoCatalog.iBeaconUUID) + [0, 1, 0, 42, 0xC5]
        add("6B:2E:91:3C:4D:5E", nil, -67, Advertisement(manufacturerData: [0x004C: beacon]), connectable: false)
        add("DE:AD:BE:EF:00:1B", DemoCatalog.evilName, -88, Advertisement())
        s.now = t0 + 3
        return s
    }

    static func render(_ s: AppState, _ w: Int = 80, _ h: Int = 24) -> [String] {
        Router.render(s, width: w, height: h).lines()
    }

    /// Compares line by line, printing a readable diff on failure.
    static func expectLines(_ got: [String], _ want: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for i in 0..<max(got.count, want.count) {
            let g = i < got.count ? got[i] : "<none>", w = i < want.count ? want[i] : "<none>"
            #expect(g == w, "line \(i)", sourceLocation: sourceLocation)
        }
    }

    /// The address's kind where BlueZ said public or random (the iTag: not said); paired and
    /// bonded both, as bluetoothd says them.
    @Test func scanList() {
        var s = Self.state()
        for (id, bond) in [("E4:1C:22:5D:90:11", Bond(paired: true, bonded: true, addressType: "public")),
                           ("6B:2E:91:3C:4D:5E", Bond(addressType: "random")), ("DE:AD:BE:EF:00:1B", Bond(addressType: "random"))] {
            _ = Reducer.reduce(&s, .backend(.bondChanged(PeripheralID(id), bond), at: Self.t0))
        }
        let lines = Self.render(s)
        Self.expectLines(Array(lines.prefix(7)), [
            " bleexplr │ Scan                                                       sort RSSI",
            "  NAME         ADDRESS           TYPE   RSSI       ADVERTISEMENT            AGE",
            "▶ Demo HRM     E4:1C:22:5D:90:11 public  -52 ████░ paired·bonded · Nordic…   3s",
            "  Demo iTag    FC:58:FA:1A:2B:3C         -61 ███░░ iTag Button · tx 0 dBm    3s",
            "  (unnamed)    6B:2E:91:3C:4D:5E RPA     -67 ███░░ iBeacon e2c56db5… 1/42…   3s",
            "  Evil␛[2J␛]0… DE:AD:BE:EF:00:1B static  -88 █░░░░                           3s",
            "",
        ])
        #expect(lines[22] == "Enter connect · i details · / filter · o sort · s scan · R rec · ? help · q quit")
        #expect(lines[23] == " sim0 on · scanning · 4 devices                                          ? help")
    }

    /// Sorted by interval, the last column is the advertising interval: the most frequent first.
    @Test func theIntervalColumnWhenSortedByIt() {
        var s = Self.state()
        for (i, id) in ["E4:1C:22:5D:90:11", "FC:58:FA:1A:2B:3C", "6B:2E:91:3C:4D:5E"].enumerated() {
            let r = AdvertisementReport(id: PeripheralID(id), address: id, name: nil, rssi: -60, connectable: nil,
                                        advertisement: Advertisement())
            _ = Reducer.reduce(&s, .backend(.advertisementReceived(r), at: Self.t0 + [0.1, 1.3, 0.25][i]))
        }
        s.now = Self.t0 + 3
        s.scan.sort = .interval
        Self.expectLines(Array(Self.render(s).prefix(6)), [
            " bleexplr │ Scan                                                   sort interval",
            "  NAME         ADDRESS           TYPE   RSSI       ADVERTISEMENT          EVERY",
            "▶ Demo HRM     E4:1C:22:5D:90:11         -60 ███░░ Nordic Semiconductor … 100ms",
            "  (unnamed)    6B:2E:91:3C:4D:5E         -60 ███░░ iBeacon e2c56db5… 1/4… 250ms",
            "  Demo iTag    FC:58:FA:1A:2B:3C         -60 ███░░ iTag Button · tx 0 dBm  1.3s",
            "  Evil␛[2J␛]0… DE:AD:BE:EF:00:1B         -88 █░░░░                            —",
        ])
    }

    @Test func activeScanFiltersAreShown() {
        var s = Self.state()
        _ = Reducer.reduce(&s, .connectableOnlyToggled)
        _ = Reducer.reduce(&s, .minRSSIChanged(step: 5))
        var lines = Self.render(s)
        #expect(lines[0] == " bleexplr │ Scan                        ≥-100 dBm · only connectable · sort RSSI")
        #expect(!lines.joined().contains("6B:2E:91:3C:4D:5E"))
        #expect(lines[23] == " sim0 on · scanning · 3 of 4 devices                                     ? help")
        // A filter accepted with Enter stays in sight, with the sort and every other filter.
        _ = Reducer.reduce(&s, .filterStarted)
        _ = Reducer.reduce(&s, .inputEdited(.insert("demo")))
        _ = Reducer.reduce(&s, .inputSubmitted)
        _ = Reducer.reduce(&s, .sortCycled)
        _ = Reducer.reduce(&s, .hideUnnamedToggled)
        lines = Self.render(s)
        #expect(lines[0] == " bleexplr │ Scan filter \"demo\" · ≥-100 dBm · only connectable, named · sort name")
        #expect(lines[23] == " sim0 on · scanning · 2 of 4 devices                                     ? help")
        _ = Reducer.reduce(&s, .backRequested)   // Esc clears the text
        _ = Reducer.reduce(&s, .hideUnnamedToggled)
        _ = Reducer.reduce(&s, .hideUnnamedToggled)
        for _ in 0..<20 { _ = Reducer.reduce(&s, .minRSSIChanged(step: 5)) }
        #expect(Self.render(s)[3] == "  4 devices hidden by c, u or the RSSI floor (+ -).")
    }

    @Test func noControlCharacterReachesTheGrid() {
        for (w, h) in [(80, 24), (132, 40), (60, 16)] {
            let g = Router.render(Self.state(), width: w, height: h)
            for cell in g.cells {
                #expect(!cell.text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) })
            }
        }
    }

    @Test func connectingShowsProgressOnTheRow() {
        var s = Self.state()
        s.scan.cursor = Self.hrm
        _ = Reducer.reduce(&s, .rowActivated)
        let lines = Self.render(s)
        #expect(lines[2].contains("connecting…"))
        #expect(lines[22] == "Connecting to Demo HRM…")
    }

    static func connected() -> AppState {
        var s = state()
        s.scan.cursor = hrm
        _ = Reducer.reduce(&s, .rowActivated)
        let services = [
            GATTService(id: AttributeID("/s/b"), uuid: "180D", characteristics: [
                GATTCharacteristic(id: hrmChar, uuid: "2A37", properties: [.notify],
                                   descriptors: [GATTDescriptor(id: AttributeID("/s/b/c/d"), uuid: "2902")]),
                GATTCharacteristic(id: AttributeID("/s/b/e"), uuid: "2A38", properties: [.read]),
            ]),
            GATTService(id: AttributeID("/s/f"), uuid: "180F", characteristics: [
                GATTCharacteristic(id: AttributeID("/s/f/g"), uuid: "2A19", properties: [.read, .notify]),
            ]),
        ]
        _ = Reducer.reduce(&s, .backend(.connected(hrm), at: t0 + 3))
        _ = Reducer.reduce(&s, .backend(.servicesResolved(hrm, services, mtu: 247), at: t0 + 3))
        return s
    }

    /// The top of Demo HRM's device screen at 80x24 once its battery level was read,
    /// with its link `state` ("connected", "disconnected").
    static func deviceLines(_ state: String) -> [String] {
        [
            " bleexplr │ Scan › Demo HRM",
            " Demo HRM  E4:1C:22:5D:90:11  ● \(state)  RSSI -52 dBm  MTU 247  not paired",
            "",
            " ▾ Heart Rate                             180D",
            "     Heart Rate Measurement               2A37  notify",
            "     Body Sensor Location                 2A38  read",
            " ▾ Battery                                180F",
            "     Battery Level                        2A19  read notify  64 %",
            "",
        ]
    }

    @Test func deviceScreen() {
        var s = Self.connected()
        _ = Reducer.reduce(&s, .backend(.readCompleted(AttributeID("/s/f/g"), .success([64])), at: Self.t0 + 4))
        let lines = Self.render(s)
        Self.expectLines(Array(lines.prefix(10)), Self.deviceLines("connected") + [""])
        #expect(lines[22] == "Connected to Demo HRM")
    }

    @Test func characteristicScreenWithHistory() {
        var s = Self.connected()
        _ = Reducer.reduce(&s, .cursorMoved(.down))
        _ = Reducer.reduce(&s, .rowActivated)
        _ = Reducer.reduce(&s, .backend(.notifyChanged(Self.hrmChar, enabled: true, nil), at: Self.t0 + 5))
        _ = Reducer.reduce(&s, .backend(.valueNotified(Self.hrmChar, [0x06, 72]), at: Self.t0 + 6))
        _ = Reducer.reduce(&s, .backend(.valueNotified(Self.hrmChar, [0x16, 75, 0x00, 0x04]), at: Self.t0 + 7.25))
        let lines = Self.render(s)
        Self.expectLines(Array(lines.prefix(14)), [
            " bleexplr │ Scan › Demo HRM › Heart Rate Measurement",
            " Heart Rate Measurement  2A37",
            " Service Heart Rate (180D)   Properties notify   Notify on",
            " Descriptors Client Characteristic Configuration: notifications on",
            "",
            " Value    16 4b 00 04",
            " Text     \"·K··\"",
            " Decoded  75 bpm, contact, RR 1.000 s",
            "          4 bytes, notify at 20:26:47.250  ▁█  72–75",
            "",
            " HISTORY 2 values, newest first",
            " 20:26:47.250  notify  16 4b 00 04                 75 bpm, contact, RR 1.000 s",
            " 20:26:46.000  notify  06 48                       72 bpm, contact",
            "",
        ])
        #expect(lines[22] == "Notifications on: Heart Rate Measurement")
    }

    /// Failed reads and writes are history too, marked with their error; the value shown
    /// stays the last one that was read.
    @Test func failedReadsAndWritesAreInTheHistory() {
        var s = Self.connected()
        let bsl = AttributeID("/s/b/e")
        s.route = .characteristic(Self.hrm, bsl)
        _ = Reducer.reduce(&s, .backend(.readCompleted(bsl, .success([1])), at: Self.t0 + 5))
        _ = Reducer.reduce(&s, .backend(.writeCompleted(bsl, [0x02], .request, .failed("Operation failed with ATT error: 0x80")),
                                        at: Self.t0 + 6))
        _ = Reducer.reduce(&s, .backend(.readCompleted(bsl, .failure(.notPermitted("Read not permitted"))), at: Self.t0 + 7))
        let lines = Self.render(s)
        Self.expectLines(Array(lines[5...14]), [
            " Value    01",
            " Text     \"·\"",
            " Decoded  Chest",
            "          1 byte, read at 20:26:45.000",
            "",
            " HISTORY 1 value, 2 failed, newest first",
            " 20:26:47.000  read    ✗ failed: NotPermitted: Read not permitted",
            " 20:26:46.000  write   02  ✗ failed: Operation failed with ATT error: 0x80",
            " 20:26:45.000  read    01                          Chest",
            "",
        ])
    }

    /// Keys and hints as the properties allow: a notify-only characteristic is not offered
    /// `r` or `w`, a read-only one no `w`, `n`, `m` or `a`; pressed anyway, they say why.
    @Test func onlyWhatThePropertiesAllowIsOffered() {
        var s = Self.connected()
        s.route = .characteristic(Self.hrm, Self.hrmChar)
        s.alert = nil
        var lines = Self.render(s)
        #expect(lines[5] == " No value yet: n turns notifications on.")
        #expect(lines[22] == "n notify · f format · m messages · a hook · Esc back")
        #expect(Reducer.reduce(&s, .readRequested) == [])
        #expect(s.alert == Alert(.warning, "Heart Rate Measurement cannot be read (properties: notify)", at: s.now))
        _ = Reducer.reduce(&s, .writeStarted)
        #expect(s.input == nil)
        #expect(Self.render(s)[22] == "Heart Rate Measurement cannot be written (properties: notify)")
        s.route = .characteristic(Self.hrm, AttributeID("/s/b/e"))
        s.alert = nil
        lines = Self.render(s)
        #expect(lines[5] == " No value yet: r reads it.")
        #expect(lines[22] == "r read · f format · Esc back")
        for action in [Action.notifyToggled, .messageViewToggled, .hookStarted] {
            #expect(Reducer.reduce(&s, action) == [])
            #expect(s.alert?.message == "Body Sensor Location has no notifications or indications (properties: read)")
        }
        #expect(s.input == nil && s.streams.isEmpty)
        #expect(Reducer.reduce(&s, .readRequested) == [.backend(.read(Self.hrm, AttributeID("/s/b/e")))])
    }

    /// A characteristic that indicates (and does not notify) says "indicate", not "notify".
    @Test func indicationsAreCalledIndications() {
        var s = Self.connected()
        let tm = AttributeID("/s/f/t")
        s.peripherals[Self.hrm]!.services![1].characteristics.append(GATTCharacteristic(id: tm, uuid: "2A1C", properties: [.indicate]))
        s.route = .characteristic(Self.hrm, tm)
        _ = Reducer.reduce(&s, .backend(.notifyChanged(tm, enabled: true, nil), at: Self.t0 + 5))
        _ = Reducer.reduce(&s, .backend(.valueNotified(tm, [0x00, 0x6E, 0x01, 0x00, 0xFF]), at: Self.t0 + 6))
        let lines = Self.render(s)
        Self.expectLines(Array(lines[2...11]), [
            " Service Battery (180F)   Properties indicate   Indicate on",
            "",
            "",
            " Value    00 6e 01 00 ff",
            " Text     \"·n···\"",
            " Decoded  36.6 °C",
            "          5 bytes, indicate at 20:26:46.000",
            "",
            " HISTORY 1 value, newest first",
            " 20:26:46.000  indicate  00 6e 01 00 ff              36.6 °C",
        ])
        #expect(lines[22] == "Indications on: Temperature Measurement")
    }

    @Test func writePromptAndHelpOverlay() {
        var s = Self.connected()
        s.peripherals[Self.hrm]!.services![0].characteristics[0].properties = [.write, .notify]
        s.route = .characteristic(Self.hrm, Self.hrmChar)
        _ = Reducer.reduce(&s, .writeStarted)
        _ = Reducer.reduce(&s, .inputEdited(.insert("01 ff")))
        #expect(Self.render(s)[22] == "write (hex 01 ff, or \"text\"): 01 ff▏")
        s.input = nil
        s.showHelp = true
        let lines = Self.render(s)
        #expect(lines.contains { $0.contains("Keys") })
        for (key, text) in Keymap.help { #expect(lines.contains { $0.contains(key) && $0.contains(text) }) }
    }

    @Test func emptyScanWithTheRSSIFilterSaysWhy() {
        var s = AppState(now: Self.t0)
        s.rssiFilterOn = true
        _ = Reducer.reduce(&s, .backend(.adapterChanged(AdapterStatus(name: "hci0", power: .on, discovering: true)), at: Self.t0))
        _ = Reducer.reduce(&s, .tick(Self.t0 + 5))
        #expect(!Self.render(s).joined().contains("--rssi-floor off"))
        _ = Reducer.reduce(&s, .tick(Self.t0 + 12))
        let lines = Self.render(s)
        #expect(lines[3] == "  Scanning… no devices yet.")
        #expect(lines[5].contains("Nothing heard in 12 s with the RSSI filter on"))
        #expect(lines[6].contains("try bleexplr --rssi-floor off"))
        s.adapter.power = .poweredOff
        #expect(Self.render(s)[23].hasPrefix(" hci0 powered off (P powers it on)"))
    }

    @Test func beaconDetailsBeforeConnecting() {
        var s = Self.state()
        s.scan.cursor = PeripheralID("6B:2E:91:3C:4D:5E")
        #expect(Reducer.reduce(&s, .rowActivated) == [])   // a beacon: Enter shows what it broadcasts
        let lines = Self.render(s)
        Self.expectLines(Array(lines.prefix(11)), [
            " bleexplr │ Scan › 6B:2E:91:3C:4D:5E (advertisement)",
            " (unnamed)  6B:2E:91:3C:4D:5E  non-connectable  RSSI -67 dBm  ▄",
            "",
            " Manufacturer   0x004C Apple: 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10",
            "                96 e0 00 01 00 2a c5",
            " iBeacon        UUID E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
            "                major 1, minor 42, measured power -59 dBm, about 2.5 m",
            "",
            " Advertising    1 report",
            " First seen     20:26:40.000 UTC, 3s ago",
            " Last seen      3s ago",
        ])
        #expect(lines[22] == "Enter connect · Esc back · ? help")
        _ = Reducer.reduce(&s, .backRequested)
        #expect(s.route == .scan)
        s.scan.cursor = Self.hrm
        _ = Reducer.reduce(&s, .detailsRequested)
        #expect(s.route == .details(Self.hrm))
        let hrm = Self.render(s)
        #expect(hrm[3] == " Services       180D Heart Rate, 180F Battery")
        #expect(Reducer.reduce(&s, .rowActivated) == [.backend(.connect(Self.hrm))])
    }

    @Test func tooSmall() {
        let lines = Self.render(Self.state(), 40, 10)
        #expect(lines[4].trimmingCharacters() == "Terminal too small")
        #expect(lines[5].trimmingCharacters() == "40x10, need 60x16")
    }

    @Test func largerTerminalsUseTheSpace() {
        let lines = Self.render(Self.state(), 132, 40)
        #expect(lines.count == 40)
        #expect(lines[2].contains("Nordic Semiconductor · Heart Rate · Battery"))
        #expect(lines[39].hasSuffix("? help"))
    }

    @Test func wideCharactersTakeTwoColumns() {
        var g = CellGrid(width: 10, height: 1)
        #expect(g.put("会議室A", x: 0, y: 0) == 7)
        #expect(g.lines() == ["会議室A"])
        #expect(g.put("ホワイトボード", x: 0, y: 0, maxWidth: 5) == 4)
        // Symbols terminals draw as emoji are two columns too (a tag named "⚡Tag").
        #expect(CellGrid.columns(of: "⚡Tag ⭐") == 8)
        #expect(CellGrid.columns(of: "↯ ⌂ ● ○") == 7)
    }
}

extension String {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
