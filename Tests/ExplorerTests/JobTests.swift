import Testing
@testable import Explorer

/// A device with a vendor characteristic labelled and formatted by its descriptors
/// (0x2901 "Motor temperature", 0x2904 sint16 exponent -2 °C), like Demo Bike's.
private enum Motor {
    static let id = PeripheralID("C8:2B:96:0E:51:3A")
    static let char = CharacteristicID("/sim/bike/s/c")
    static let label = AttributeID("/sim/bike/s/c/d1")
    static let format = AttributeID("/sim/bike/s/c/d2")
    static let uuid: BLEUUID = "B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE"
    static let services = [GATTService(id: AttributeID("/sim/bike/s"), uuid: "B1E5E1A0-0001-4C7A-9E3B-2D8F00C0FFEE", characteristics: [
        GATTCharacteristic(id: char, uuid: uuid, properties: [.read, .notify],
                           descriptors: [GATTDescriptor(id: label, uuid: "2901"), GATTDescriptor(id: format, uuid: "2904")])])]

    static func world(_ job: Job) -> AppState {
        var s = Fixture.scanning()
        s.job = JobState(job: job)
        return s
    }

    static func heard(_ s: inout AppState) -> [Effect] {
        Fixture.apply(&s, Fixture.report(id, name: "Demo Bike", rssi: -55))
    }

    /// Heard, connected, services resolved, descriptors read: the effects of the last step.
    static func ready(_ s: inout AppState, services: [GATTService] = services) -> [Effect] {
        _ = heard(&s)
        Fixture.apply(&s, .connected(id))
        Fixture.apply(&s, .servicesResolved(id, services, mtu: 247))
        Fixture.apply(&s, .descriptorRead(label, .success(Array("Motor temperature".utf8))))
        return Fixture.apply(&s, .descriptorRead(format, .success([0x0E, 0xFE, 0x2F, 0x27, 0x01, 0x00, 0x00])))
    }
}

@Suite("Commands are reducers: find, connect, ready, work, leave")
struct JobTests {
    @Test func readWaitsForTheDescriptorsThenShowsTheValueAsTheAppDoes() {
        var s = Motor.world(.read(address: Motor.id.rawValue, uuid: Motor.uuid, offset: 0))
        #expect(Reducer.reduce(&s, .appStarted(recordTo: nil)) == [.backend(.startScan), .startTimer(.find, after: 20)])
        #expect(Motor.heard(&s) == [.cancelTimer(.find), .backend(.stopScan), .backend(.connect(Motor.id)), .startTimer(.connect, after: 45)])
        #expect(Fixture.apply(&s, .connected(Motor.id)) == [])
        // Resolved is not ready: the descriptors are read first, and nothing else yet.
        #expect(Fixture.apply(&s, .servicesResolved(Motor.id, Motor.services, mtu: 247))
            == [.backend(.readDescriptor(Motor.id, Motor.label)), .backend(.readDescriptor(Motor.id, Motor.format))])
        #expect(s.peripherals[Motor.id]?.connection == .readingDescriptors)
        #expect(Fixture.apply(&s, .descriptorRead(Motor.label, .success(Array("Motor temperature".utf8)))) == [])
        #expect(Fixture.apply(&s, .descriptorRead(Motor.format, .success([0x0E, 0xFE, 0x2F, 0x27, 0x01, 0x00, 0x00])))
            == [.cancelTimer(.connect), .backend(.read(Motor.id, Motor.char, offset: 0)), .startTimer(.operation, after: 15)])
        #expect(s.peripherals[Motor.id]?.connection == .connected)

        let effects = Fixture.apply(&s, .readCompleted(Motor.char, .success([0x29, 0x09])))
        guard case let .output(.value(v)) = effects.dropFirst().first else { Issue.record("no value in \(effects)"); return }
        #expect(v.name == "Motor temperature")
        #expect(v.decoded?.text == "23.45 °C")
        #expect(v.decoded?.fieldsJSON == #"{"value":23.45,"unit":"degree Celsius","symbol":"°C"}"#)
        #expect(Array(effects.suffix(2)) == [.backend(.disconnect(Motor.id)), .startTimer(.linger, after: 3)])
        #expect(Fixture.apply(&s, .disconnected(Motor.id, .local)) == [.finish(exitCode: 0)])
        #expect(s.job?.exitCode == 0)
    }

    @Test func aDeviceNeverHeardFailsWhenTheFindTimerFires() {
        var s = Motor.world(.read(address: "AA:BB:CC:DD:EE:FF", uuid: "2A19", offset: 0))
        _ = Reducer.reduce(&s, .appStarted(recordTo: nil))
        #expect(Motor.heard(&s) == [])
        let effects = Reducer.reduce(&s, .jobTimerFired(.find))
        #expect(effects.first == .output(.failure("no device AA:BB:CC:DD:EE:FF found in 20 s of scanning")))
        #expect(effects.last == .finish(exitCode: 1))
        // Late facts change nothing once it is done.
        #expect(Motor.heard(&s) == [])
    }

    @Test func aConnectionTimeoutSaysWhereItStood() {
        var s = Motor.world(.read(address: Motor.id.rawValue, uuid: Motor.uuid, offset: 0))
        _ = Reducer.reduce(&s, .appStarted(recordTo: nil))
        _ = Motor.heard(&s)
        Fixture.apply(&s, .connecting(Motor.id, attempt: 1))
        Fixture.apply(&s, .connected(Motor.id))
        let effects = Reducer.reduce(&s, .jobTimerFired(.connect))
        #expect(effects.first == .output(.failure(
            "connecting to C8:2B:96:0E:51:3A timed out after 45 s: the link is up, but bluetoothd resolved no services")))

        var never = Motor.world(.read(address: Motor.id.rawValue, uuid: Motor.uuid, offset: 0))
        _ = Reducer.reduce(&never, .appStarted(recordTo: nil))
        _ = Motor.heard(&never)
        Fixture.apply(&never, .connecting(Motor.id, attempt: 2))
        #expect(Reducer.reduce(&never, .jobTimerFired(.connect)).first == .output(.failure(
            "connecting to C8:2B:96:0E:51:3A timed out after 45 s: the link never came up (attempt 2)")))
    }

    @Test func aFailedReadIsTheExitStatusAndOneLine() {
        var s = Motor.world(.read(address: Motor.id.rawValue, uuid: Motor.uuid, offset: 0))
        _ = Motor.ready(&s)
        let effects = Fixture.apply(&s, .readCompleted(Motor.char, .failure(.notPermitted("Read not permitted"))))
        #expect(effects.first == .output(.failure("read failed: NotPermitted: Read not permitted")))
        Fixture.apply(&s, .disconnected(Motor.id, .local))
        #expect(s.job?.exitCode == 1)
    }

    /// The link goes down while a read waits (bluetoothd ends it when the device refuses the
    /// pairing it started for the read): the read's own answer comes a moment later, and the
    /// failure says both, and what to try.
    @Test func aReadWhoseLinkWentDownSaysSoWithBluetoothdsAnswer() {
        var s = Motor.world(.read(address: Motor.id.rawValue, uuid: Motor.uuid, offset: 0))
        _ = Motor.ready(&s)
        #expect(Fixture.apply(&s, .disconnected(Motor.id, .remote)) == [.startTimer(.operation, after: JobReducer.linkLostWait)])
        let failed = Fixture.apply(&s, .readCompleted(Motor.char, .failure(.failed("Operation failed with ATT error: 0x0e"))))
        #expect(failed.first == .output(.failure("read failed: the link went down while the read waited for its answer "
            + "(bluetoothd: Operation failed with ATT error: 0x0e); C8:2B:96:0E:51:3A is not paired: for a device that "
            + "refuses an operation for want of encryption bluetoothd pairs by itself, and a refused pairing ends the link "
            + "(bleexplr pair C8:2B:96:0E:51:3A says why)")))
        #expect(failed.last == .finish(exitCode: 1))

        // No answer at all (bluetoothd 5.82 leaves it pending): said so; a reason bluetoothd gave is said.
        var t = Motor.world(.read(address: Motor.id.rawValue, uuid: Motor.uuid, offset: 0))
        _ = Motor.ready(&t)
        _ = Fixture.apply(&t, .disconnected(Motor.id, .other("authentication failed")))
        let late = Reducer.reduce(&t, .jobTimerFired(.operation))
        #expect(late.first == .output(.failure("read failed: the link went down while the read waited for its answer: "
            + "\(DisconnectReason.other("authentication failed")) (bluetoothd did not answer it); C8:2B:96:0E:51:3A is not paired: "
            + "for a device that refuses an operation for want of encryption bluetoothd pairs by itself, and a refused "
            + "pairing ends the link (bleexplr pair C8:2B:96:0E:51:3A says why)")))
        #expect(late.last == .finish(exitCode: 1))
    }

    @Test func notifyCountsThenLeaves() {
        var s = Motor.world(.notify(address: Motor.id.rawValue, uuid: Motor.uuid, count: 2, duration: nil, until: nil))
        #expect(Motor.ready(&s).contains(.backend(.setNotify(Motor.id, Motor.char, true))))
        #expect(Fixture.apply(&s, .notifyChanged(Motor.char, enabled: true, nil)) == [.cancelTimer(.operation)])
        #expect(Fixture.apply(&s, .valueNotified(Motor.char, [0x29, 0x09])).count == 1)
        let second = Fixture.apply(&s, .valueNotified(Motor.char, [0x2A, 0x09]))
        #expect(second.contains(.backend(.disconnect(Motor.id))))
        #expect(s.job?.phase == .leaving(exitCode: 0))
        // The disconnect never comes: the linger timer ends it.
        #expect(Reducer.reduce(&s, .jobTimerFired(.linger)) == [.finish(exitCode: 0)])
    }

    /// The MTU said on stderr when AcquireNotify hands over its socket is in every JSON line
    /// too; through StartNotify, the link's (GattCharacteristic1.MTU).
    @Test func notifyLinesCarryTheLinksMTU() {
        var s = Motor.world(.notify(address: Motor.id.rawValue, uuid: Motor.uuid, count: nil, duration: nil, until: nil))
        _ = Motor.ready(&s)
        Fixture.apply(&s, .notifyChanged(Motor.char, enabled: true, nil))
        func value(_ effects: [Effect]) -> ValueReport? {
            for case let .output(.value(v)) in effects { return v }
            return nil
        }
        let plain = value(Fixture.apply(&s, .valueNotified(Motor.char, [0x29, 0x09])))
        #expect(plain?.mtu == 247)
        #expect(Fixture.apply(&s, .notificationsAcquired(Motor.char, mtu: 185))
            == [.output(.warning("notifications through a socket (AcquireNotify), MTU 185"))])
        let acquired = try! #require(value(Fixture.apply(&s, .valueNotified(Motor.char, [0x2A, 0x09]))))
        #expect(acquired.mtu == 185)
        let line = CommandPrinter(json: true).lines(.value(acquired), now: acquired.at).first?.text ?? ""
        #expect(line.contains(#""origin":"notify","mtu":185,"hex":"2a09""#), "\(line)")
        // Unknown (BlueZ before 5.62, no socket): not said.
        s.peripherals.update(Motor.id) { $0.mtu = nil }
        s.notifySockets = [:]
        let unknown = try! #require(value(Fixture.apply(&s, .valueNotified(Motor.char, [0x2B, 0x09]))))
        #expect(unknown.mtu == nil)
        #expect(CommandPrinter(json: true).lines(.value(unknown), now: unknown.at).first?.text.contains("mtu") == false)
        // A read's line has none.
        var r = Motor.world(.read(address: Motor.id.rawValue, uuid: Motor.uuid, offset: 0))
        _ = Motor.ready(&r)
        #expect(value(Fixture.apply(&r, .readCompleted(Motor.char, .success([0x29, 0x09]))))?.mtu == nil)
    }

    /// Notifications read together from AcquireNotify's socket are one action: the same
    /// state and effects as the values one by one, each at its own time, and a value after
    /// the one that ended the work is the app's alone (`--count`, `--until`).
    @Test func notificationsReadTogetherAreTheValuesOneByOne() {
        let jobs: [Job] = [.notify(address: Motor.id.rawValue, uuid: Motor.uuid, count: 2, duration: nil, until: nil),
                           .notify(address: Motor.id.rawValue, uuid: Motor.uuid, count: nil, duration: nil,
                                   until: StreamEnd(marker: Array("EOM".utf8)))]
        for job in jobs {
            var one = Motor.world(job)
            _ = Motor.ready(&one)
            var batched = one
            let t = one.now
            let values = [NotifiedValue([0x10, 0x09], at: t + 1), NotifiedValue(Array("EOM".utf8), at: t + 1.25),
                          NotifiedValue([0x20, 0x09], at: t + 1.5)]
            var singles: [Effect] = []
            for v in values { singles += Reducer.reduce(&one, .backend(.valueNotified(Motor.char, v.bytes), at: v.at)) }
            let batch = Reducer.reduce(&batched, .backend(.valuesNotified(Motor.char, values), at: t + 1.5))
            #expect(batched == one)
            #expect(batch == singles)
            #expect(batched.values[Motor.char]?.history.map(\.at) == values.map(\.at))
            #expect(batched.job?.notifications == 2)
        }
    }

    @Test func notifyUntilAMarkerJoinsTheChunks() {
        var s = Motor.world(.notify(address: Motor.id.rawValue, uuid: Motor.uuid, count: nil, duration: nil, until: StreamEnd(marker: Array("EOM".utf8))))
        _ = Motor.ready(&s)
        Fixture.apply(&s, .valueNotified(Motor.char, Array("hello ".utf8)))
        Fixture.apply(&s, .valueNotified(Motor.char, Array("world".utf8)), after: 2)
        // A plain stream waits a moment after its marker: a chunk then would mean disorder.
        #expect(Fixture.apply(&s, .valueNotified(Motor.char, Array("EOM".utf8)), after: 1) == [.startTimer(.settle, after: JobReducer.settleTime)])
        let effects = Reducer.reduce(&s, .jobTimerFired(.settle))
        guard case let .output(.message(m)) = effects.dropFirst().first else { Issue.record("no message in \(effects)"); return }
        #expect(m.bytes == Array("hello world".utf8) && m.chunks == 2 && m.framing == .plain)
        #expect(m.seconds == 3)
        #expect(m.mtu == 247)
        #expect(CommandPrinter(json: true).lines(.message(m), now: Fixture.t0).first?.text.contains(#""mtu":247"#) == true)
    }

    /// EATT's disorder, as plain chunks show it: a chunk after the marker, or a short one
    /// before the end. The command fails and says why; nothing is written.
    @Test func notifyUntilRefusesAPlainStreamThatCameOutOfOrder() {
        for late in [true, false] {
            var s = Motor.world(.notify(address: Motor.id.rawValue, uuid: Motor.uuid, count: nil, duration: nil,
                                        until: StreamEnd(marker: Array("EOM".utf8))))
            _ = Motor.ready(&s)
            Fixture.apply(&s, .valueNotified(Motor.char, Array("0123456789".utf8)))
            if !late { Fixture.apply(&s, .valueNotified(Motor.char, Array("ab".utf8))) }
            Fixture.apply(&s, .valueNotified(Motor.char, Array("0123456789".utf8)))
            var effects = Fixture.apply(&s, .valueNotified(Motor.char, Array("EOM".utf8)))
            if late {
                Fixture.apply(&s, .valueNotified(Motor.char, Array("xyz".utf8)))
                effects = Reducer.reduce(&s, .jobTimerFired(.settle))
            }
            guard case let .output(.failure(why))? = effects.first(where: { if case .output(.failure) = $0 { true } else { false } }) else {
                Issue.record("no failure in \(effects)"); continue
            }
            #expect(why.contains(late ? "1 chunk(s) came after the end marker" : "1 chunk(s) shorter than the others"), "\(why)")
            #expect(why.contains("--framing seq"), "\(why)")
            #expect(!effects.contains { if case .output(.message) = $0 { true } else { false } })
        }
    }

    /// With EATT (the peer's Client Supported Features, 0x2B29, have bit 1: BlueZ wrote 0x07),
    /// plain chunks swapped among equal-sized ones look whole; seen in the lab. notify reads
    /// 0x2B29 and refuses the plain message there; with 0x05 (one bearer) it writes it.
    @Test func notifyUntilRefusesAPlainStreamOnALinkWithEATT() {
        let features = CharacteristicID("/sim/bike/g/c")
        let gatt = GATTService(id: AttributeID("/sim/bike/g"), uuid: "1801", characteristics: [
            GATTCharacteristic(id: features, uuid: "2B29", properties: [.read, .write], descriptors: [])])
        for (value, eatt) in [(UInt8(0x07), true), (0x05, false)] {
            var s = Motor.world(.notify(address: Motor.id.rawValue, uuid: Motor.uuid, count: nil, duration: nil,
                                        until: StreamEnd(marker: Array("EOM".utf8))))
            #expect(Motor.ready(&s, services: [gatt] + Motor.services).contains(.backend(.read(Motor.id, features, offset: 0))))
            #expect(Fixture.apply(&s, .readCompleted(features, .success([value]))) == [])
            Fixture.apply(&s, .valueNotified(Motor.char, Array("0123456789".utf8)))
            Fixture.apply(&s, .valueNotified(Motor.char, Array("abcdefghij".utf8)))
            var effects = Fixture.apply(&s, .valueNotified(Motor.char, Array("EOM".utf8)))
            if !eatt { effects = Reducer.reduce(&s, .jobTimerFired(.settle)) }
            let failure = effects.first { if case .output(.failure) = $0 { true } else { false } }
            let message = effects.first { if case .output(.message) = $0 { true } else { false } }
            if eatt {
                guard case let .output(.failure(why))? = failure else { Issue.record("no failure in \(effects)"); continue }
                #expect(why.contains("EATT") && why.contains("--framing seq") && why.contains("not written"), "\(why)")
                #expect(message == nil)
                #expect(s.job?.exitCode == nil || s.job?.phase == .leaving(exitCode: 1))
            } else {
                #expect(failure == nil && message != nil, "\(effects)")
            }
        }
    }

    /// `--framing seq`: the chunks put back in place, the message out at once, saying so.
    @Test func notifyUntilWithSeqFramingPutsChunksBack() {
        var s = Motor.world(.notify(address: Motor.id.rawValue, uuid: Motor.uuid, count: nil, duration: nil,
                                    until: StreamEnd(marker: Array("EOM".utf8), framing: .seq)))
        _ = Motor.ready(&s)
        Fixture.apply(&s, .valueNotified(Motor.char, StreamFraming.header(1, last: false) + Array("world".utf8)))
        Fixture.apply(&s, .valueNotified(Motor.char, StreamFraming.header(0, last: false) + Array("hello ".utf8)))
        let effects = Fixture.apply(&s, .valueNotified(Motor.char, StreamFraming.header(2, last: true) + Array("EOM".utf8)), after: 1)
        guard case let .output(.message(m))? = effects.dropFirst().first else { Issue.record("no message in \(effects)"); return }
        #expect(m.bytes == Array("hello world".utf8) && m.framing == .seq && m.reordered == 1)
        let line = CommandPrinter(json: false).lines(.message(m), now: Fixture.t0).last?.text ?? ""
        #expect(line.hasSuffix("framing seq, 1 out of order put back in place"), "\(line)")
    }

    /// `forget`: found, removed (Adapter1.RemoveDevice), and done when bluetoothd says it is gone.
    @Test func forgetRemovesTheDeviceAndEndsWhenItIsGone() {
        var s = Motor.world(.forget(address: Motor.id.rawValue))
        let effects = Motor.heard(&s)
        #expect(effects.contains(.backend(.forget(Motor.id))) && !effects.contains(.backend(.connect(Motor.id))), "\(effects)")
        let done = Fixture.apply(&s, .peripheralRemoved(Motor.id))
        #expect(done.contains(.output(.warning("forgot \(Motor.id): unpaired and removed from bluetoothd"))))
        #expect(done.last == .finish(exitCode: 0))
        // A refusal ends it with bluetoothd's reason.
        var refused = Motor.world(.forget(address: Motor.id.rawValue))
        _ = Motor.heard(&refused)
        let failed = Fixture.apply(&refused, .failure(BackendError(name: "org.bluez.Error.Failed", message: "cannot forget the device: busy")))
        #expect(failed.last == .finish(exitCode: 1))
    }

    @Test func aSignalEndsAnOpenEndedCommandAsSuccessAndOthersAsInterrupted() {
        var open = Motor.world(.notify(address: Motor.id.rawValue, uuid: Motor.uuid, count: nil, duration: nil, until: nil))
        _ = Motor.ready(&open)
        _ = Reducer.reduce(&open, .interrupted(signal: 2))
        #expect(open.job?.phase == .leaving(exitCode: 0))
        // 128 + the signal, as a shell says it: Ctrl-C 130, SIGTERM 143, SIGHUP 129; the open-ended one 0 for each.
        for (signal, code) in [(Int32(2), Int32(130)), (15, 143), (1, 129)] {
            var read = Motor.world(.read(address: Motor.id.rawValue, uuid: Motor.uuid, offset: 0))
            _ = Reducer.reduce(&read, .appStarted(recordTo: nil))
            #expect(Reducer.reduce(&read, .interrupted(signal: signal)).last == .finish(exitCode: code), "signal \(signal)")
            var open = Motor.world(.notify(address: Motor.id.rawValue, uuid: Motor.uuid, count: nil, duration: nil, until: nil))
            _ = Motor.ready(&open)
            _ = Reducer.reduce(&open, .interrupted(signal: signal))
            #expect(open.job?.phase == .leaving(exitCode: 0), "signal \(signal)")
        }
    }

    @Test func servicesNameWhatTheDescriptorsSay() {
        var s = Motor.world(.services(address: Motor.id.rawValue))
        let effects = Motor.ready(&s)
        guard case let .output(.services(report)) = effects.dropFirst().first else { Issue.record("no services in \(effects)"); return }
        let c = report.services[0].characteristics[0]
        #expect(c.name == "Motor temperature" && c.presentationFormat?.summary == "sint16, exponent -2, °C")
        let json = CommandPrinter(json: true).lines(.services(report), now: Fixture.t0)[0].text
        #expect(json.contains(#""name":"Motor temperature""#) && json.contains(#""presentationFormat":{"format":"sint16","exponent":-2"#))
        // the link's MTU (BlueZ's GattCharacteristic1.MTU) on every service line; none known: no key
        #expect(report.mtu == 247 && json.contains(#""primary":true,"mtu":247,"characteristics""#))
        var unknown = report
        unknown.mtu = nil
        #expect(!CommandPrinter(json: true).lines(.services(unknown), now: Fixture.t0)[0].text.contains("mtu"))
    }

    @Test func scanPrintsTheListWhenItsTimeIsUp() {
        var s = Motor.world(.scan(duration: 3))
        #expect(Reducer.reduce(&s, .appStarted(recordTo: nil)) == [.backend(.startScan), .startTimer(.duration, after: 3)])
        let effects = Reducer.reduce(&s, .jobTimerFired(.duration))
        guard case let .output(.devices(list)) = effects.first else { Issue.record("no devices in \(effects)"); return }
        #expect(list.map(\.id) == ScanQuery.ids(s))
        #expect(effects.last == .finish(exitCode: 0))
    }

    @Test func watchReconnectsWithBackoffAndDebouncesTheHook() {
        var s = Motor.world(.watch(address: Motor.id.rawValue, uuid: Motor.uuid, debounce: 1))
        #expect(Reducer.reduce(&s, .appStarted(recordTo: nil)) == [.backend(.startScan)])
        #expect(Motor.ready(&s).contains(.backend(.setNotify(Motor.id, Motor.char, true))))
        #expect(Fixture.apply(&s, .notifyChanged(Motor.char, enabled: true, nil))
            == [.output(.watch(event: "subscribed", message: "connected and subscribed to \(Motor.uuid)", seq: nil))])
        let fired = Fixture.apply(&s, .valueNotified(Motor.char, [0x29, 0x09]))
        guard case let .fireHook(cid, event) = fired.first else { Issue.record("no hook in \(fired)"); return }
        #expect(cid == Motor.char && event.name == "Motor temperature" && event.decoded == "23.45 °C")
        #expect(Fixture.apply(&s, .valueNotified(Motor.char, [0x29, 0x09]), after: 0.5) == [])   // within the debounce
        #expect(Fixture.apply(&s, .valueNotified(Motor.char, [0x29, 0x09]), after: 1.5).count == 1)

        let lost = Fixture.apply(&s, .disconnected(Motor.id, .timeout))
        #expect(lost == [.output(.watch(event: "link", message: "link lost: connection timed out", seq: nil)),
                         .output(.watch(event: "link", message: "reconnecting in 1 s", seq: nil)),
                         .startTimer(.reconnect, after: 1)])
        #expect(Reducer.reduce(&s, .jobTimerFired(.reconnect)) == [.backend(.connect(Motor.id)), .startTimer(.connect, after: 20)])
        // Each failed attempt waits longer.
        var failed = Fixture.apply(&s, .connectFailed(Motor.id, .failed("le-connection-abort-by-local")))
        #expect(failed.last == .startTimer(.reconnect, after: 1))
        _ = Reducer.reduce(&s, .jobTimerFired(.reconnect))
        failed = Fixture.apply(&s, .connectFailed(Motor.id, .failed("le-connection-abort-by-local")))
        #expect(failed.last == .startTimer(.reconnect, after: 2))
    }

    /// A link that never comes up is given 20 s, then watch starts again (it cancels the attempt
    /// first); once the link is up, the whole 45 s are for resolving services.
    @Test func watchGivesALinkThatNeverComesUp20Seconds() {
        var s = Motor.world(.watch(address: Motor.id.rawValue, uuid: Motor.uuid, debounce: 0))
        _ = Reducer.reduce(&s, .appStarted(recordTo: nil))
        #expect(Motor.heard(&s).suffix(2) == [.backend(.connect(Motor.id)), .startTimer(.connect, after: 20)])
        Fixture.apply(&s, .connecting(Motor.id, attempt: 1))
        let stalled = Reducer.reduce(&s, .jobTimerFired(.connect))
        #expect(stalled.first == .output(.watch(event: "link", message: "not ready: the link never came up", seq: nil)))
        #expect(stalled.contains(.backend(.disconnect(Motor.id))))
        #expect(stalled.last == .startTimer(.reconnect, after: 1))

        _ = Reducer.reduce(&s, .jobTimerFired(.reconnect))
        #expect(Fixture.apply(&s, .connected(Motor.id)) == [.startTimer(.connect, after: 45)])
    }

    @Test func valueJSONCarriesTheFieldsForPrograms() {
        let v = ValueReport(at: Fixture.t0, address: "E4:1C:22:5D:90:11", uuid: "2A37", name: "Heart Rate Measurement",
                            origin: .notify, bytes: [0x16, 0x49, 0x49, 0x03], decoded: ValueDecoder.value("2A37", [0x16, 0x49, 0x49, 0x03]))
        let line = CommandPrinter(json: true).lines(.value(v), now: Fixture.t0)[0].text
        #expect(line.hasSuffix(#""decoded":"73 bpm, contact, RR 0.821 s","value":{"bpm":73,"contact":true,"rr":[0.821]}}"#))
        let malformed = ValueReport(at: Fixture.t0, address: "E4:1C:22:5D:90:11", uuid: "2A19", name: "Battery Level",
                                    origin: .read, bytes: [1, 2], decoded: ValueDecoder.value("2A19", [1, 2]))
        #expect(CommandPrinter(json: true).lines(.value(malformed), now: Fixture.t0)[0].text
            .hasSuffix(#""decoded":"malformed Battery Level (2 bytes)","malformed":true}"#))
        #expect(CommandPrinter(json: false).lines(.value(v), now: Fixture.t0)[0].text == "16 49 49 03  73 bpm, contact, RR 0.821 s")
    }
}

@Suite("The connection lifecycle: ready after the descriptors")
struct LifecycleTests {
    /// Enter on Demo Bike in the app: connected, services resolved, descriptors being read.
    static func readingDescriptors() -> AppState {
        var s = Fixture.scanning()
        Fixture.apply(&s, Fixture.report(Motor.id, name: "Demo Bike", rssi: -55))
        s.scan.cursor = Motor.id
        _ = Reducer.reduce(&s, .rowActivated)
        Fixture.apply(&s, .connected(Motor.id))
        Fixture.apply(&s, .servicesResolved(Motor.id, Motor.services, mtu: 247))
        return s
    }

    @Test func theDeviceScreenOpensWhenTheDescriptorsAreRead() {
        var s = Self.readingDescriptors()
        #expect(s.route == .scan && s.pendingConnection == Motor.id)
        Fixture.apply(&s, .descriptorRead(Motor.label, .failure(.notPermitted("no"))))
        Fixture.apply(&s, .descriptorRead(Motor.format, .success([0x0E, 0xFE, 0x2F, 0x27, 0x01, 0x00, 0x00])))
        #expect(s.route == .device(Motor.id) && s.pendingConnection == nil)
    }

    @Test func escWhileReadingDescriptorsDoesNotOpenTheDeviceScreenLater() {
        var s = Self.readingDescriptors()
        #expect(Reducer.reduce(&s, .backRequested) == [.backend(.disconnect(Motor.id))])
        Fixture.apply(&s, .descriptorRead(Motor.label, .failure(.notConnected("gone"))))
        Fixture.apply(&s, .descriptorRead(Motor.format, .failure(.notConnected("gone"))))
        #expect(s.route == .scan)
        #expect(s.alert?.message.hasPrefix("Connected") != true)
    }
}
