import Testing
@testable import Explorer

@Suite("Reducer: navigation follows the connection")
struct NavigationTests {
    @Test func enterOnDeviceStartsConnectingAndStaysOnScanList() {
        var s = Fixture.scanning()
        s.scan.cursor = Fixture.hrm
        let effects = Reducer.reduce(&s, .rowActivated)
        #expect(effects == [.backend(.connect(Fixture.hrm))])
        #expect(s.route == .scan)
        #expect(s.peripherals[Fixture.hrm]?.connection == .connecting(attempt: 1))
        #expect(s.pendingConnection == Fixture.hrm)
    }

    @Test func deviceScreenOpensByItselfWhenServicesAreResolved() {
        var s = Fixture.scanning()
        s.scan.cursor = Fixture.hrm
        _ = Reducer.reduce(&s, .rowActivated)
        Fixture.apply(&s, .connected(Fixture.hrm))
        #expect(s.route == .scan)
        #expect(s.peripherals[Fixture.hrm]?.connection == .resolvingServices)
        Fixture.apply(&s, .servicesResolved(Fixture.hrm, Fixture.hrmServices, mtu: 247))
        #expect(s.route == .device(Fixture.hrm))
        #expect(s.peripherals[Fixture.hrm]?.connection == .connected)
        #expect(s.device.cursor == Fixture.hrmServices[0].id)
        #expect(s.pendingConnection == nil)
    }

    @Test func userDescriptionsAreReadAfterResolvingAndLabelTheCharacteristic() {
        var s = Fixture.scanning()
        s.scan.cursor = Fixture.itag
        _ = Reducer.reduce(&s, .rowActivated)
        let button = CharacteristicID("/sim/itag/s/c")
        let ud = GATTDescriptor(id: AttributeID("/sim/itag/s/c/d1"), uuid: "2901")
        let cccd = GATTDescriptor(id: AttributeID("/sim/itag/s/c/d2"), uuid: "2902")
        let services = [GATTService(id: AttributeID("/sim/itag/s"), uuid: "FFE0", characteristics: [
            GATTCharacteristic(id: button, uuid: "FFE1", properties: [.notify], descriptors: [ud, cccd])])]
        let effects = Fixture.apply(&s, .servicesResolved(Fixture.itag, services, mtu: nil))
        #expect(effects == [.backend(.readDescriptor(Fixture.itag, ud.id))])
        Fixture.apply(&s, .descriptorRead(ud.id, .success(Array("Button".utf8))))
        #expect(s.userDescription(services[0].characteristics[0]) == "Button")
        Fixture.apply(&s, .descriptorRead(cccd.id, .failure(.notPermitted("Read not permitted"))))
        #expect(s.lastError == nil)
    }

    @Test func servicesResolvedForAnotherDeviceDoesNotNavigate() {
        var s = Fixture.scanning()
        s.scan.cursor = Fixture.hrm
        _ = Reducer.reduce(&s, .rowActivated)
        Fixture.apply(&s, .servicesResolved(Fixture.itag, [], mtu: nil))
        #expect(s.route == .scan)
    }

    @Test func droppedLinkKeepsTheScreenWithTheReason() {
        var s = Fixture.connectedHRM()
        _ = Reducer.reduce(&s, .cursorMoved(.down))
        _ = Reducer.reduce(&s, .rowActivated)
        #expect(s.route == .characteristic(Fixture.hrm, Fixture.hrmChar))
        Fixture.apply(&s, .notifyChanged(Fixture.hrmChar, enabled: true, nil))
        Fixture.apply(&s, .disconnected(Fixture.hrm, .timeout), after: 3)
        #expect(s.route == .characteristic(Fixture.hrm, Fixture.hrmChar))
        #expect(s.linkLoss[Fixture.hrm] == LinkLoss(reason: "connection timed out", at: s.now, subscriptions: [Fixture.hrmChar]))
        #expect(s.alert?.level == .warning)
        #expect(s.alert?.message == "Demo HRM disconnected: connection timed out")
        #expect(s.subscriptions.isEmpty)
        #expect(s.peripherals[Fixture.hrm]?.connection == .disconnected)
    }

    @Test func disconnectKeyAsksTheBackendAndLocalDropIsInfo() {
        var s = Fixture.connectedHRM()
        #expect(Reducer.reduce(&s, .disconnectRequested) == [.backend(.disconnect(Fixture.hrm))])
        #expect(s.peripherals[Fixture.hrm]?.connection == .disconnecting)
        Fixture.apply(&s, .disconnected(Fixture.hrm, .local))
        #expect(s.route == .scan)
        #expect(s.alert?.level == .info && s.alert?.message == "Disconnected from Demo HRM")
        #expect(s.lastError == nil)
    }

    @Test func escapeGoesBackOneLevelAndKeepsTheLink() {
        var s = Fixture.connectedHRM()
        _ = Reducer.reduce(&s, .cursorMoved(.down))
        _ = Reducer.reduce(&s, .rowActivated)
        #expect(Reducer.reduce(&s, .backRequested) == [])
        #expect(s.route == .device(Fixture.hrm))
        #expect(s.device.cursor == Fixture.hrmChar)
        _ = Reducer.reduce(&s, .backRequested)
        #expect(s.route == .scan)
        #expect(s.peripherals[Fixture.hrm]?.connection == .connected)
        // Enter on a connected device goes straight to its screen.
        #expect(Reducer.reduce(&s, .rowActivated) == [])
        #expect(s.route == .device(Fixture.hrm))
    }

    @Test func escapeWhileConnectingCancels() {
        var s = Fixture.scanning()
        s.scan.cursor = Fixture.hrm
        _ = Reducer.reduce(&s, .rowActivated)
        #expect(Reducer.reduce(&s, .backRequested) == [.backend(.disconnect(Fixture.hrm))])
        // The link goes down as asked: a cancelled connection, not a "disconnected by user".
        Fixture.apply(&s, .disconnected(Fixture.hrm, .local), after: 0.3)
        #expect(s.alert?.level == .info && s.alert?.message == "Connection to Demo HRM cancelled")
        #expect(s.pendingConnection == nil && s.lastError == nil)
        // Or the attempt fails because it was aborted: cancelled too.
        _ = Reducer.reduce(&s, .rowActivated)
        _ = Reducer.reduce(&s, .backRequested)
        Fixture.apply(&s, .connectFailed(Fixture.hrm, .failed("le-connection-abort-by-local")), after: 0.6)
        #expect(s.alert?.message == "Connection to Demo HRM cancelled" && s.lastError == nil)
        #expect(s.peripherals[Fixture.hrm]?.connection == .disconnected)
    }

    @Test func connectFailureIsShownAndClearsThePending() {
        var s = Fixture.scanning()
        s.scan.cursor = Fixture.hrm
        _ = Reducer.reduce(&s, .rowActivated)
        Fixture.apply(&s, .connectFailed(Fixture.hrm, .failed("le-connection-abort-by-local")))
        #expect(s.pendingConnection == nil)
        // BlueZ's catch-all "Failed" is not said twice.
        #expect(s.lastError == "Connection to Demo HRM failed: le-connection-abort-by-local")
        #expect(s.peripherals[Fixture.hrm]?.connection == .failed(reason: "le-connection-abort-by-local"))
        #expect(BackendError.failed("Operation failed with ATT error: 0x80").description == "Operation failed with ATT error: 0x80")
        #expect(BackendError.notPermitted("Read not permitted").description == "NotPermitted: Read not permitted")
    }

    @Test func enterOnABeaconShowsItsAdvertisementInstead() {
        var s = Fixture.scanning()
        s.scan.cursor = Fixture.beacon
        #expect(Reducer.reduce(&s, .rowActivated) == [])
        #expect(s.route == .details(Fixture.beacon))
        // Enter on its details still does not connect.
        #expect(Reducer.reduce(&s, .rowActivated) == [])
        #expect(s.alert?.level == .warning)
        _ = Reducer.reduce(&s, .backRequested)
        #expect(s.route == .scan && s.scan.cursor == Fixture.beacon)
    }
}

@Suite("Reducer: scan list")
struct ScanListTests {
    @Test func cursorStaysOnTheSameDeviceWhileTheListResorts() {
        var s = Fixture.scanning()
        _ = Reducer.reduce(&s, .cursorMoved(.down))
        #expect(s.scan.cursor == Fixture.itag)
        #expect(ScanQuery.rows(s).map(\.id) == [Fixture.hrm, Fixture.itag, Fixture.beacon])
        // The iTag comes closer and moves to the top of the RSSI sort.
        Fixture.apply(&s, Fixture.report(Fixture.itag, name: nil, rssi: -40), after: 1)
        #expect(ScanQuery.rows(s).map(\.id) == [Fixture.itag, Fixture.hrm, Fixture.beacon])
        #expect(s.scan.cursor == Fixture.itag)
        _ = Reducer.reduce(&s, .cursorMoved(.down))
        #expect(s.scan.cursor == Fixture.hrm)
    }

    /// Before any key: the top row's device is selected by ID, and Enter connects it even
    /// after a stronger device has moved above it.
    @Test func theSelectionFollowsADeviceFromTheStart() {
        var s = AppState(now: Fixture.t0)
        s.adapter = AdapterStatus(name: "sim0", power: .on, discovering: true)
        Fixture.apply(&s, Fixture.report(Fixture.itag, name: "Demo iTag", rssi: -60))
        #expect(s.scan.cursor == Fixture.itag)
        Fixture.apply(&s, Fixture.report(Fixture.hrm, name: "Demo HRM", rssi: -50), after: 1)
        #expect(ScanQuery.ids(s) == [Fixture.hrm, Fixture.itag])
        #expect(s.scan.cursor == Fixture.itag)
        #expect(Reducer.reduce(&s, .rowActivated) == [.backend(.connect(Fixture.itag))])
        // Hidden by a filter: the selection moves to the top row that is shown.
        var f = Fixture.scanning()
        f.scan.cursor = Fixture.beacon
        _ = Reducer.reduce(&f, .connectableOnlyToggled)
        #expect(f.scan.cursor == Fixture.hrm)
    }

    @Test func filterMatchesNameAddressServiceAndCompany() {
        var s = Fixture.scanning()
        _ = Reducer.reduce(&s, .filterStarted)
        for ch in "hrm" { _ = Reducer.reduce(&s, .inputEdited(.insert(String(ch)))) }
        #expect(ScanQuery.rows(s).map(\.id) == [Fixture.hrm])   // live while typing
        _ = Reducer.reduce(&s, .inputSubmitted)
        #expect(s.input == nil)
        #expect(s.scan.cursor == Fixture.hrm)
        s.scan.filter = "ffe0"
        #expect(ScanQuery.rows(s).map(\.id) == [Fixture.itag])
        s.scan.filter = "heart rate"
        #expect(ScanQuery.rows(s).map(\.id) == [Fixture.hrm])
        s.scan.filter = "apple"
        #expect(ScanQuery.rows(s).map(\.id) == [Fixture.beacon])
        s.scan.filter = "6b:2e"
        #expect(ScanQuery.rows(s).map(\.id) == [Fixture.beacon])
        // Enter on a list the filter left empty says so (it used to do nothing at all).
        s.scan.filter = "bx serve"
        #expect(ScanQuery.rows(s).isEmpty && Reducer.reduce(&s, .rowActivated) == [])
        #expect(s.alert?.message == "No device matches the filter \"bx serve\": Esc clears it")
        _ = Reducer.reduce(&s, .backRequested)  // Esc on the scan list clears the filter
        #expect(s.scan.filter == "")
    }

    @Test func sortCyclesThroughAllOrders() {
        var s = Fixture.scanning()
        var seen: [SortOrder] = [s.scan.sort]
        for _ in 0..<5 { _ = Reducer.reduce(&s, .sortCycled); seen.append(s.scan.sort) }
        #expect(seen == [.rssi, .name, .lastSeen, .firstSeen, .interval, .rssi])
        s.scan.sort = .name
        #expect(ScanQuery.rows(s).map(\.id) == [Fixture.hrm, Fixture.itag, Fixture.beacon])
    }

    @Test func silentDevicesGoStaleThenAway() {
        var s = Fixture.scanning()
        _ = Reducer.reduce(&s, .tick(Fixture.t0 + 11))
        #expect(s.isStale(s.peripherals[Fixture.hrm]!))
        Fixture.apply(&s, Fixture.report(Fixture.itag, name: nil, rssi: -61))
        _ = Reducer.reduce(&s, .tick(Fixture.t0 + 61))
        #expect(s.peripherals.keys.sorted() == [Fixture.itag])
    }

    @Test func connectedDevicesAreNeverAgedOut() {
        var s = Fixture.connectedHRM()
        _ = Reducer.reduce(&s, .tick(Fixture.t0 + 600))
        #expect(s.peripherals[Fixture.hrm] != nil)
    }

    @Test func lostRSSIIsKeptAndMarkedStale() {
        var s = Fixture.scanning()
        Fixture.apply(&s, .rssiLost(Fixture.hrm))
        #expect(s.peripherals[Fixture.hrm]?.rssi == -50)
        #expect(s.peripherals[Fixture.hrm]?.rssiStale == true)
    }

    @Test func rssiHistoryIsBounded() {
        var s = Fixture.scanning()
        for i in 0..<100 { Fixture.apply(&s, Fixture.report(Fixture.hrm, name: nil, rssi: -40 - i % 30)) }
        #expect(s.peripherals[Fixture.hrm]?.rssiHistory.samples.count == RSSIHistory.capacity)
        #expect(s.peripherals[Fixture.hrm]?.name == "Demo HRM")
    }

    @Test func rssiHistoryKeepsTheNewestOldestFirst() {
        var h = RSSIHistory()
        for v in 1...5 { h.append(-v) }
        #expect(h.samples == [-1, -2, -3, -4, -5])
        for v in 6...(RSSIHistory.capacity + 7) { h.append(-v) }
        #expect(h.samples == (8...(RSSIHistory.capacity + 7)).map { Int8(-$0) })
    }

    @Test func powerOnOnlyWhenPoweredOff() {
        var s = Fixture.scanning()
        #expect(Reducer.reduce(&s, .powerOnRequested) == [])
        s.adapter.power = .poweredOff
        #expect(Reducer.reduce(&s, .powerOnRequested) == [.backend(.setPowered(true))])
        #expect(Keymap.action(for: .char("P"), in: s) == .powerOnRequested)
    }

    @Test func scanStartIsRemembered() {
        var s = AppState(now: Fixture.t0)
        Fixture.apply(&s, .adapterChanged(AdapterStatus(name: "hci0", power: .on, discovering: true)), after: 2)
        #expect(s.scanStartedAt == Fixture.t0 + 2)
        Fixture.apply(&s, .adapterChanged(AdapterStatus(name: "hci0", power: .on, discovering: true)), after: 5)
        #expect(s.scanStartedAt == Fixture.t0 + 2)
        Fixture.apply(&s, .adapterChanged(AdapterStatus(name: "hci0", power: .on, discovering: false)), after: 6)
        #expect(s.scanStartedAt == nil)
    }

    @Test func scanToggleAndStartup() {
        var s = Fixture.scanning()
        #expect(Reducer.reduce(&s, .appStarted(recordTo: "x.jsonl")) == [.backend(.startScan), .startRecording(path: "x.jsonl")])
        #expect(Reducer.reduce(&s, .scanToggled) == [.backend(.stopScan)])
        #expect(Reducer.reduce(&s, .scanToggled) == [.backend(.startScan)])
    }
}

@Suite("Reducer: characteristic screen")
struct CharacteristicTests {
    /// Heart Rate Measurement, made readable and writable as well, so every key applies.
    static func open() -> AppState {
        var s = Fixture.connectedHRM()
        s.peripherals[Fixture.hrm]!.services![0].characteristics[0].properties = [.read, .write, .notify]
        s.route = .characteristic(Fixture.hrm, Fixture.hrmChar)
        return s
    }

    @Test func readWriteNotifyBecomeBackendCommands() {
        var s = Self.open()
        #expect(Reducer.reduce(&s, .readRequested) == [.backend(.read(Fixture.hrm, Fixture.hrmChar))])
        #expect(Reducer.reduce(&s, .notifyToggled) == [.backend(.setNotify(Fixture.hrm, Fixture.hrmChar, true))])
        Fixture.apply(&s, .notifyChanged(Fixture.hrmChar, enabled: true, nil))
        #expect(Reducer.reduce(&s, .notifyToggled) == [.backend(.setNotify(Fixture.hrm, Fixture.hrmChar, false))])
        _ = Reducer.reduce(&s, .writeStarted)
        for ch in "01 ff" { _ = Reducer.reduce(&s, .inputEdited(.insert(String(ch)))) }
        // The value joins the characteristic's write history, saved in the state directory.
        #expect(Reducer.reduce(&s, .inputSubmitted) == [.backend(.write(Fixture.hrm, Fixture.hrmChar, [0x01, 0xFF], .request)),
                                                        .saveWriteHistory(key: "E41C225D9011-2a37", ["01 ff"])])
        #expect(s.input == nil)
    }

    @Test func badWriteInputKeepsTheLineOpen() {
        var s = Self.open()
        _ = Reducer.reduce(&s, .writeStarted)
        _ = Reducer.reduce(&s, .inputEdited(.insert("zz")))
        #expect(Reducer.reduce(&s, .inputSubmitted) == [])
        #expect(s.input?.text == "zz")
        #expect(s.alert?.level == .error)
    }

    @Test func valuesGoIntoABoundedHistory() {
        var s = Self.open()
        for i in 0..<1000 { Fixture.apply(&s, .valueNotified(Fixture.hrmChar, [0x06, UInt8(i & 0xFF)])) }
        let log = s.values[Fixture.hrmChar]!
        #expect(log.count == 1000)
        #expect(log.history.count <= ValueLog.capacity)
        #expect(log.latest?.bytes == [0x06, UInt8(999 & 0xFF)])
    }

    @Test func failedReadIsAnError() {
        var s = Self.open()
        Fixture.apply(&s, .readCompleted(Fixture.hrmChar, .failure(.notPermitted("Read not permitted"))))
        #expect(s.lastError == "Read Heart Rate Measurement failed: NotPermitted: Read not permitted")
    }

    @Test func historyScrollIsBounded() {
        var s = Self.open()
        for i in 0..<5 { Fixture.apply(&s, .valueNotified(Fixture.hrmChar, [0x06, UInt8(i)])) }
        _ = Reducer.reduce(&s, .cursorMoved(.bottom))
        #expect(s.historyOffset == 4)
        _ = Reducer.reduce(&s, .cursorMoved(.top))
        #expect(s.historyOffset == 0)
    }
}

@Suite("Keymap")
struct KeymapTests {
    @Test func vimKeysAndArrowsMoveAndInputCapturesKeys() {
        var s = Fixture.scanning()
        #expect(Keymap.action(for: .char("j"), in: s) == .cursorMoved(.down))
        #expect(Keymap.action(for: .up, in: s) == .cursorMoved(.up))
        #expect(Keymap.action(for: .char("q"), in: s) == .quitRequested)
        s.input = InputLine(purpose: .filter)
        #expect(Keymap.action(for: .char("q"), in: s) == .inputEdited(.insert("q")))
        #expect(Keymap.action(for: .escape, in: s) == .inputCancelled)
        s.input = nil
        s.showHelp = true
        #expect(Keymap.action(for: .char("x"), in: s) == .helpToggled)
    }
}

@Suite("Reducer: scan filters")
struct ScanFilterTests {
    /// Service UUIDs match in any whole form, and from service data as well as the list.
    @Test func filterByServiceUUID() {
        var s = Fixture.scanning()
        let eddystone = PeripheralID("C3:7A:22:10:9B:01")
        Fixture.apply(&s, Fixture.report(eddystone, name: nil, rssi: -80, connectable: false,
                                         adv: Advertisement(serviceData: ["FEAA": [0x10, 0xEB, 0x03, 0x61, 0x07]])), after: 1)
        for needle in ["180d", "0x180d", "0000180d-0000-1000-8000-00805f9b34fb", "0000180d"] {
            s.scan.filter = needle
            #expect(ScanQuery.ids(s) == [Fixture.hrm], "\(needle)")
        }
        s.scan.filter = "0xfeaa"
        #expect(ScanQuery.ids(s) == [eddystone])
        s.scan.filter = "eddystone"
        #expect(ScanQuery.ids(s) == [eddystone])
    }

    @Test func sortByFirstAndLastSeen() {
        var s = Fixture.scanning()   // all three first heard at t0
        let late = PeripheralID("AA:00:00:00:00:01")
        Fixture.apply(&s, Fixture.report(late, name: "Late", rssi: -90), after: 5)
        Fixture.apply(&s, Fixture.report(Fixture.itag, name: "Demo iTag", rssi: -60), after: 1)
        s.scan.sort = .firstSeen
        #expect(ScanQuery.ids(s) == [Fixture.beacon, Fixture.hrm, Fixture.itag, late])   // ties by address
        s.scan.sort = .lastSeen
        #expect(ScanQuery.ids(s).prefix(2) == [Fixture.itag, late])
    }

    @Test func connectableUnnamedAndRSSIFloor() {
        var s = Fixture.scanning()   // HRM -50 named, iTag -60 named, beacon -70 unnamed non-connectable
        _ = Reducer.reduce(&s, .connectableOnlyToggled)
        #expect(ScanQuery.ids(s) == [Fixture.hrm, Fixture.itag])
        _ = Reducer.reduce(&s, .connectableOnlyToggled)
        _ = Reducer.reduce(&s, .hideUnnamedToggled)
        #expect(ScanQuery.ids(s) == [Fixture.hrm, Fixture.itag])
        _ = Reducer.reduce(&s, .hideUnnamedToggled)
        #expect(ScanQuery.ids(s).count == 3)   // unnamed devices are shown by default
        _ = Reducer.reduce(&s, .minRSSIChanged(step: 5))
        #expect(s.scan.minRSSI == -100)
        for _ in 0..<8 { _ = Reducer.reduce(&s, .minRSSIChanged(step: 5)) }
        #expect(s.scan.minRSSI == -60)
        #expect(ScanQuery.ids(s) == [Fixture.hrm, Fixture.itag])
        for _ in 0..<20 { _ = Reducer.reduce(&s, .minRSSIChanged(step: 5)) }
        #expect(s.scan.minRSSI == -30)
        for _ in 0..<20 { _ = Reducer.reduce(&s, .minRSSIChanged(step: -5)) }
        #expect(s.scan.minRSSI == nil)
        #expect(Keymap.action(for: .char("+"), in: s) == .minRSSIChanged(step: 5))
        #expect(Keymap.action(for: .char("c"), in: s) == .connectableOnlyToggled)
    }
}

