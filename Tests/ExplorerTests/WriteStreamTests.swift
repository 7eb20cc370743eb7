import Testing
@testable import Explorer

/// A UART-style device: RX takes writes with and without response, TX notifies (its CCCD
/// is the only descriptor), as Nordic's UART service has them.
private enum Uart {
    static let id = PeripheralID("D0:0D:F1:A4:11:07")
    static let rx = CharacteristicID("/sim/uart/s/rx")
    static let tx = CharacteristicID("/sim/uart/s/tx")
    static let cccd = AttributeID("/sim/uart/s/tx/d")
    static let rxUUID: BLEUUID = "6E400002-B5A3-F393-E0A9-E50E24DCCA9E"

    static func services(rx props: CharacteristicProperties = [.write, .writeWithoutResponse]) -> [GATTService] {
        [GATTService(id: AttributeID("/sim/uart/s"), uuid: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E", characteristics: [
            GATTCharacteristic(id: rx, uuid: rxUUID, properties: props),
            GATTCharacteristic(id: tx, uuid: "6E400003-B5A3-F393-E0A9-E50E24DCCA9E", properties: [.notify],
                               descriptors: [GATTDescriptor(id: cccd, uuid: "2902")]),
        ])]
    }

    /// The job set, the device heard, connected and resolved: the effects of the last step.
    static func ready(_ s: inout AppState, _ data: Bytes, type: WriteType? = nil, framing: StreamFraming? = nil,
                      rx props: CharacteristicProperties = [.write, .writeWithoutResponse], mtu: Int? = 247) -> [Effect] {
        s = Fixture.scanning()
        s.job = JobState(job: .writeStream(address: id.rawValue, uuid: rxUUID, data: data, type: type, framing: framing))
        _ = Reducer.reduce(&s, .appStarted(recordTo: nil))
        _ = Fixture.apply(&s, Fixture.report(id, name: "UART", rssi: -50))
        _ = Fixture.apply(&s, .connected(id))
        return Fixture.apply(&s, .servicesResolved(id, services(rx: props), mtu: mtu))
    }

    static func writes(_ effects: [Effect]) -> [Bytes] {
        effects.compactMap { if case let .backend(.write(_, c, b, _)) = $0, c == rx { return b }; return nil }
    }
}

@Suite("write --file: chunks, back-pressure, framing, the path, the fence")
struct WriteStreamTests {
    static let file: Bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }

    /// Every write the stream makes, in order, by handing them all out.
    static func all(_ st: WriteStream) -> [Bytes] {
        var st = st, out: [Bytes] = []
        while let b = st.next() { out.append(b) }
        #expect(out.count == st.total)
        return out
    }

    @Test func chunksAreMTUMinusThreeCappedAt510() {
        #expect(WriteStream(data: [1], framing: nil, type: .command, mtu: nil).chunk == 20)
        #expect(WriteStream(data: [1], framing: nil, type: .command, mtu: 247).chunk == 244)
        // 510, not ATT's 512: an older BlueZ server (5.66) drops longer Write Commands.
        #expect(WriteStream(data: [1], framing: nil, type: .command, mtu: 517).chunk == 510)
        #expect(WriteStream(data: [1], framing: .seq, type: .command, mtu: 517).payload == 508)
        let raw = Self.all(WriteStream(data: Self.file, framing: nil, type: .command, mtu: 247))
        #expect(raw.count == 21 && raw.dropLast().allSatisfy { $0.count == 244 } && raw.last?.count == 5000 - 20 * 244)
        #expect(Array(raw.joined()) == Self.file)
    }

    @Test func framedStreamsGoBackTogetherAsTheReceiverReadsThem() {
        for framing in StreamFraming.allCases {
            let writes = Self.all(WriteStream(data: Self.file, framing: framing, type: .command, mtu: 100))
            #expect(writes.allSatisfy { $0.count <= 97 })
            var a = StreamAssembly(framing: framing)
            // seq survives the order EATT's bearers give: each pair swapped.
            var order = writes
            if framing == .seq {
                for i in stride(from: 0, to: order.count - 1, by: 2) { order.swapAt(i, i + 1) }
            }
            var messages: [Bytes] = []
            for w in order { if let m = a.add(w, at: Fixture.t0) { messages.append(m.bytes) } }
            #expect(messages == [Self.file], "\(framing)")
        }
        let seq = Self.all(WriteStream(data: [1, 2, 3], framing: .seq, type: .command, mtu: 23))
        #expect(seq == [[0x00, 0x00, 1, 2, 3], [0x01, 0x80] + Array("EOM".utf8)])
        #expect(Self.all(WriteStream(data: [1, 2, 3], framing: .plain, type: .command, mtu: 23)) == [[1, 2, 3], Array("EOM".utf8)])
    }

    /// AcquireWrite first; through its socket at most 32 writes are handed over and not
    /// yet answered; each answer lets exactly one more go.
    @Test func theSocketPathKeepsAWindowAndEndsWithFlushAndARead() {
        var s = AppState(now: Fixture.t0)
        let ready = Uart.ready(&s, Self.file + Self.file + Self.file + Self.file)   // 20,000 bytes: 82 writes
        #expect(ready.contains(.backend(.acquireWrite(Uart.id, Uart.rx))))
        #expect(Uart.writes(ready).isEmpty)
        let first = Fixture.apply(&s, .writeAcquired(Uart.rx, mtu: 247))
        #expect(first.first == .output(.warning("writes through a socket (AcquireWrite), MTU 247, 244 bytes a write")))
        var sent = Uart.writes(first)
        #expect(sent.count == WriteStream.socketWindow)
        var answered = 0
        var last: [Effect] = []
        while answered < sent.count {
            last = Fixture.apply(&s, .writeCompleted(Uart.rx, sent[answered], .command, nil))
            answered += 1
            let more = Uart.writes(last)
            #expect(more.count <= 1)
            sent += more
            #expect(sent.count - answered <= WriteStream.socketWindow)
        }
        #expect(sent.count == 82)
        #expect(Array(sent.joined()) == Self.file + Self.file + Self.file + Self.file)
        // In bluetoothd's hands is not on the air: flush, then the device's CCCD is read.
        #expect(last.contains(.backend(.flushWrites(Uart.id, Uart.rx))))
        let fence = Fixture.apply(&s, .writesFlushed(Uart.rx))
        #expect(fence.contains(.backend(.readDescriptor(Uart.id, Uart.cccd))))
        // The read waits behind all 82 writes still in bluetoothd's queue: 15 s + 8.2 s.
        #expect(fence.contains(.startTimer(.operation, after: JobReducer.operationTimeout + 82 * WriteStream.fenceAllowancePerWrite)))
        let end = Fixture.apply(&s, .descriptorRead(Uart.cccd, .success([0, 0])), after: 0.5)
        guard case let .output(.streamWritten(r))? = end.dropFirst().first else { Issue.record("\(end)"); return }
        #expect(r.bytes == 20_000 && r.chunks == 82 && r.chunkSize == 244 && r.mtu == 247)
        #expect(r.path == .acquireWrite && r.type == .command && r.confirmed && r.framing == nil)
        #expect(end.contains(.backend(.disconnect(Uart.id))))
    }

    /// No socket (a TCP bus, no WriteAcquired, BLEEXPLR_WRITE=value): WriteValue, 16 calls
    /// in flight, the reason said; the MTU stays the services'.
    @Test func withoutASocketWriteValueKeepsSixteenCallsInFlight() {
        var s = AppState(now: Fixture.t0)
        _ = Uart.ready(&s, Self.file, framing: .seq, mtu: nil)   // BlueZ said none with the services: the answer does
        let first = Fixture.apply(&s, .writeNotAcquired(Uart.rx, reason: "BLEEXPLR_WRITE=value", mtu: 185))
        #expect(first.first == .output(.warning("writes through WriteValue (type command), MTU 185, 182 bytes a write: BLEEXPLR_WRITE=value")))
        #expect(Uart.writes(first).count == WriteStream.callWindow)
        #expect(first.allSatisfy { if case let .backend(.write(_, _, _, t)) = $0 { return t == .command }; return true })
    }

    /// A characteristic without write-without-response takes the file as write requests,
    /// one at a time (bluetoothd refuses a second while one is out), and no fence is needed.
    @Test func requestsGoOneAtATimeAndAreTheirOwnConfirmation() {
        var s = AppState(now: Fixture.t0)
        let ready = Uart.ready(&s, Array(Self.file.prefix(600)), rx: [.write])
        #expect(!ready.contains(.backend(.acquireWrite(Uart.id, Uart.rx))))
        var sent = Uart.writes(ready)
        #expect(sent.count == 1)
        var last: [Effect] = []
        for _ in 0..<3 {
            last = Fixture.apply(&s, .writeCompleted(Uart.rx, sent.last!, .request, nil))
            sent += Uart.writes(last)
        }
        #expect(sent.map(\.count) == [244, 244, 112])
        guard case let .output(.streamWritten(r))? = last.dropFirst().first else { Issue.record("\(last)"); return }
        #expect(r.type == .request && r.path == .writeValue && r.confirmed)
    }

    @Test func refusedTypesAndFailuresSayWhy() {
        var s = AppState(now: Fixture.t0)
        var effects = Uart.ready(&s, Self.file, type: .command, rx: [.write])
        #expect(effects.contains(.output(.failure(
            "\(Uart.rxUUID) on \(Uart.id.rawValue) does not take a write of type command (it takes --type request)"))))
        _ = Uart.ready(&s, Self.file)
        let sent = Uart.writes(Fixture.apply(&s, .writeNotAcquired(Uart.rx, reason: "x", mtu: nil)))
        _ = Fixture.apply(&s, .writeCompleted(Uart.rx, sent[0], .command, nil))
        effects = Fixture.apply(&s, .writeCompleted(Uart.rx, sent[1], .command, .failed("Not connected")))
        #expect(effects.first == .output(.failure("write 2 of 21 failed: Not connected (4148 of 5000 bytes handed over)")))
        // A stall names where it stopped.
        _ = Uart.ready(&s, Self.file)
        _ = Fixture.apply(&s, .writeNotAcquired(Uart.rx, reason: "x", mtu: nil))
        effects = Reducer.reduce(&s, .jobTimerFired(.operation))
        #expect(effects.first == .output(.failure("no answer from \(Uart.id.rawValue) after 0 of 21 writes")))
    }

    /// A device with nothing readable: the figures stop at the hand-over, and it is said.
    @Test func nothingToReadIsSaidNotHidden() {
        var s = AppState(now: Fixture.t0)
        s = Fixture.scanning()
        s.job = JobState(job: .writeStream(address: Uart.id.rawValue, uuid: Uart.rxUUID, data: [1, 2, 3], type: nil, framing: nil))
        _ = Reducer.reduce(&s, .appStarted(recordTo: nil))
        _ = Fixture.apply(&s, Fixture.report(Uart.id, name: "UART", rssi: -50))
        _ = Fixture.apply(&s, .connected(Uart.id))
        let only = [GATTService(id: AttributeID("/sim/uart/s"), uuid: "FFE0", characteristics: [
            GATTCharacteristic(id: Uart.rx, uuid: Uart.rxUUID, properties: [.writeWithoutResponse])])]
        _ = Fixture.apply(&s, .servicesResolved(Uart.id, only, mtu: 23))
        let sent = Uart.writes(Fixture.apply(&s, .writeNotAcquired(Uart.rx, reason: "x", mtu: nil)))
        #expect(Fixture.apply(&s, .writeCompleted(Uart.rx, sent[0], .command, nil)).contains(.backend(.flushWrites(Uart.id, Uart.rx))))
        let end = Fixture.apply(&s, .writesFlushed(Uart.rx))
        #expect(end.first == .output(.warning("\(Uart.id.rawValue) has nothing to read: the figures end when bluetoothd took the last write, "
                                              + "and closing the link now may cut what it still sends")))
        guard case let .output(.streamWritten(r))? = end.dropFirst(2).first else { Issue.record("\(end)"); return }
        #expect(!r.confirmed && r.chunks == 1)
    }

    @Test func theLineSaysBytesChunksRateAndPath() {
        let r = StreamWriteReport(address: "D0:0D:F1:A4:11:07", uuid: Uart.rxUUID, bytes: 65536, chunks: 270, chunkSize: 244, mtu: 247,
                                  path: .acquireWrite, type: .command, framing: .seq, seconds: 2, queuedSeconds: 0.01, confirmed: true)
        #expect(CommandPrinter.streamText(r) == "wrote 65536 bytes in 270 writes of up to 244 bytes in 2.0 s: 135 writes/s, "
                + "262.1 kbit/s (AcquireWrite, MTU 247, write without response, framing seq; the device answered a read after the last write)")
        #expect(CommandPrinter.streamJSON(r) == #"{"event":"stream-written","address":"D0:0D:F1:A4:11:07","uuid":"6e400002-b5a3-f393-e0a9-e50e24dcca9e","#
                + #""bytes":65536,"chunks":270,"chunkSize":244,"mtu":247,"path":"AcquireWrite","writeType":"command","framing":"seq","#
                + #""seconds":2,"queuedSeconds":0.01,"chunksPerSecond":135,"kbitPerSecond":262.1,"confirmed":true}"#)
    }

    @Test func thePathIsRecordedAndReadBack() throws {
        var s = AppState(now: Fixture.t0)
        _ = Uart.ready(&s, [1])
        let header = RecordingFormat.headerLine(.init(started: Fixture.t0, backend: "bluez", adapter: "hci0", seed: nil))
        let events: [BackendEvent] = [.writeAcquired(Uart.rx, mtu: 247), .writeNotAcquired(Uart.rx, reason: "BLEEXPLR_WRITE=value", mtu: 185),
                                      .writesFlushed(Uart.rx)]
        let lines = try events.map { try #require(RecordingFormat.line(for: .backend($0, at: Fixture.t0), state: s)) }
        #expect(lines[0].contains(#""type":"write-acquired""#) && lines[0].contains(#""mtu":247"#), "\(lines[0])")
        let r = try Recording.parse(([header] + lines).joined(separator: "\n") + "\n")
        #expect(r.skipped == 0 && r.events.map(\.event) == events)
    }
}
