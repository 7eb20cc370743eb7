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
}
