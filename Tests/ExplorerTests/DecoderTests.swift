import Testing
@testable import Explorer

/// Each decoder against a worked byte example built from its definition in the GATT
/// Specification Supplement (little-endian fields after a flags byte).
@Suite("Characteristic decoders")
struct DecoderTests {
    @Test func batteryBodySensorAlertTxPower() {
        #expect(ValueDecoder.decode("2A19", [0x64]) == "100 %")
        #expect(ValueDecoder.decode("2A38", [0x02]) == "Wrist")
        #expect(ValueDecoder.decode("2A38", [0x07]) == "Reserved (7)")
        #expect(ValueDecoder.decode("2A06", [0x02]) == "High Alert")
        #expect(ValueDecoder.decode("2A06", []) == "malformed Alert Level (0 bytes)")
        #expect(ValueDecoder.decode("2A07", [0xF4]) == "-12 dBm")
    }

    /// Heart Rate Measurement: flags 0x1E = u8 bpm, contact detected, energy, RR present.
    @Test func heartRateAllFlags() {
        #expect(ValueDecoder.decode("2A37", [0x1E, 0x48, 0x2C, 0x01, 0x00, 0x03, 0x33, 0x03])
                == "72 bpm, contact, energy 300 kJ, RR 0.750 0.800 s")
        #expect(ValueDecoder.decode("2A37", [0x04, 0x3C]) == "60 bpm, no contact")
        #expect(ValueDecoder.decode("2A37", [0x08, 0x3C, 0x01]) == "malformed Heart Rate Measurement (3 bytes)")
    }

    /// Temperature Measurement: flags 0x06 (Celsius, time stamp, type), FLOAT 0xFF00016C
    /// = 364 x 10^-1, 2024-03-15 10:30:00, type 2 (body).
    @Test func temperatureMeasurement() {
        let full: Bytes = [0x06, 0x6C, 0x01, 0x00, 0xFF, 0xE8, 0x07, 0x03, 0x0F, 0x0A, 0x1E, 0x00, 0x02]
        #expect(ValueDecoder.decode("2A1C", full) == "36.4 °C, 2024-03-15 10:30:00, Body (general)")
        #expect(ValueDecoder.decode("2A1C", [0x01, 0xD3, 0x03, 0x00, 0xFF]) == "97.9 °F")
        #expect(ValueDecoder.decode("2A1C", [0x00, 0xFF, 0xFF, 0x7F, 0x00]) == "NaN °C")
        #expect(ValueDecoder.decode("2A1C", Array(full.prefix(12))) == "malformed Temperature Measurement (12 bytes)")
        #expect(ValueDecoder.number("2A1C", full) == 36.4)
        #expect(ValueDecoder.number("2A1C", [0x00, 0xFF, 0xFF, 0x7F, 0x00]) == nil)
        #expect(ValueDecoder.decode("2A1D", [0x09]) == "Tympanum (ear drum)")
    }

    /// Current Time: Friday 2024-03-15 10:30:00 and 128/256 s, adjusted manually and for DST.
    @Test func currentTime() {
        #expect(ValueDecoder.decode("2A2B", [0xE8, 0x07, 0x03, 0x0F, 0x0A, 0x1E, 0x00, 0x05, 0x80, 0x09])
                == "2024-03-15 10:30:00.500 Friday, adjusted: manual update, DST change")
        #expect(ValueDecoder.decode("2A2B", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) == "????-00-00 00:00:00.000")
        #expect(ValueDecoder.decode("2A2B", [0xE8, 0x07, 0x03]) == "malformed Current Time (3 bytes)")
    }

    /// CSC Measurement: 291 wheel revolutions at 1024/1024 s, 16 crank revolutions at 2 s.
    @Test func cyclingSpeedAndCadence() {
        #expect(ValueDecoder.decode("2A5B", [0x03, 0x23, 0x01, 0x00, 0x00, 0x00, 0x04, 0x10, 0x00, 0x00, 0x08])
                == "wheel 291 revs @ 1.000 s, crank 16 revs @ 2.000 s")
        #expect(ValueDecoder.decode("2A5B", [0x02, 0x10, 0x00, 0x00, 0x02]) == "crank 16 revs @ 0.500 s")
        #expect(ValueDecoder.decode("2A5B", [0x01, 0x23, 0x01]) == "malformed CSC Measurement (3 bytes)")
    }

    /// RSC Measurement: running at 768/256 = 3 m/s, 180 steps/min, stride 150 cm, 10000 dm.
    @Test func runningSpeedAndCadence() {
        #expect(ValueDecoder.decode("2A53", [0x07, 0x00, 0x03, 0xB4, 0x96, 0x00, 0x10, 0x27, 0x00, 0x00])
                == "running, 3.00 m/s (10.8 km/h), 180 steps/min, stride 1.50 m, total 1000.0 m")
        #expect(ValueDecoder.decode("2A53", [0x00, 0x80, 0x01, 0x64]) == "walking, 1.50 m/s (5.4 km/h), 100 steps/min")
        #expect(ValueDecoder.decode("2A53", [0x02, 0x80, 0x01, 0x64]) == "malformed RSC Measurement (4 bytes)")
        #expect(ValueDecoder.number("2A53", [0x00, 0x80, 0x01, 0x64]) == 1.5)
    }

    /// Pressure: 1013250 x 0.1 Pa, one standard atmosphere.
    @Test func pressure() {
        #expect(ValueDecoder.decode("2A6D", [0x02, 0x76, 0x0F, 0x00]) == "101325.0 Pa (1013.25 hPa)")
        #expect(ValueDecoder.number("2A6D", [0x02, 0x76, 0x0F, 0x00]) == 101325)
        #expect(ValueDecoder.decode("2A6D", [0x02, 0x76]) == "malformed Pressure (2 bytes)")
    }

    @Test func appearanceAndStrings() {
        #expect(ValueDecoder.decode("2A01", [0x41, 0x03]) == "Heart Rate Sensor: Heart Rate Belt (0x0341)")
        #expect(ValueDecoder.decode("2A01", [0xC1, 0xFF]) == "Unknown appearance (0xFFC1)")
        #expect(ValueDecoder.decode("2A01", [0x41]) == "malformed Appearance (1 byte)")
        #expect(ValueDecoder.decode("2A24", Array("HRM-2".utf8)) == "\"HRM-2\"")
        #expect(ValueDecoder.decode("2A25", [0x53, 0x4E, 0x1B, 0x5B, 0xFF]) == "\"SN·[·\"")  // ESC and an invalid byte
        #expect(ValueDecoder.decode("2A28", []) == "\"\"")
    }
}
