import Testing
@testable import Explorer

@Suite("Value formats")
struct ValueFormatTests {
    let u: BLEUUID = "2A37"

    @Test func integersBothEndiannesses() {
        let b: Bytes = [0x01, 0xFF, 0x80, 0x00]
        #expect(ValueFormat.u8.render(b, uuid: u) == "1 255 128 0")
        #expect(ValueFormat.s8.render(b, uuid: u) == "1 -1 -128 0")
        #expect(ValueFormat.u16le.render(b, uuid: u) == "65281 128")
        #expect(ValueFormat.u16be.render(b, uuid: u) == "511 32768")
        #expect(ValueFormat.s16le.render(b, uuid: u) == "-255 128")
        #expect(ValueFormat.s16be.render(b, uuid: u) == "511 -32768")
        #expect(ValueFormat.u32le.render(b, uuid: u) == "8453889")
        #expect(ValueFormat.s32be.render([0xFF, 0xFF, 0xFF, 0xFE], uuid: u) == "-2")
        #expect(ValueFormat.u64be.render([0, 0, 0, 0, 0, 0, 1, 0], uuid: u) == "256")
        #expect(ValueFormat.s64le.render(Bytes(repeating: 0xFF, count: 8), uuid: u) == "-1")
        #expect(ValueFormat.u16le.render([1, 0, 7], uuid: u) == "1 + 07")
        #expect(ValueFormat.u32le.render([1, 2], uuid: u) == "(2 bytes: too short for u32 LE)")
    }

    @Test func floats() {
        #expect(ValueFormat.float32.render([0x00, 0x00, 0x80, 0x3F], uuid: u) == "1.0")
        #expect(ValueFormat.float64.render([0, 0, 0, 0, 0, 0, 0xF0, 0xBF], uuid: u) == "-1.0")
    }

    /// IEEE 11073-20601 examples: 0xF0D4 = 212 x 10^-1; 0x07FF NaN; FLOAT 0xFF00016C = 364 x 10^-1.
    @Test func ieee11073() {
        #expect(ValueFormat.sfloat.render([0xD4, 0xF0], uuid: u) == "21.2")
        #expect(ValueFormat.sfloat.render([0xFF, 0x07], uuid: u) == "NaN")
        #expect(ValueFormat.sfloat.render([0x00, 0x08], uuid: u) == "NRes")
        #expect(ValueFormat.sfloat.render([0xFF, 0x0F], uuid: u) == "-1")
        #expect(ValueFormat.sfloat.render([0x02, 0x20], uuid: u) == "200")
        #expect(ValueFormat.float11073.render([0x6C, 0x01, 0x00, 0xFF], uuid: u) == "36.4")
        #expect(ValueFormat.float11073.render([0xFE, 0xFF, 0x7F, 0x00], uuid: u) == "+INF")
        #expect(ValueFormat.float11073.render([0xFF, 0xFF, 0xFF, 0xFE], uuid: u) == "-0.01")
    }

    @Test func textAndCycling() {
        #expect(ValueFormat.ascii.render([0x41, 0xE2, 0x82, 0xAC, 0x0A], uuid: u) == "\"A····\"")
        #expect(ValueFormat.utf8.render([0x41, 0xE2, 0x82, 0xAC, 0x0A], uuid: u) == "\"A€·\"")
        #expect(ValueFormat.decoded.render([0x06, 72], uuid: u) == "72 bpm, contact")
        #expect(ValueFormat.decoded.render([1, 2], uuid: "1234") == "01 02")
        var f = ValueFormat.decoded
        for _ in ValueFormat.allCases { f = f.next }
        #expect(f == .decoded)
        #expect(ValueFormat.decoded.previous == .float11073)
        // Every format takes any bytes without trapping.
        for format in ValueFormat.allCases {
            for n in 0..<10 { _ = format.render(Bytes(repeating: 0xFF, count: n), uuid: u) }
        }
    }

    @Test func reducerCyclesTheOpenCharacteristic() {
        var s = Fixture.connectedHRM()
        #expect(Reducer.reduce(&s, .formatCycled(forward: true)) == [])
        #expect(s.valueFormats.isEmpty)   // not on a characteristic screen
        s.route = .characteristic(Fixture.hrm, Fixture.hrmChar)
        _ = Reducer.reduce(&s, .formatCycled(forward: true))
        #expect(s.valueFormats[Fixture.hrmChar] == .hex)
        _ = Reducer.reduce(&s, .formatCycled(forward: false))
        _ = Reducer.reduce(&s, .formatCycled(forward: false))
        #expect(s.valueFormats[Fixture.hrmChar] == .float11073)
    }
}
