import Testing
@testable import Explorer

@Suite("serve is a reducer: centrals' events in, server commands and lines out")
struct ServeReducerTests {
    static let char: BLEUUID = "626c6578-0000-4000-8000-00000000a001"
    static let spec = PeripheralSpec(localName: "bx", services: [
        ServiceSpec(uuid: "FFF0", characteristics: [CharacteristicSpec(uuid: char, flags: ["read", "notify"], value: [0])])])
    static let t0 = Timestamp(1_780_000_000)

    static func serving(stream: Bytes? = nil) -> AppState {
        var s = AppState(now: t0)
        s.serve = ServeState(spec: spec, source: "spec.json", adapter: "hci7", stream: stream.map { StreamSend(bytes: $0, char: char) })
        return s
    }

    static func subscribed() -> ServeEvent {
        .subscribed(CharacteristicEvent(uuid: char, path: "/x/service0/char0", central: nil))
    }

    static func commands(_ effects: [Effect]) -> [ServeCommand] {
        effects.compactMap { if case let .serve(c) = $0 { return c }; return nil }
    }

    @Test func aStreamGoesOutAWindowAtATimeThenTheMarker() {
        var s = Self.serving(stream: Array(repeating: 0x41, count: 20 * 10 + 5))
        let started = Self.commands(Reducer.reduce(&s, .served(Self.subscribed(), mtu: 23, at: Self.t0)))
        let chunk = Array(repeating: UInt8(0x41), count: 20)
        #expect(started == [.streamWindow(Self.char, Array(repeating: chunk, count: StreamSend.window), generation: 1, end: nil)])
        #expect(Reducer.reduce(&s, .serveWindowSent(generation: 1, sent: StreamSend.window, at: Self.t0)) == [])
        // A drain for an older run is ignored; this run's sends the rest, the last window.
        #expect(Reducer.reduce(&s, .serveDrained(generation: 0, ok: true, at: Self.t0 + 1)) == [])
        let rest = Self.commands(Reducer.reduce(&s, .serveDrained(generation: 1, ok: true, at: Self.t0 + 1)))
        #expect(rest == [.streamWindow(Self.char, [chunk, chunk, Array(repeating: 0x41, count: 5)], generation: 1, end: StreamSend.marker)])
        let done = Reducer.reduce(&s, .serveWindowSent(generation: 1, sent: 3, at: Self.t0 + 1))
        guard case let .output(.serve(line))? = done.last else { Issue.record("no line in \(done)"); return }
        #expect(line.event == "stream-done" && line.field("bytes") == "205" && line.field("chunks") == "11")
        #expect(s.serve?.stream?.hasPrefix("done: bytes 205, chunks 11") == true)
    }

    /// `--framing seq`: every chunk behind its sequence number, the last frame flagged and
    /// carrying the marker; what the reducer sends, reassembled, is the file.
    @Test func aSeqStreamNumbersItsChunks() {
        let file = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        var s = AppState(now: Self.t0)
        s.serve = ServeState(spec: Self.spec, source: "spec.json", adapter: "hci7",
                             stream: StreamSend(bytes: file, char: Self.char, framing: .seq))
        var effects = Reducer.reduce(&s, .served(Self.subscribed(), mtu: 23, at: Self.t0))
        var a = StreamAssembly(framing: .seq)
        var message: StreamAssembly.Message?
        var windows = 0
        while case let .streamWindow(_, chunks, generation, end)? = Self.commands(effects).first, windows < 100 {
            windows += 1
            #expect(chunks.allSatisfy { $0.count <= 20 })
            for c in chunks.reversed() { message = a.add(c, at: Self.t0) ?? message }   // each window backwards
            if let end { message = a.add(end, at: Self.t0) ?? message; #expect(end == [UInt8(56), 0x80] + Array("EOM".utf8)) }
            _ = Reducer.reduce(&s, .serveWindowSent(generation: generation, sent: chunks.count, at: Self.t0))
            if end != nil { break }
            effects = Reducer.reduce(&s, .serveDrained(generation: generation, ok: true, at: Self.t0))
        }
        #expect(windows == 7 && message?.bytes == file && message?.chunks == 56)
        #expect(s.serve?.stream?.hasPrefix("done: bytes 1000, chunks 56") == true)
    }

    @Test func chunksFollowTheMTUAndAChunkThatDoesNotGoOutStopsTheStream() {
        var s = Self.serving(stream: Array(repeating: 1, count: 5000))
        let started = Self.commands(Reducer.reduce(&s, .served(Self.subscribed(), mtu: 247, at: Self.t0)))
        guard case let .streamWindow(_, chunks, _, _)? = started.first else { Issue.record("no window in \(started)"); return }
        #expect(chunks.first?.count == 244)
        // MTU 517: 512 bytes, ATT's longest value, not 514 (bluetoothd would cut them).
        var big = Self.serving(stream: Array(repeating: 1, count: 5000))
        let window = Self.commands(Reducer.reduce(&big, .served(Self.subscribed(), mtu: 517, at: Self.t0)))
        guard case let .streamWindow(_, bigChunks, _, _)? = window.first else { Issue.record("no window in \(window)"); return }
        #expect(bigChunks.first?.count == 512)
        // Three of eight went: the stream stops there, and says how far it got.
        let stopped = Reducer.reduce(&s, .serveWindowSent(generation: 1, sent: 3, at: Self.t0))
        guard case let .output(.serve(l))? = stopped.first else { Issue.record("no line in \(stopped)"); return }
        #expect(l.event == "stream-stopped" && l.field("bytes") == String(3 * 244) && l.field("chunks") == "3")
        #expect(Reducer.reduce(&s, .serveDrained(generation: 1, ok: true, at: Self.t0)) == [])
    }

    @Test func controlLinesBecomeCommandsOrOneClearError() {
        var s = Self.serving()
        #expect(Reducer.reduce(&s, .serveControl("notify \(Self.char) 01ff", at: Self.t0)) == [.serve(.notify(Self.char, [1, 0xFF]))])
        #expect(Reducer.reduce(&s, .serveControl("set \(Self.char) \"hi\"", at: Self.t0)) == [.serve(.set(Self.char, Array("hi".utf8)))])
        let said = Reducer.reduce(&s, .serveNotified(Self.char, [1, 0xFF], sent: true, at: Self.t0))
        #expect(said == [.output(.serve(ServeLine("notify", [.init("uuid", Self.char.canonical), .init("hex", "01ff"), .init("sent", "yes")])))])
        guard case let .output(.serve(bad))? = Reducer.reduce(&s, .serveControl("notify 2A19 01", at: Self.t0)).first else {
            Issue.record("no error line"); return
        }
        #expect(bad.event == "error" && bad.field("message") == "no characteristic 2A19")
        #expect(Reducer.reduce(&s, .serveControl("", at: Self.t0)) == [])
    }

    @Test func aFirstRegistrationThatFailsEndsServeWithStatusOne() {
        var s = Self.serving()
        let effects = Reducer.reduce(&s, .served(.registrationFailed("Failed: no adapter"), mtu: nil, at: Self.t0))
        #expect(effects.last == .serve(.stop))
        #expect(Reducer.reduce(&s, .serveStopped) == [.finish(exitCode: 1)])
        // After one success, a failure (bluetoothd restarting) is only said.
        var t = Self.serving()
        _ = Reducer.reduce(&t, .served(.registered(adapter: "hci7"), mtu: nil, at: Self.t0))
        #expect(!Reducer.reduce(&t, .served(.registrationFailed("x"), mtu: nil, at: Self.t0)).contains(.serve(.stop)))
        #expect(Reducer.reduce(&t, .interrupted(signal: 2)) == [.serve(.stop)])
        #expect(Reducer.reduce(&t, .interrupted(signal: 2)) == [])
        #expect(Reducer.reduce(&t, .serveStopped) == [.finish(exitCode: 0)])
    }
}
