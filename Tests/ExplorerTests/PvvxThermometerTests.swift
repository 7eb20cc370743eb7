import Testing
@testable import Explorer

/// ATC_MiThermometer's 0x181A layouts, with ble_monitor's vectors (test_atc_parser.py).
@Suite("pvvx / atc1441 thermometer firmware")
struct PvvxThermometerTests {
    static func bytes(_ h: String) -> Bytes { parseHex(h)! }

    @Test func pvvxCustomFormat() throws {
        let v = try #require(VendorFrames.service("181A", Self.bytes("f4830238c1a4a9066911b60b58f70d")).first)
        #expect(v.text == "pvvx thermometer · 17.05 °C · 44.57 % · 2998 mV · battery 88 %")
        #expect(v.fields.first { $0.key == "mac" }?.value == .string("A4:C1:38:02:83:F4"))
        #expect(v.fields.first { $0.key == "counter" }?.value == .number(247))
    }

    @Test func encryptedFramesShowOnlyTheirCounter() throws {
        let v = try #require(VendorFrames.service("181A", Self.bytes("11d603fbfa7b6dfb1e26fd")).first)
        #expect(v.fields.first { $0.key == "encrypted" }?.value == .bool(true))
        #expect(v.fields.first { $0.key == "counter" }?.value == .number(17))
        #expect(!v.text.contains("°C"))
    }

    @Test func atc1441Format() throws {
        // MAC A4:C1:38:8D:18:B2, 21.5 °C, 55 %, 80 %, 2950 mV, counter 7.
        let v = try #require(VendorFrames.service("181A", Self.bytes("a4c1388d18b200d737500b8607")).first)
        #expect(v.text == "atc1441 thermometer · 21.5 °C · 55 % · 2950 mV · battery 80 %")
    }

    /// Other lengths are 0x181A as the SIG meant it, or unknown: no reading claimed.
    @Test func otherLengthsAreLeftAsBytes() {
        for n in [0, 1, 7, 9, 12, 14, 16, 20] {
            #expect(VendorFrames.service("181A", Bytes(repeating: 0x41, count: n)).isEmpty)
        }
    }
}
