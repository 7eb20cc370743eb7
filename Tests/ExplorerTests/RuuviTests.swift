import Testing
@testable import Explorer

@Suite("Ruuvi RAWv2 and E1")
struct RuuviTests {
    static func decode(_ hex: String) -> DecodedValue {
        let v = VendorFrames.manufacturer(0x0499, h(hex))
        #expect(v.count == 1)
        return v[0]
    }

    static func number(_ v: DecodedValue, _ key: String) -> Double? { v[key]?.number }

    // Data format 5 test vectors from Ruuvi's document.

    @Test func rawV2Valid() {
        let v = Self.decode("0512FC5394C37C0004FFFC040CAC364200CDCBB8334C884F")
        #expect(v.text == "Ruuvi RAWv2 · 24.30 °C · 53.49 % · 1000.44 hPa · 2.977 V")
        #expect(v.fieldsJSON == #"{"kind":"ruuvi","format":"5","celsius":24.3,"humidity":53.49,"pascal":100044,"#
            + #""accelerationX":4,"accelerationY":-4,"accelerationZ":1036,"batteryMillivolts":2977,"txPower":4,"#
            + #""movementCounter":66,"sequence":205,"mac":"CB:B8:33:4C:88:4F"}"#)
        #expect(!v.malformed)
    }

    @Test func rawV2Extremes() {
        let max = Self.decode("057FFFFFFEFFFE7FFF7FFF7FFFFFDEFEFFFECBB8334C884F")
        #expect(Self.number(max, "celsius") == 163.835)
        #expect(Self.number(max, "humidity") == 163.835)
        #expect(Self.number(max, "pascal") == 115_534)
        #expect(Self.number(max, "accelerationZ") == 32767)
        #expect(Self.number(max, "txPower") == 20)
        #expect(Self.number(max, "batteryMillivolts") == 3646)
        #expect(Self.number(max, "movementCounter") == 254)
        #expect(Self.number(max, "sequence") == 65534)
        let min = Self.decode("058001000000008001800180010000000000CBB8334C884F")
        #expect(Self.number(min, "celsius") == -163.835)
        #expect(Self.number(min, "humidity") == 0)
        #expect(Self.number(min, "pascal") == 50_000)
        #expect(Self.number(min, "accelerationX") == -32767)
        #expect(Self.number(min, "txPower") == -40)
        #expect(Self.number(min, "batteryMillivolts") == 1600)
        #expect(min.text == "Ruuvi RAWv2 · -163.84 °C · 0.00 % · 500.00 hPa · 1.600 V")
    }

    /// "Not available" values are null, and the text says so instead of printing them.
    @Test func rawV2NotAvailable() {
        let v = Self.decode("058000FFFFFFFF800080008000FFFFFFFFFFFFFFFFFFFFFF")
        #expect(v.text == "Ruuvi RAWv2 · no readings available")
        for key in ["celsius", "humidity", "pascal", "accelerationX", "accelerationY", "accelerationZ", "batteryMillivolts",
                    "txPower", "movementCounter", "sequence", "mac"] {
            #expect(v[key] == .null, "\(key)")
        }
    }

    // Data format E1 test vectors from Ruuvi's document (reserved bytes filled with FF).

    @Test func extendedV1Valid() {
        let v = Self.decode("E1170C5668C79E0065007004BD11CA00C90A0213E0ACFFFFFFDECDEE10FFFFFFFFFFCBB8334C884F")
        #expect(v.text == "Ruuvi E1 · 29.50 °C · 55.30 % · 1011.02 hPa · PM2.5 11.2 µg/m³ · CO2 201 ppm")
        let want: [(String, Double)] = [("celsius", 29.5), ("humidity", 55.3), ("pascal", 101_102), ("pm1", 10.1), ("pm25", 11.2),
                                        ("pm4", 121.3), ("pm10", 455.4), ("co2", 201), ("voc", 20), ("nox", 4),
                                        ("lux", 13027), ("sequence", 14_601_710)]
        for (key, value) in want { #expect(Self.number(v, key) == value, "\(key)") }
        #expect(v["mac"] == .string("CB:B8:33:4C:88:4F"))
        // The document's table says "calibration in progress: true" beside a flags byte of
        // 0x10, whose bit 0 is clear; the byte wins (the shared vector below has 0x11).
        #expect(v["calibrating"] == .bool(false))
    }

    @Test func extendedV1Extremes() {
        let max = Self.decode("E17FFF9C40FFFE27102710271027109C40FAFADC28F0FFFFFFFFFFFE3FFFFFFFFFFFCBB8334C884F")
        let want: [(String, Double)] = [("celsius", 163.835), ("humidity", 100), ("pascal", 115_534), ("pm1", 1000),
                                        ("pm10", 1000), ("co2", 40000), ("voc", 500), ("nox", 500), ("lux", 144_284),
                                        ("sequence", 16_777_214)]
        for (key, value) in want { #expect(Self.number(max, key) == value, "max \(key)") }
        #expect(max["calibrating"] == .bool(true))
        let min = Self.decode("E1800100000000000000000000000000000000000000FFFFFF00000000FFFFFFFFFFCBB8334C884F")
        for (key, value) in [("celsius", -163.835), ("pascal", 50_000), ("voc", 0), ("lux", 0), ("sequence", 0)] {
            #expect(Self.number(min, key) == value, "min \(key)")
        }
        let none = Self.decode("E18000FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFFFFFFFFFFFFFFFF")
        #expect(none.text == "Ruuvi E1 · no readings available")
        for key in ["celsius", "humidity", "pascal", "pm1", "pm25", "pm4", "pm10", "co2", "voc", "nox", "lux", "sequence", "mac"] {
            #expect(none[key] == .null, "\(key)")
        }
    }

    /// Only the exact lengths are frames; other formats are named, not decoded.
    @Test func lengthsAndOtherFormats() {
        let valid = h("0512FC5394C37C0004FFFC040CAC364200CDCBB8334C884F")
        #expect(Self.decode(hex(valid.dropLast(), separator: "")).text == "malformed Ruuvi RAWv2 (23 bytes)")
        #expect(Self.decode(hex(valid + [0], separator: "")).malformed)
        #expect(Self.decode("03291A1ECE1EFC18F94202CA0B53").text == "Ruuvi data format 3 (not decoded, 14 bytes)")
        #expect(VendorFrames.manufacturer(0x0499, []).isEmpty)
    }

    /// The shared vectors: ble_monitor's and ruuvitag-ble's asserted values.
    @Test func realVectors() throws {
        let v5 = try #require(RealVectors["blemon-ruuvitag-v5"]?.decoded.first)
        let monitor: [(String, String, Double)] = [("temperature", "celsius", 25.01), ("humidity", "humidity", 61.04),
                                                   ("acceleration x", "accelerationX", -28), ("acceleration y", "accelerationY", -36),
                                                   ("acceleration z", "accelerationZ", 1044), ("packet", "sequence", 10675),
                                                   ("tx power", "txPower", 4)]
        let expect = try #require(RealVectors["blemon-ruuvitag-v5"]?.expected("ble_monitor"))
        for (theirs, ours, value) in monitor {
            #expect(expect[theirs]?.number == value)
            #expect(abs((Self.number(v5, ours) ?? .nan) - value) < 0.005, "\(ours)")
        }
        #expect(Self.number(v5, "pascal") == 100_416)  // 1004.16 hPa
        #expect(Self.number(v5, "batteryMillivolts") == 3181)  // 3.181 V
        // ble_monitor's "mac" is the HCI report's address; the payload carries its bytes in wire order.
        #expect(v5["mac"] == .string("F2:7A:52:FA:D4:CD"))

        let outdoor = try #require(RealVectors["ruuvitag-v5-outdoor"]?.decoded.first)
        let values = try #require(RealVectors["ruuvitag-v5-outdoor"]?.expected("vendor", "values"))
        #expect(Self.number(outdoor, "celsius") == values["temperature"]?.number)
        #expect(Self.number(outdoor, "humidity") == values["humidity"]?.number)
        #expect(Self.number(outdoor, "pascal").map { $0 / 100 } == values["pressure"]?.number)
        #expect(Self.number(outdoor, "batteryMillivolts") == values["voltage"]?.number)
        #expect(Self.number(outdoor, "movementCounter") == values["movement"]?.number)
        // ruuvitag-ble gives acceleration in m/s² (mG × 9.80665 / 1000, two decimals).
        for axis in ["X", "Y", "Z"] {
            let ms2 = (Self.number(outdoor, "acceleration\(axis)") ?? .nan) * 9.80665 / 1000
            #expect(abs(ms2 - (values["acceleration_\(axis.lowercased())"]?.number ?? .nan)) < 0.005, "\(axis)")
        }

        let e1 = try #require(RealVectors["ruuvi-e1-extended"]?.decoded.first)
        let asserts = try #require(RealVectors["ruuvi-e1-extended"]?.expected("vendor", "asserts"))
        let keys = [("temperature_celsius", "celsius"), ("humidity_percentage", "humidity"), ("pm1_ug_m3", "pm1"),
                    ("pm25_ug_m3", "pm25"), ("pm4_ug_m3", "pm4"), ("pm10_ug_m3", "pm10"), ("co2_ppm", "co2"),
                    ("voc_index", "voc"), ("nox_index", "nox"), ("luminosity_lux", "lux"),
                    ("measurement_sequence_number", "sequence")]
        for (theirs, ours) in keys { #expect(Self.number(e1, ours) == asserts[theirs]?.number, "\(ours)") }
        #expect(Self.number(e1, "pascal").map { $0 / 100 } == asserts["pressure_hpa"]?.number)
        #expect(e1["mac"]?.string == asserts["mac"]?.string)
        #expect(e1["calibrating"] == .bool(true))
    }
}
