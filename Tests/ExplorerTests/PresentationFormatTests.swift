import Testing
@testable import Explorer

@Suite("Presentation Format descriptor (0x2904)")
struct PresentationFormatTests {
    /// sint16, exponent -2, degree Celsius, namespace SIG, description 0.
    let celsius: Bytes = [0x0E, 0xFE, 0x2F, 0x27, 0x01, 0x00, 0x00]

    @Test func parsesSevenBytes() throws {
        let f = try #require(PresentationFormat(celsius))
        #expect(f == PresentationFormat(format: 0x0E, exponent: -2, unit: 0x272F, namespace: 1, description: 0))
        #expect(f.summary == "sint16, exponent -2, °C")
        #expect(PresentationFormat(format: 0x04, unit: 0x271D).summary == "uint8, refractive index")
        #expect(PresentationFormat(format: 0x04, unit: 0x2799).summary == "uint8, unit 0x2799")
        #expect(PresentationFormat(Array(celsius.prefix(6))) == nil)
        #expect(PresentationFormat(celsius + [0]) == nil)
    }

    @Test func rendersWithExponentAndUnit() throws {
        let f = try #require(PresentationFormat(celsius))
        #expect(f.render([0x29, 0x09]) == "23.45 °C")            // 2345
        #expect(f.render([0x9C, 0xFF]) == "-1.00 °C")             // -100
        #expect(f.number([0x29, 0x09]) == 23.45)
        #expect(f.render([0x29]) == "malformed sint16 (1 byte)")
        #expect(PresentationFormat(format: 0x04, unit: 0x27AD).render([87]) == "87 %")
        #expect(PresentationFormat(format: 0x06, exponent: 1, unit: 0x2724).render([0x10, 0x27]) == "100000 Pa")
        #expect(PresentationFormat(format: 0x0D).render([0xFF, 0xFF]) == "-1")          // sint12
        #expect(PresentationFormat(format: 0x05).render([0xFF, 0xFF]) == "4095")        // uint12
        #expect(PresentationFormat(format: 0x16, unit: 0x272F).render([0xD4, 0xF0]) == "21.2 °C")
        #expect(PresentationFormat(format: 0x16).number([0xFF, 0x07]) == nil)           // NaN
        #expect(PresentationFormat(format: 0x19).render([0x48, 0x69, 0x1B]) == "\"Hi·\"")
        #expect(PresentationFormat(format: 0x01).render([0x01]) == "true")
        #expect(PresentationFormat(format: 0x0A).render(Bytes(repeating: 0xFF, count: 8)) == nil)  // past Int
        #expect(PresentationFormat(format: 0x1B).render([1, 2]) == nil)
        #expect(PresentationFormat(format: 0xEE).render([1]) == nil)
        #expect(PresentationFormat(format: 0xEE).summary == "format 0xee")
    }

    @Test func drivesTheDefaultDisplay() {
        var s = AppState(now: Timestamp(0))
        let ud = GATTDescriptor(id: AttributeID("/c/d1"), uuid: "2904")
        let c = GATTCharacteristic(id: AttributeID("/c"), uuid: "1234ABCD-0000-1000-8000-000000000001",
                                   properties: [.read], descriptors: [ud])
        #expect(s.decoded(c, [0x29, 0x09]) == nil)
        s.descriptorValues[ud.id] = celsius
        #expect(s.decoded(c, [0x29, 0x09]) == "23.45 °C")
        #expect(s.number(c, [0x29, 0x09]) == 23.45)
        // A known characteristic with a struct format keeps its own decoder.
        let hr = GATTCharacteristic(id: AttributeID("/h"), uuid: "2A37", properties: [.notify], descriptors: [ud])
        s.descriptorValues[ud.id] = [0x1B, 0, 0, 0x27, 1, 0, 0]
        #expect(s.decoded(hr, [0x06, 72]) == "72 bpm, contact")
        #expect(s.number(hr, [0x06, 72]) == 72)
    }
}
