import Testing
@testable import Explorer

@Suite("Assigned numbers")
struct AssignedNumbersTests {
    @Test func everyRowParsesOnce() {
        #expect(AssignedNumbers.problems() == [])
        #expect(AssignedNumbers.companies.count >= 300)
        #expect(AssignedNumbers.services.count >= 60)
        #expect(AssignedNumbers.characteristics.count >= 120)
    }

    @Test func oneKeyForEveryUUIDForm() {
        for form in ["180D", "0x180D", "0x180d", "0000180d-0000-1000-8000-00805f9b34fb", "0000180D00001000800000805F9B34FB"] {
            #expect(AssignedNumbers.serviceName(BLEUUID(form)!) == "Heart Rate", "\(form)")
        }
        #expect(AssignedNumbers.characteristicName(BLEUUID("0x00002a37")) == "Heart Rate Measurement")
        #expect(AssignedNumbers.serviceName(BLEUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")) == "Nordic UART")
    }

    /// Name against UUID, across the table's kinds (the SIG's 16-bit values).
    @Test(arguments: [
        ("1800", "Generic Access"), ("1801", "Generic Attribute"), ("180A", "Device Information"),
        ("180F", "Battery"), ("1809", "Health Thermometer"), ("1816", "Cycling Speed and Cadence"),
        ("1814", "Running Speed and Cadence"), ("181A", "Environmental Sensing"), ("1826", "Fitness Machine"),
        ("FEAA", "Eddystone"), ("FFE0", "iTag Button"),
        ("E20A39F4-73F5-4BC4-A12F-17D1AD07A961", "BTLE Transfer (Apple sample)"),
    ])
    func services(uuid: String, name: String) {
        #expect(AssignedNumbers.serviceName(BLEUUID(uuid)!) == name)
    }

    @Test(arguments: [
        ("2A00", "Device Name"), ("2A01", "Appearance"), ("2A06", "Alert Level"), ("2A07", "Tx Power Level"),
        ("2A19", "Battery Level"), ("2A1C", "Temperature Measurement"), ("2A24", "Model Number String"),
        ("2A29", "Manufacturer Name String"), ("2A2B", "Current Time"), ("2A37", "Heart Rate Measurement"),
        ("2A38", "Body Sensor Location"), ("2A53", "RSC Measurement"), ("2A5B", "CSC Measurement"),
        ("2A6D", "Pressure"), ("2A6E", "Temperature"), ("2A6F", "Humidity"), ("FFE1", "iTag Button Press"),
        ("6E400002-B5A3-F393-E0A9-E50E24DCCA9E", "Nordic UART RX"), ("6E400003-B5A3-F393-E0A9-E50E24DCCA9E", "Nordic UART TX"),
        ("08590F7E-DB05-467E-8757-72F6FAEB13D4", "BTLE Transfer Data (Apple sample)"),
    ])
    func characteristics(uuid: String, name: String) {
        #expect(AssignedNumbers.characteristicName(BLEUUID(uuid)!) == name)
    }

    @Test func descriptorsUnitsAppearance() {
        #expect(AssignedNumbers.descriptorName("2901") == "Characteristic User Description")
        #expect(AssignedNumbers.descriptorName("2902") == "Client Characteristic Configuration")
        #expect(AssignedNumbers.descriptorName("2904") == "Characteristic Presentation Format")
        #expect(AssignedNumbers.unitSymbol(0x272F) == "°C")
        #expect(AssignedNumbers.unitName(0x2724) == "pascal")
        #expect(AssignedNumbers.unitSymbol(0x27AD) == "%")
        #expect(AssignedNumbers.unitSymbol(0x2700) == "")
        #expect(AssignedNumbers.unitName(0x1234) == nil)
        #expect(AssignedNumbers.appearanceName(0x0341) == "Heart Rate Sensor: Heart Rate Belt")
        #expect(AssignedNumbers.appearanceName(0x0340) == "Heart Rate Sensor")
        #expect(AssignedNumbers.appearanceName(0x03C2) == "Human Interface Device: Mouse")
        #expect(AssignedNumbers.appearanceName(0x0485) == "Cycling: Speed and Cadence Sensor")
        #expect(AssignedNumbers.appearanceName(0x00C9) == "Watch: subcategory 9")
        #expect(AssignedNumbers.appearanceName(0xFFC0) == nil)
    }

    @Test(arguments: [
        (UInt16(0x004C), "Apple, Inc.", "Apple"), (0x0006, "Microsoft", "Microsoft"), (0x00E0, "Google", "Google"),
        (0x0059, "Nordic Semiconductor ASA", "Nordic Semiconductor"),
        (0x0075, "Samsung Electronics Co. Ltd.", "Samsung Electronics"),
        (0x02E5, "Espressif Systems (Shanghai) Co., Ltd.", "Espressif Systems"), (0x000F, "Broadcom Corporation", "Broadcom"),
        (0x0087, "Garmin International, Inc.", "Garmin International"), (0x0118, "Radius Networks, Inc.", "Radius Networks"),
        (0x0000, "Ericsson AB", "Ericsson"),
        (0x0019, "Rohde & Schwarz GmbH & Co. KG", "Rohde & Schwarz"), (0x038F, "Xiaomi Inc.", "Xiaomi"),
    ])
    func companies(id: UInt16, legal: String, short: String) {
        #expect(AssignedNumbers.companyLegalName(id) == legal)
        #expect(AssignedNumbers.companyName(id) == short)
    }

    /// Every company of the table is shortened as comparing Characters shortened it (the
    /// suffixes are compared as bytes now, for speed).
    @Test func everyShortNameIsAsItWas() {
        func characterwise(_ legal: String) -> String {
            var s = Substring(legal)
            if let paren = s.firstIndex(of: "("), paren > s.startIndex { s = s[..<paren] }
            s = s.drop(while: { $0 == " " })
            var changed = true
            while changed {
                changed = false
                while s.last == " " { s.removeLast() }
                for suffix in AssignedNumbers.legalSuffixes where s.hasSuffix(suffix) && s.count > suffix.count + 1 {
                    s.removeLast(suffix.count)
                    changed = true
                }
            }
            return s.isEmpty ? legal : String(s)
        }
        #expect(AssignedNumbers.companies.count > 3_000)
        for (id, legal) in AssignedNumbers.companies {
            #expect(AssignedNumbers.shortCompanyName(legal) == characterwise(legal), "0x\(hex4(id)) \(legal)")
        }
        for odd in ["", " ", "Inc", " Inc", "Acme  Inc.", "É Inc", "Café Co", "x\u{301} Ltd", "(note)", "ACME (x) Inc"] {
            #expect(AssignedNumbers.shortCompanyName(odd) == characterwise(odd), "\(odd)")
        }
    }

    @Test func unknownsAreNil() {
        #expect(AssignedNumbers.companyName(0xFFFF) == nil)
        #expect(AssignedNumbers.name("1234") == nil)
        #expect(AssignedNumbers.name("2902") == "Client Characteristic Configuration")
    }
}
