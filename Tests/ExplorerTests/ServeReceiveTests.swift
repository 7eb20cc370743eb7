import Testing
@testable import Explorer

/// `serve --receive FILE --char UUID`: the receiving end counts every write, keeps what it
/// gets (raw: appended; framed: each whole message), answers a read with the tally, and
/// says what came and what is missing on SIGUSR1 and on the way out.
@Suite("serve --receive: counts, keeps, says what is missing")
struct ServeReceiveTests {
    static let char: BLEUUID = "626c6578-0000-4000-8000-00000000a002"
    static let t0 = Timestamp(1_780_000_000)

    static func receiving(_ framing: StreamFraming?) -> AppState {
        var spec = PeripheralSpec(localName: "bx", services: [])
        #expect(spec.addReceiver(char) == nil)
        var s = AppState(now: t0)
        s.serve = ServeState(spec: spec, source: "stream", adapter: "hci7",
                             receive: StreamReceive(char: char, path: "/tmp/in.bin", framing: framing))
        return s
    }

    static func write(_ s: inout AppState, _ bytes: Bytes, at: Double = 0, uuid: BLEUUID = char) -> [Effect] {
        let c = CharacteristicEvent(uuid: uuid, path: "/org/bleexplr/serve1/service0/char0", central: "00:AA:01:00:00:23")
        return Reducer.reduce(&s, .served(.written(c, bytes: bytes, type: "command", offset: 0), mtu: 247, at: t0 + at))
    }

    static func lines(_ effects: [Effect]) -> [ServeLine] {
        effects.compactMap { if case let .output(.serve(l)) = $0 { return l }; return nil }
    }

    @Test func theSpecGetsAWritableCharacteristicUnlessItHasOne() {
        var spec = PeripheralSpec(localName: "bx", services: [])
        #expect(spec.addReceiver(Self.char) == nil)
        #expect(spec.services.first?.characteristics.first?.flags == ["read", "write", "write-without-response"])
        var readOnly = PeripheralSpec(localName: "bx", services: [ServiceSpec(uuid: "FFF0", characteristics: [
            CharacteristicSpec(uuid: Self.char, flags: ["read", "notify"])])])
        #expect(readOnly.addReceiver(Self.char) == "--char \(Self.char): the spec's characteristic takes no write (flags read, notify)")
    }

    /// Raw: each write appended as it comes, its tally the value a read returns; no `write` line.
    @Test func aRawStreamIsAppendedAndCounted() {
        var s = Self.receiving(nil)
        let first = Self.write(&s, [1, 2, 3])
        #expect(first.contains(.serve(.set(Self.char, Array("received 3 bytes in 1 writes".utf8)))))
        #expect(first.contains(.serve(.save([1, 2, 3], append: true))))
        #expect(Self.lines(first).map(\.event) == ["receive-start"])
        let second = Self.write(&s, [4, 5], at: 0.5)
        #expect(second.contains(.serve(.save([4, 5], append: true))) && Self.lines(second).isEmpty)
        // Another characteristic's write is still a `write` line.
        #expect(Self.lines(Self.write(&s, [9], uuid: "2A06")).map(\.event) == ["write"])
        let tally = Self.lines(Reducer.reduce(&s, .serveTallyAsked))
        #expect(tally.map(\.event) == ["receive-progress"])
        #expect(tally.first?.field("writes") == "2" && tally.first?.field("bytes") == "5" && tally.first?.field("seconds") == "0.5")
        let total = Self.lines(Reducer.reduce(&s, .interrupted(signal: 15)))
        #expect(total.map(\.event) == ["receive-total"])
        #expect(s.serve?.received == "2 writes, 5 bytes")
    }

    /// seq: frames put back in place; a lost one is counted as missing, and the file is not
    /// written until the message is whole.
    @Test func aSeqStreamIsPutTogetherAndALostFrameIsMissing() {
        let file: Bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        var frames: [Bytes] = []
        var st = WriteStream(data: file, framing: .seq, type: .command, mtu: 100)
        while let f = st.next() { frames.append(f) }
        #expect(frames.count == 12)

        var s = Self.receiving(.seq)
        var saved: [Effect] = []
        for (i, f) in frames.enumerated() where i != 4 { saved += Self.write(&s, f, at: Double(i) / 10) }
        #expect(!saved.contains { if case .serve(.save) = $0 { return true }; return false })
        let tally = Self.lines(Reducer.reduce(&s, .serveTallyAsked)).first
        #expect(tally?.field("missing") == "1" && tally?.field("waiting") == "7" && tally?.field("messages") == "0", "\(String(describing: tally))")

        s = Self.receiving(.seq)
        saved = []
        for f in [frames[1], frames[0]] + frames[2...] { saved += Self.write(&s, f) }
        #expect(saved.contains(.serve(.save(file, append: false))))
        let done = Self.lines(saved).first { $0.event == "receive-done" }
        #expect(done?.field("bytes") == "1000" && done?.field("reordered") == "1" && done?.field("chunks") == "11", "\(String(describing: done))")
    }

    @Test func aPlainStreamEndsAtItsMarker() {
        var s = Self.receiving(.plain)
        var effects = Self.write(&s, Array("hello ".utf8))
        effects += Self.write(&s, Array("world".utf8))
        effects += Self.write(&s, Array("EOM".utf8))
        #expect(effects.contains(.serve(.save(Array("hello world".utf8), append: false))))
        #expect(Self.lines(effects).map(\.event) == ["receive-start", "receive-done"])
    }
}
