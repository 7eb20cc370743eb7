import Testing
@testable import Explorer

@Suite("Chunked streams ending in EOM")
struct StreamAssemblyTests {
    @Test func chunksBecomeWholeMessages() {
        var a = StreamAssembly()
        let text = Array(DemoCatalog.streamText.utf8)
        for chunk in chunked(text, 20) { a.add(chunk, at: Timestamp(1)) }
        #expect(a.partial.count == text.count && a.messages.isEmpty)
        a.add(Array("EOM".utf8), at: Timestamp(2))
        #expect(a.messages.count == 1 && a.messages[0].bytes == text && a.messages[0].at == Timestamp(2))
        #expect(a.messages[0].chunks == (text.count + 19) / 20)
        #expect(a.partial.isEmpty)
        // A marker glued to the end of the last chunk also ends the message.
        a.add(Array("helloEOM".utf8), at: Timestamp(3))
        #expect(a.messages.last?.bytes == Array("hello".utf8))
        // An empty message (marker alone) is a message too.
        a.add(Array("EOM".utf8), at: Timestamp(4))
        #expect(a.messages.last?.bytes == [] && a.completed == 3)
    }

    @Test func boundedWithoutAMarker() {
        var a = StreamAssembly()
        let chunk = Bytes(repeating: 0x41, count: 4096)
        for _ in 0..<300 { a.add(chunk, at: Timestamp(1)) }
        #expect(a.partial.count == StreamAssembly.maxMessage)
        #expect(a.overflowed == 300 * 4096 - StreamAssembly.maxMessage)
        for i in 0..<100 { a.add(Array("m\(i)EOM".utf8), at: Timestamp(2)) }
        #expect(a.messages.count == StreamAssembly.keptMessages)
        #expect(a.messages.last?.bytes == Array("m99".utf8))
    }

    @Test func markerComesFromState() {
        var s = Fixture.connectedHRM()
        s.route = .characteristic(Fixture.hrm, Fixture.hrmChar)
        _ = Reducer.reduce(&s, .messageViewToggled)
        #expect(s.streams[Fixture.hrmChar]?.marker == Array("EOM".utf8))
        _ = Reducer.reduce(&s, .messageViewToggled)
        s.streamMarker = Array("\r\n".utf8)
        _ = Reducer.reduce(&s, .messageViewToggled)
        var a = s.streams[Fixture.hrmChar]!
        a.add(Array("line one\r\n".utf8), at: Timestamp(1))
        a.add(Array("EOM".utf8), at: Timestamp(2))
        #expect(a.messages.map(\.bytes) == [Array("line one".utf8)])
        #expect(a.partial == Array("EOM".utf8))
    }

    @Test func demoStreamInTheMessageView() {
        let w = SimulatedWorld(seed: 9)
        var s = AppState(now: Timestamp(0))
        let stream = PeripheralID("5C:F3:70:8A:00:42")
        func run(_ t: Double) { for (at, e) in w.advance(to: t) { _ = Reducer.reduce(&s, .backend(e, at: Timestamp(at))) } }
        w.handle(.startScan, at: 0); run(2)
        w.handle(.connect(stream), at: 2); run(5)
        let c = s.peripherals[stream]!.services![0].characteristics[0]
        s.route = .characteristic(stream, c.id)
        _ = Reducer.reduce(&s, .messageViewToggled)
        w.handle(.setNotify(stream, c.id, true), at: 5); run(12)
        #expect(s.streams[c.id]?.messages.first?.bytes == Array(DemoCatalog.streamText.utf8))
        _ = Reducer.reduce(&s, .messageViewToggled)
        #expect(s.streams[c.id] == nil)
    }

    /// The frames `serve --framing seq` sends for `bytes` in notifications of `chunk` bytes.
    static func seqFrames(_ bytes: Bytes, chunk: Int) -> [Bytes] {
        var frames: [Bytes] = [], offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk - 2)
            frames.append(StreamFraming.header(frames.count, last: false) + bytes[offset..<end])
            offset = end
        }
        return frames + [StreamFraming.header(frames.count, last: true) + Array("EOM".utf8)]
    }

    /// What EATT did in the lab: the chunks all came, some out of place. seq puts them back
    /// (here every window of 8 reversed, and one frame twice), plain cannot.
    @Test func seqPutsReorderedChunksBackInPlace() {
        let file = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var frames = Self.seqFrames(file, chunk: 20)
        #expect(frames.count == 3641 + 1)   // 65,536 bytes in 18-byte payloads, and the last frame
        frames = stride(from: 0, to: frames.count, by: 8).flatMap { frames[$0..<min($0 + 8, frames.count)].reversed() }
        frames.insert(frames[100], at: 200)
        var a = StreamAssembly(framing: .seq)
        var done: [StreamAssembly.Message] = []
        for (i, f) in frames.enumerated() { if let m = a.add(f, at: Timestamp(Double(i))) { done.append(m) } }
        #expect(done.count == 1 && done.first?.bytes == file)
        #expect(done.first?.reordered ?? 0 > 3000 && a.duplicates == 1)
        #expect(done.first?.startedAt == Timestamp(0))
    }

    /// Past 32,768 frames the sequence number wraps, and the message is still whole.
    @Test func seqNumbersWrap() {
        let file = (0..<(40_000 * 3)).map { UInt8(truncatingIfNeeded: $0) }
        var frames = Self.seqFrames(file, chunk: 5)
        frames.swapAt(32_767, 32_768)
        var a = StreamAssembly(framing: .seq, maxMessage: 1 << 24)
        let done = frames.compactMap { a.add($0, at: Timestamp(1)) }
        #expect(done.count == 1 && done.first?.bytes == file && done.first?.reordered == 1)
    }

    /// A frame too short for its header is counted and dropped; a message that never gets
    /// its missing frame stays partial (bounded), never wrong.
    @Test func seqNeverMakesAWrongMessage() {
        var frames = Self.seqFrames(Array("hello, world".utf8), chunk: 5)
        frames.remove(at: 1)
        var a = StreamAssembly(framing: .seq)
        #expect(a.add([0x01], at: Timestamp(0)) == nil && a.malformed == 1)
        #expect(frames.compactMap { a.add($0, at: Timestamp(1)) }.isEmpty)
        #expect(a.partial == Array("hel".utf8))
    }

    /// plain: a chunk shorter than the others before the end is a chunk out of place.
    @Test func plainNoticesAShortChunkBeforeTheEnd() {
        var a = StreamAssembly()
        for c in [Bytes(repeating: 1, count: 20), Bytes(repeating: 2, count: 7), Bytes(repeating: 3, count: 20)] { a.add(c, at: Timestamp(1)) }
        #expect(a.add(Array("EOM".utf8), at: Timestamp(2))?.outOfPlace == 1)
        for c in [Bytes(repeating: 1, count: 20), Bytes(repeating: 3, count: 20), Bytes(repeating: 2, count: 7)] { a.add(c, at: Timestamp(3)) }
        #expect(a.add(Array("EOM".utf8), at: Timestamp(4))?.outOfPlace == 0)
        // The short one first, as when the first chunks were overtaken.
        for c in [Bytes(repeating: 2, count: 7), Bytes(repeating: 1, count: 20), Bytes(repeating: 3, count: 20)] { a.add(c, at: Timestamp(5)) }
        #expect(a.add(Array("EOM".utf8), at: Timestamp(6))?.outOfPlace == 1)
    }
}
