/// Names for UUIDs and company identifiers. One table, looked up by normalised UUID.
/// (The full Bluetooth SIG assigned-numbers table replaces this seed list in its own issue.)
public enum AssignedNumbers {
    public static func serviceName(_ uuid: BLEUUID) -> String? { services[uuid] }
    public static func characteristicName(_ uuid: BLEUUID) -> String? { characteristics[uuid] }
    public static func descriptorName(_ uuid: BLEUUID) -> String? { descriptors[uuid] }
    public static func companyName(_ id: UInt16) -> String? { companies[id] }

    /// Any kind of attribute: services, characteristics, descriptors.
    public static func name(_ uuid: BLEUUID) -> String? {
        services[uuid] ?? characteristics[uuid] ?? descriptors[uuid]
    }

    static func table(_ rows: [(String, String)]) -> [BLEUUID: String] {
        Dictionary(rows.map { (BLEUUID($0.0)!, $0.1) }, uniquingKeysWith: { a, _ in a })
    }

    static let services = table([
        ("1800", "Generic Access"), ("1801", "Generic Attribute"), ("1802", "Immediate Alert"),
        ("1803", "Link Loss"), ("1804", "Tx Power"), ("1805", "Current Time"),
        ("1809", "Health Thermometer"), ("180A", "Device Information"), ("180D", "Heart Rate"),
        ("180F", "Battery"), ("1812", "Human Interface Device"), ("1814", "Running Speed and Cadence"),
        ("1816", "Cycling Speed and Cadence"), ("181A", "Environmental Sensing"),
        ("FEAA", "Eddystone"), ("FFE0", "iTag Button"),
        ("6E400001-B5A3-F393-E0A9-E50E24DCCA9E", "Nordic UART"),
        ("E20A39F4-73F5-4BC4-A12F-17D1AD07A961", "BTLE Transfer (Apple sample)"),
    ])

    static let characteristics = table([
        ("2A00", "Device Name"), ("2A01", "Appearance"), ("2A04", "Peripheral Preferred Connection Parameters"),
        ("2A05", "Service Changed"), ("2A06", "Alert Level"), ("2A07", "Tx Power Level"),
        ("2A19", "Battery Level"), ("2A1C", "Temperature Measurement"), ("2A23", "System ID"),
        ("2A24", "Model Number String"), ("2A25", "Serial Number String"),
        ("2A26", "Firmware Revision String"), ("2A27", "Hardware Revision String"),
        ("2A28", "Software Revision String"), ("2A29", "Manufacturer Name String"),
        ("2A2B", "Current Time"), ("2A37", "Heart Rate Measurement"), ("2A38", "Body Sensor Location"),
        ("2A39", "Heart Rate Control Point"), ("2A6D", "Pressure"), ("2A6E", "Temperature"),
        ("2A6F", "Humidity"), ("2A50", "PnP ID"), ("2B29", "Client Supported Features"),
        ("2B2A", "Database Hash"), ("2B3A", "Server Supported Features"), ("FFE1", "iTag Button Press"),
        ("6E400002-B5A3-F393-E0A9-E50E24DCCA9E", "Nordic UART RX"),
        ("6E400003-B5A3-F393-E0A9-E50E24DCCA9E", "Nordic UART TX"),
        ("08590F7E-DB05-467E-8757-72F6FAEB13D4", "BTLE Transfer Data (Apple sample)"),
    ])

    static let descriptors = table([
        ("2900", "Characteristic Extended Properties"), ("2901", "Characteristic User Description"),
        ("2902", "Client Characteristic Configuration"), ("2903", "Server Characteristic Configuration"),
        ("2904", "Characteristic Presentation Format"),
    ])

    static let companies: [UInt16: String] = [
        0x0006: "Microsoft", 0x000F: "Broadcom", 0x004C: "Apple", 0x0059: "Nordic Semiconductor",
        0x0075: "Samsung", 0x0087: "Garmin", 0x00E0: "Google", 0x0118: "Radius Networks",
        0x02E5: "Espressif", 0x0157: "Anhui Huami", 0x038F: "Xiaomi",
    ]
}
