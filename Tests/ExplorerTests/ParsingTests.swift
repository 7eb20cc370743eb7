import Foundation
import Testing
@testable import Explorer

@Suite("UUIDs, advertisements, values")
struct ParsingTests {
    /// The failable parser, not the literal initializer.
    static func uuid(_ text: String) -> BLEUUID? { BLEUUID(text) }

    @Test func uuidFormsAreOneKey() {
        #expect(Self.uuid("180D") == Self.uuid("0000180d-0000-1000-8000-00805f9b34fb"))
        #expect(Self.uuid("0x180d") == Self.uuid("180D"))
        #expect(Self.uuid("180D")?.description == "180D")
        #expect(Self.uuid("e20a39f473f54bc4a12f17d1ad07a961")?.description == "E20A39F4-73F5-4BC4-A12F-17D1AD07A961")
        #expect(Self.uuid("xyz") == nil)
        #expect(Self.uuid("1234-") == nil)
        #expect(Self.uuid("") == nil)
        #expect(Self.uuid("0000180d-0000-1000-8000-00805f9b34fg") == nil)
    }

    @Test func iBeacon() {
        let uuid: BLEUUID = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        let data: Bytes = [0x02, 0x15] + DemoCatalog.uuidBytes(uuid) + [0x00, 0x01, 0x00, 0x2A, 0xC5]
        let adv = Advertisement(manufacturerData: [0x004C: data])
        #expect(adv.beacon == .iBeacon(uuid: uuid, major: 1, minor: 42, measuredPower: -59))
        let truncated = Advertisement(manufacturerData: [0x004C: Array(data.prefix(10))])
        #expect(truncated.beacon == .malformed(kind: "iBeacon"))
        #expect(abs(Beacon.distance(rssi: -59, measuredPower: -59) - 1) < 1e-9)
        #expect(abs(Beacon.distance(rssi: -79, measuredPower: -59) - 10) < 1e-6)
    }

    @Test func eddystoneURL() {
        let adv = Advertisement(serviceData: ["FEAA": [0x10, 0xEB, 0x03] + Array("example".utf8) + [0x07]])
        #expect(adv.beacon == .eddystoneURL(url: "https://example.com", txPower: -21))
        let bad = Advertisement(serviceData: ["FEAA": [0x10, 0xEB, 0x09, 0x41]])
        #expect(bad.beacon == .malformed(kind: "Eddystone-URL"))
        let control = Advertisement(serviceData: ["FEAA": [0x10, 0xEB, 0x03, 0x1B, 0x5B]])
        #expect(control.beacon == .malformed(kind: "Eddystone-URL"))
    }

    @Test func heartRateMeasurement() {
        #expect(ValueDecoder.decode("2A37", [0x06, 72]) == "72 bpm, contact")
        // u16 bpm, energy, two RR intervals (1024 = 1 s)
        #expect(ValueDecoder.decode("2A37", [0x19, 0x2C, 0x01, 0x10, 0x00, 0x00, 0x04, 0x00, 0x02])
                == "300 bpm, energy 16 kJ, RR 1.000 0.500 s")
        #expect(ValueDecoder.decode("2A37", [0x01, 0x2C]) == "malformed Heart Rate Measurement (2 bytes)")
        #expect(ValueDecoder.decode("2A37", []) == "malformed Heart Rate Measurement (0 bytes)")
    }

    @Test func simpleValues() {
        #expect(ValueDecoder.decode("2A19", [87]) == "87 %")
        #expect(ValueDecoder.decode("2A19", [1, 2]) == "malformed Battery Level (2 bytes)")
        #expect(ValueDecoder.decode("2A6E", [0x66, 0x08]) == "21.50 °C")
        #expect(ValueDecoder.decode("2A6E", [0x9C, 0xFF]) == "-1.00 °C")
        #expect(ValueDecoder.decode("2A6F", [0x2C, 0x15]) == "54.20 %")
        #expect(ValueDecoder.decode("2A38", [1]) == "Chest")
        #expect(ValueDecoder.decode("2A29", Array("ACME".utf8)) == "\"ACME\"")
        #expect(ValueDecoder.decode("1234", [1]) == nil)
        #expect(ValueDecoder.printableText([0x41, 0x1B, 0x0A, 0xFF]) == "A···")
    }

    @Test func numbersForSparklines() {
        #expect(ValueDecoder.number("2A37", [0x06, 72]) == 72)
        #expect(ValueDecoder.number("2A37", [0x01, 0x2C, 0x01]) == 300)
        #expect(ValueDecoder.number("2A37", [0x01]) == nil)
        #expect(ValueDecoder.number("2A19", [64]) == 64)
        #expect(ValueDecoder.number("2A6E", [0x66, 0x08]) == 21.5)
        #expect(ValueDecoder.number("2A6F", [0xFF, 0xFF]) == nil)
        #expect(ValueDecoder.number("2A07", [0xFC]) == -4)
        #expect(ValueDecoder.number("FFE1", [1]) == nil)
    }

    @Test func writeValueInput() throws {
        #expect(try WriteValue.parse("01 ff").get() == [0x01, 0xFF])
        #expect(try WriteValue.parse("0x01,0xFF").get() == [0x01, 0xFF])
        #expect(try WriteValue.parse("01ff3a").get() == [0x01, 0xFF, 0x3A])
        #expect(try WriteValue.parse("\"hi\"").get() == [0x68, 0x69])
        #expect(try WriteValue.parse("'会'").get() == Array("会".utf8))
        #expect(throws: WriteValue.ParseError.self) { try WriteValue.parse("1").get() }
        #expect(throws: WriteValue.ParseError.self) { try WriteValue.parse("\"open").get() }
        #expect(throws: WriteValue.ParseError.self) { try WriteValue.parse("").get() }
        #expect(throws: WriteValue.ParseError.self) { try WriteValue.parse("g1").get() }
    }

    @Test func assignedNames() {
        #expect(AssignedNumbers.serviceName("180D") == "Heart Rate")
        #expect(AssignedNumbers.serviceName("0000180f-0000-1000-8000-00805f9b34fb") == "Battery")
        #expect(AssignedNumbers.characteristicName("2A37") == "Heart Rate Measurement")
        #expect(AssignedNumbers.companyName(0x004C) == "Apple")
        #expect(AssignedNumbers.serviceName("E20A39F4-73F5-4BC4-A12F-17D1AD07A961") == "BTLE Transfer (Apple sample)")
    }

    @Test func fixedFormatting() {
        #expect(formatFixed(21.456, 2) == "21.46")
        #expect(formatFixed(-0.004, 2) == "0.00")
        #expect(formatFixed(-1.5, 1) == "-1.5")
        #expect(Timestamp(1_780_000_000.123).iso8601 == "2026-05-28T20:26:40.123Z")
    }

    /// The calendar is worked out without gmtime_r: it agrees with gmtime_r on leap days,
    /// century years, the ends of months and years, before 1970 and far ahead.
    @Test func timestampsAgreeWithGmtime() {
        var seconds: [Int] = [0, -1, 951_782_400, 951_868_800, 4_107_542_400, 4_107_628_800, -2_203_891_200,
                              -62_135_596_800, 253_402_300_799, 1_780_000_000]   // 2000-02-29, 2100-03-01, year 1, 9999
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<5_000 { seconds.append(Int.random(in: -62_135_596_800...253_402_300_799, using: &rng)) }
        for s in seconds {
            var t = time_t(s), tm = tm()
            gmtime_r(&t, &tm)
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.250Z", Int(tm.tm_year) + 1900, Int(tm.tm_mon) + 1,
                                  Int(tm.tm_mday), Int(tm.tm_hour), Int(tm.tm_min), Int(tm.tm_sec))
            #expect(Timestamp(Double(s) + 0.25).iso8601 == expected, "\(s)")
            var line = Bytes()
            Timestamp(Double(s) + 0.25).appendISO8601(to: &line)
            #expect(String(decoding: line, as: UTF8.self) == expected)
        }
    }

    /// Times in a row (a batch's lines) write what each would alone: across seconds, a
    /// millisecond that rounds up into the next one, back in time, and a year past 9999.
    @Test func timesInARowAsEachAlone() {
        var writer = ISO8601Writer()
        var line = Bytes(), expected = ""
        for t in [1_780_000_000.001, 1_780_000_000.5, 1_780_000_000.9996, 1_780_000_001.25, 1_779_999_999.0, -0.0004,
                  253_402_300_800.5, 1_780_000_001.75] {
            writer.append(Timestamp(t), to: &line)
            expected += Timestamp(t).iso8601
        }
        #expect(String(decoding: line, as: UTF8.self) == expected)
    }

    /// Timestamps come from recordings too: any year, before 1970, a millisecond that rounds up.
    @Test func timestampsOfAnyYearAndHex() {
        #expect(Timestamp(0).iso8601 == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp(-1.5).iso8601 == "1969-12-31T23:59:58.500Z")
        #expect(Timestamp(1_780_000_000.9996).iso8601 == "2026-05-28T20:26:41.000Z")
        #expect(Timestamp(253_402_300_800).iso8601 == "10000-01-01T00:00:00.000Z")
        #expect(Timestamp(1_780_000_000.007).clockTime == "20:26:40.007")
        #expect(Timestamp(1_780_000_000.007).compact == "20260528-202640")
        var b = Bytes()
        b.appendDecimal(7, width: 3); b.appendDecimal(12345, width: 2); b.appendDecimal(-4, width: 2); b.appendDecimal(0, width: 1)
        #expect(String(decoding: b, as: UTF8.self) == "00712345-40")
        #expect(hex([]) == "" && hex([0x00, 0xAB, 0xFF]) == "00 ab ff" && hex([0x0F, 0xF0], separator: "") == "0ff0")
        #expect(hex([0x01, 0x02], separator: " · ") == "01 · 02")
        #expect(hex(Array(repeating: UInt8(0x5A), count: 600), separator: "").count == 1200)
    }
}
