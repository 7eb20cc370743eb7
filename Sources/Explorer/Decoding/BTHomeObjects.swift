/// The BTHome object table (bthome.io/format: "Sensor data", "Binary Sensor data",
/// "Events", "Device information", "Misc data"), one row per object id.
///
/// Keys are the spec's property names in snake_case, which are also what the bthome-ble
/// library calls its sensors (`temperature`, `humidity`, `battery`, `packet_id`). Two
/// rules keep one key to one meaning in a flat list of fields:
/// - a property the spec gives in two units carries the unit: `mass_kg` / `mass_lb`,
///   `distance_mm` / `distance_m`, `volume_l` / `volume_ml`;
/// - a binary sensor whose name is also a measurement's carries its "true" state:
///   `battery_low` (battery %), `power_on` (W), `gas_detected` (m³), `moisture_wet` (%).
/// Objects with one key and the same unit (temperature 0x02, 0x45, 0x57, 0x58) are
/// instances of one measurement, as the spec's "multiple measurements" section has it.
extension BTHome {
    /// How an object's value is laid out after its id (v2), and what it means.
    enum Layout: Equatable, Sendable {
        /// Little-endian integer of `bytes` bytes, times the row's factor.
        case number(bytes: Int, signed: Bool)
        /// One byte, 0 or 1, and the spec's words for each.
        case binary(off: String, on: String)
        /// One byte: the event id.
        case button
        /// Two bytes: the event id, the number of steps.
        case dimmer
        /// A length byte, then that many bytes of UTF-8 (text) or anything (raw).
        case text, raw
        /// uint32, seconds since 1970-01-01 UTC.
        case timestamp
        /// `bytes` bytes, the most significant last: F1 00 01 02 04 is 4.2.1.0.
        case firmware(bytes: Int)

        /// The value's length in v2, where the id alone decides it; nil for the two that
        /// carry their own length byte.
        var size: Int? {
            switch self {
            case let .number(bytes, _), let .firmware(bytes): return bytes
            case .binary, .button: return 1
            case .timestamp: return 4
            case .dimmer: return 2
            case .text, .raw: return nil
            }
        }
    }

    struct ObjectType: Sendable {
        let id: UInt8
        let key: String
        let layout: Layout
        let factor: Double
        /// Decimal places the factor gives (0.01 -> 2, 0.35 -> 2): how values are rounded
        /// and printed, so 2506 x 0.01 reads 25.06 and not 25.060000000000002.
        let decimals: Int
        let unit: String
        /// The words before the value in the text line; nil shows the value alone
        /// (temperature and humidity, which every BTHome sensor sends, read as "25.06 °C").
        let label: String?

        init(_ id: UInt8, _ key: String, _ layout: Layout, _ factor: Double = 1, _ unit: String = "", label: String? = "") {
            self.id = id
            self.key = key
            self.layout = layout
            self.factor = factor
            var d = 0, scaled = factor
            while d < 9, abs(scaled - scaled.rounded()) > 1e-9 {
                scaled *= 10
                d += 1
            }
            decimals = d
            self.unit = unit
            // "" means: the key in words.
            self.label = label == "" ? key.split(separator: "_").joined(separator: " ") : label
        }
    }

    private static func u(_ bytes: Int) -> Layout { .number(bytes: bytes, signed: false) }
    private static func s(_ bytes: Int) -> Layout { .number(bytes: bytes, signed: true) }
    private static func on(_ off: String, _ on: String) -> Layout { .binary(off: off, on: on) }

    /// Every object the spec defines, in id order.
    ///
    /// 0x5F precipitation: the spec page has carried factor 1 (example 5FA00F = 4000 mm)
    /// and 0.1; 0.1 is what the spec's own reference receiver (bthome-ble) applies, so
    /// 400.0 mm here. 0x60-0x64 are the newest rows, taken from the same table.
    static let objectTypes: [ObjectType] = [
        .init(0x00, "packet_id", u(1), label: "packet"),
        .init(0x01, "battery", u(1), 1, "%"),
        .init(0x02, "temperature", s(2), 0.01, "°C", label: nil),
        .init(0x03, "humidity", u(2), 0.01, "%", label: nil),
        .init(0x04, "pressure", u(3), 0.01, "hPa"),
        .init(0x05, "illuminance", u(3), 0.01, "lx"),
        .init(0x06, "mass_kg", u(2), 0.01, "kg", label: "mass"),
        .init(0x07, "mass_lb", u(2), 0.01, "lb", label: "mass"),
        .init(0x08, "dewpoint", s(2), 0.01, "°C"),
        .init(0x09, "count", u(1)),
        .init(0x0A, "energy", u(3), 0.001, "kWh"),
        .init(0x0B, "power", u(3), 0.01, "W"),
        .init(0x0C, "voltage", u(2), 0.001, "V"),
        .init(0x0D, "pm25", u(2), 1, "µg/m³", label: "PM2.5"),
        .init(0x0E, "pm10", u(2), 1, "µg/m³", label: "PM10"),
        .init(0x0F, "generic_boolean", on("off", "on")),
        .init(0x10, "power_on", on("off", "on"), label: "power"),
        .init(0x11, "opening", on("closed", "open")),
        .init(0x12, "co2", u(2), 1, "ppm", label: "CO2"),
        .init(0x13, "tvoc", u(2), 1, "µg/m³", label: "TVOC"),
        .init(0x14, "moisture", u(2), 0.01, "%"),
        .init(0x15, "battery_low", on("normal", "low"), label: "battery"),
        .init(0x16, "battery_charging", on("not charging", "charging"), label: "battery"),
        .init(0x17, "carbon_monoxide", on("not detected", "detected")),
        .init(0x18, "cold", on("normal", "cold")),
        .init(0x19, "connectivity", on("disconnected", "connected")),
        .init(0x1A, "door", on("closed", "open")),
        .init(0x1B, "garage_door", on("closed", "open")),
        .init(0x1C, "gas_detected", on("clear", "detected"), label: "gas"),
        .init(0x1D, "heat", on("normal", "hot")),
        .init(0x1E, "light", on("no light", "detected")),
        .init(0x1F, "lock", on("locked", "unlocked")),
        .init(0x20, "moisture_wet", on("dry", "wet"), label: "moisture"),
        .init(0x21, "motion", on("clear", "detected")),
        .init(0x22, "moving", on("not moving", "moving")),
        .init(0x23, "occupancy", on("clear", "detected")),
        .init(0x24, "plug", on("unplugged", "plugged in")),
        .init(0x25, "presence", on("away", "home")),
        .init(0x26, "problem", on("OK", "problem")),
        .init(0x27, "running", on("not running", "running")),
        .init(0x28, "safety", on("unsafe", "safe")),
        .init(0x29, "smoke", on("clear", "detected")),
        .init(0x2A, "sound", on("clear", "detected")),
        .init(0x2B, "tamper", on("off", "on")),
        .init(0x2C, "vibration", on("clear", "detected")),
        .init(0x2D, "window", on("closed", "open")),
        .init(0x2E, "humidity", u(1), 1, "%", label: nil),
        .init(0x2F, "moisture", u(1), 1, "%"),
        .init(0x3A, "button", .button),
        .init(0x3C, "dimmer", .dimmer),
        .init(0x3D, "count", u(2)),
        .init(0x3E, "count", u(4)),
        .init(0x3F, "rotation", s(2), 0.1, "°"),
        .init(0x40, "distance_mm", u(2), 1, "mm", label: "distance"),
        .init(0x41, "distance_m", u(2), 0.1, "m", label: "distance"),
        .init(0x42, "duration", u(3), 0.001, "s"),
        .init(0x43, "current", u(2), 0.001, "A"),
        .init(0x44, "speed", u(2), 0.01, "m/s"),
        .init(0x45, "temperature", s(2), 0.1, "°C", label: nil),
        .init(0x46, "uv_index", u(1), 0.1, label: "UV index"),
        .init(0x47, "volume_l", u(2), 0.1, "L", label: "volume"),
        .init(0x48, "volume_ml", u(2), 1, "mL", label: "volume"),
        .init(0x49, "volume_flow_rate", u(2), 0.001, "m³/h"),
        .init(0x4A, "voltage", u(2), 0.1, "V"),
        .init(0x4B, "gas", u(3), 0.001, "m³"),
        .init(0x4C, "gas", u(4), 0.001, "m³"),
        .init(0x4D, "energy", u(4), 0.001, "kWh"),
        .init(0x4E, "volume_l", u(4), 0.001, "L", label: "volume"),
        .init(0x4F, "water", u(4), 0.001, "L"),
        .init(0x50, "timestamp", .timestamp, label: "time"),
        .init(0x51, "acceleration", u(2), 0.001, "m/s²"),
        .init(0x52, "gyroscope", u(2), 0.001, "°/s"),
        .init(0x53, "text", .text, label: nil),
        .init(0x54, "raw", .raw),
        .init(0x55, "volume_storage", u(4), 0.001, "L"),
        .init(0x56, "conductivity", u(2), 1, "µS/cm"),
        .init(0x57, "temperature", s(1), 1, "°C", label: nil),
        .init(0x58, "temperature", s(1), 0.35, "°C", label: nil),
        .init(0x59, "count", s(1)),
        .init(0x5A, "count", s(2)),
        .init(0x5B, "count", s(4)),
        .init(0x5C, "power", s(4), 0.01, "W"),
        .init(0x5D, "current", s(2), 0.001, "A"),
        .init(0x5E, "direction", u(2), 0.01, "°"),
        .init(0x5F, "precipitation", u(2), 0.1, "mm"),
        .init(0x60, "channel", u(1)),
        .init(0x61, "rotational_speed", u(2), 1, "rpm"),
        .init(0x62, "speed", s(4), 0.000001, "m/s"),
        .init(0x63, "acceleration", s(4), 0.000001, "m/s²"),
        .init(0x64, "light_level", u(1)),
        .init(0xF0, "device_type_id", u(2), label: "device type"),
        .init(0xF1, "firmware_version", .firmware(bytes: 4), label: "firmware"),
        .init(0xF2, "firmware_version", .firmware(bytes: 3), label: "firmware"),
    ]

    /// `objectTypes` by id, for the parse loop.
    static let objectType: [UInt8: ObjectType] = Dictionary(uniqueKeysWithValues: objectTypes.map { ($0.id, $0) })

    /// Button event ids (spec "Events", device type button).
    static func buttonEvent(_ id: UInt8) -> String? {
        switch id {
        case 0x00: return nil  // "None": this button has nothing to say in this frame
        case 0x01: return "press"
        case 0x02: return "double_press"
        case 0x03: return "triple_press"
        case 0x04: return "long_press"
        case 0x05: return "long_double_press"
        case 0x06: return "long_triple_press"
        case 0x80: return "hold_press"
        default: return "unknown_0x" + hex([id])
        }
    }

    /// Dimmer event ids; the second byte is the number of steps.
    static func dimmerEvent(_ id: UInt8) -> String? {
        switch id {
        case 0x00: return nil
        case 0x01: return "rotate_left"
        case 0x02: return "rotate_right"
        default: return "unknown_0x" + hex([id])
        }
    }
}
