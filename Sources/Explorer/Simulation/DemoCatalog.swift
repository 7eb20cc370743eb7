/// The demo world's peripherals. Each one exercises a screen or a real use: the iTag
/// button, a heart-rate strap, a thermometer, a chunked stream ending in "EOM", a link
/// that drops, a bike sensor (CSC, Temperature Measurement, Current Time, and a vendor
/// value described by a Presentation Format), four beacon formats, and a device whose
/// name tries to attack the terminal.
enum DemoCatalog {
    static let iBeaconUUID: BLEUUID = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    static let streamService: BLEUUID = "E20A39F4-73F5-4BC4-A12F-17D1AD07A961"
    static let streamCharacteristic: BLEUUID = "08590F7E-DB05-467E-8757-72F6FAEB13D4"
    /// Demo Stream's flood: numbered notifications, 5,000 a second until `--demo-control` says otherwise.
    static let floodService: BLEUUID = "B1E5E1A0-0020-4C7A-9E3B-2D8F00C0FFEE"
    static let floodCharacteristic: BLEUUID = "B1E5E1A0-0021-4C7A-9E3B-2D8F00C0FFEE"
    static let floodRate = 5_000.0
    /// Demo Stream's way in: takes writes with and without response and counts them.
    static let streamSink: BLEUUID = "08590F7F-DB05-467E-8757-72F6FAEB13D4"
    static let flakyService: BLEUUID = "6E400001-B5A3-F393-E0A9-E50E24DCCA9E"
    static let altBeaconID: BLEUUID = "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6"
    /// A vendor service with no assigned name: its value is read by its 0x2904 and labelled by its 0x2901.
    static let bikeVendorService: BLEUUID = "B1E5E1A0-0001-4C7A-9E3B-2D8F00C0FFEE"
    static let bikeVendorCharacteristic: BLEUUID = "B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE"
    /// sint16, exponent -2, degree Celsius, namespace SIG, no description.
    static let celsiusFormat: Bytes = [0x0E, 0xFE, 0x2F, 0x27, 0x01, 0x00, 0x00]
    /// The iTag's settings: a note longer than one PDU at the demo's MTU (247) carries, written
    /// with a request (long), a reliable write, or not at all without response; its 0x2901 label is writable.
    static let settingsService: BLEUUID = "B1E5E1A0-0010-4C7A-9E3B-2D8F00C0FFEE"
    static let settingsNote: BLEUUID = "B1E5E1A0-0011-4C7A-9E3B-2D8F00C0FFEE"
    static let settingsNoteText = String(repeating: "Keys on the hook by the door; spare in the blue drawer. ", count: 5)
    static let evilName = "Evil\u{1B}[2J\u{1B}]0;pwned\u{07}\r\nName\u{9B}31m\u{7F}"

    /// Builds GATT objects with BlueZ-like paths: /sim/dev_XX/serviceNNNN/charNNNN/descNNNN.
    final class PathMaker {
        let base: String
        var handle = 0x000A
        init(_ address: String) { base = "/sim/dev_" + address.replacingColons() }
        /// The next attribute handle, as BlueZ writes it in paths (`000c`).
        func next() -> String { handle += 1; return hex4(UInt16(truncatingIfNeeded: handle)) }
        func service(_ uuid: BLEUUID, _ chars: (String) -> [SimCharacteristic]) -> SimService {
            let path = base + "/service" + next()
            return SimService(AttributeID(path), uuid, chars(path))
        }
        func char(_ servicePath: String, _ uuid: BLEUUID, _ props: CharacteristicProperties, _ value: Bytes,
                  notify: NotifyBehaviour = .none, userDescription: String? = nil, userDescriptionWritable: Bool = false,
                  presentationFormat: Bytes? = nil, extendedProperties: Bytes? = nil) -> SimCharacteristic {
            let path = servicePath + "/char" + next()
            var descriptors: [GATTDescriptor] = []
            if props.canSubscribe {
                descriptors.append(GATTDescriptor(id: AttributeID(path + "/desc" + next()), uuid: "2902"))
            }
            var values: [AttributeID: Bytes] = [:]
            if let userDescription {
                let d = GATTDescriptor(id: AttributeID(path + "/desc" + next()), uuid: "2901", writable: userDescriptionWritable)
                descriptors.append(d)
                values[d.id] = Array(userDescription.utf8)
            }
            if let presentationFormat {
                let d = GATTDescriptor(id: AttributeID(path + "/desc" + next()), uuid: "2904")
                descriptors.append(d)
                values[d.id] = presentationFormat
            }
            if let extendedProperties {
                let d = GATTDescriptor(id: AttributeID(path + "/desc" + next()), uuid: "2900")
                descriptors.append(d)
                values[d.id] = extendedProperties
            }
            let c = SimCharacteristic(AttributeID(path), uuid, props, value: value, notify: notify, descriptors: descriptors)
            c.descriptorValues = values
            return c
        }
        func sink(_ c: SimCharacteristic) -> SimCharacteristic {
            c.counts = true
            return c
        }
        func encrypted(_ c: SimCharacteristic) -> SimCharacteristic {
            c.encrypted = true
            return c
        }
        func battery(_ level: UInt8) -> SimService {
            service("180F") { [self] s in
                [char(s, "2A19", [.read, .notify], [level], notify: .periodic(period: 15, jitter: 5))]
            }
        }
    }

    static func devices() -> [SimDevice] {
        var list: [SimDevice] = []

        var m = PathMaker("FC:58:FA:1A:2B:3C")
        list.append(SimDevice(
            address: "FC:58:FA:1A:2B:3C", name: "Demo iTag", connectable: true,
            advertisement: Advertisement(localName: "Demo iTag", serviceUUIDs: ["FFE0"], txPower: 0, flags: 0x06),
            advInterval: 0.5, baseRSSI: -58, phase: 0.3,
            services: [
                m.service("FFE0") { [m] s in
                    [m.char(s, "FFE1", [.read, .notify], [0x00], notify: .periodic(period: 5, jitter: 2), userDescription: "Button")]
                },
                m.service("1802") { [m] s in [m.char(s, "2A06", [.writeWithoutResponse], [0x00])] },
                m.battery(87),
                // Added last so the handles before it stay as they were.
                m.service(settingsService) { [m] s in
                    [m.char(s, settingsNote, [.read, .write, .reliableWrite], Array(settingsNoteText.utf8),
                            userDescription: "Note", userDescriptionWritable: true, extendedProperties: [0x03, 0x00])]
                },
            ]))

        m = PathMaker("E4:1C:22:5D:90:11")
        list.append(SimDevice(
            address: "E4:1C:22:5D:90:11", name: "Demo HRM", connectable: true,
            advertisement: Advertisement(localName: "Demo HRM", serviceUUIDs: ["180D", "180F"],
                                         manufacturerData: [0x0059: [0x01, 0x02, 0x03]], flags: 0x06, appearance: 0x0341),
            advInterval: 0.3, baseRSSI: -52, phase: 1.1,
            services: [
                m.service("180D") { [m] s in
                    [m.char(s, "2A37", [.notify], [0x06, 72], notify: .periodic(period: 1, jitter: 0.05)),
                     m.char(s, "2A38", [.read], [0x01]),
                     m.char(s, "2A39", [.write], [])]
                },
                m.battery(64),
                m.service("180A") { [m] s in
                    [m.char(s, "2A29", [.read], Array("bleexplr labs".utf8)),
                     m.char(s, "2A24", [.read], Array("HRM-2".utf8)),
                     m.char(s, "2A26", [.read], Array("1.4.2".utf8))]
                },
            ]))

        m = PathMaker("A4:C1:38:0B:7E:21")
        list.append(SimDevice(
            address: "A4:C1:38:0B:7E:21", name: "Demo Thermo", connectable: true,
            advertisement: Advertisement(localName: "Demo Thermo", serviceUUIDs: ["181A"],
                                         serviceData: ["181A": [0x5E, 0x08, 0x2C, 0x15]], flags: 0x06),
            advInterval: 1.0, baseRSSI: -71, phase: 2.0,
            services: [
                m.service("181A") { [m] s in
                    [m.char(s, "2A6E", [.read, .notify], [0x66, 0x08], notify: .periodic(period: 2, jitter: 0.2)),
                     m.char(s, "2A6F", [.read, .notify], [0x2C, 0x15], notify: .periodic(period: 2, jitter: 0.2))]
                },
                m.battery(93),
            ]))

        m = PathMaker("5C:F3:70:8A:00:42")
        list.append(SimDevice(
            address: "5C:F3:70:8A:00:42", name: "Demo Stream", connectable: true,
            advertisement: Advertisement(localName: "Demo Stream", serviceUUIDs: [streamService], flags: 0x06),
            advInterval: 0.4, baseRSSI: -64, phase: 0.7,
            services: [
                m.service(streamService) { [m] s in
                    [m.char(s, streamCharacteristic, [.notify], [],
                            notify: .stream(text: streamText, chunkInterval: 0.02, pause: 8), userDescription: "Data (20-byte chunks, then EOM)"),
                     m.sink(m.char(s, streamSink, [.read, .write, .writeWithoutResponse], Array("received 0 bytes in 0 writes".utf8),
                                   userDescription: "Data in (counts what it gets)"))]
                },
                // Added last so the handles before it stay as they were. BLE's shortest
                // connection interval, 7.5 ms: 37 or 38 notifications at each event.
                m.service(floodService) { [m] s in
                    let c = m.char(s, floodCharacteristic, [.notify], [], notify: .flood(connectionInterval: 0.0075),
                                   userDescription: "Flood (numbered, 5,000 a second)")
                    c.floodRate = floodRate
                    return [c]
                },
            ]))

        m = PathMaker("D0:0D:F1:A4:11:07")
        list.append(SimDevice(
            address: "D0:0D:F1:A4:11:07", name: "Demo Flaky", connectable: true,
            advertisement: Advertisement(localName: "Demo Flaky", serviceUUIDs: [flakyService], flags: 0x06),
            advInterval: 0.7, baseRSSI: -83, phase: 1.7,
            services: [
                m.service(flakyService) { [m] s in
                    [m.char(s, "6E400002-B5A3-F393-E0A9-E50E24DCCA9E", [.write, .writeWithoutResponse], []),
                     m.char(s, "6E400003-B5A3-F393-E0A9-E50E24DCCA9E", [.notify], [],
                            notify: .periodic(period: 1.5, jitter: 0.5))]
                },
                m.battery(12),
            ],
            link: LinkBehaviour(abortFirstAttempt: true, dropAfter: 8)))

        var beacon: Bytes = [0x02, 0x15]
        beacon += uuidBytes(iBeaconUUID) + [0x00, 0x01, 0x00, 0x2A, 0xC5]  // major 1, minor 42, -59 dBm
        list.append(SimDevice(
            address: "6B:2E:91:3C:4D:5E", name: nil, connectable: false,
            advertisement: Advertisement(manufacturerData: [0x004C: beacon], flags: 0x04),
            advInterval: 0.35, baseRSSI: -67, phase: 0.2, services: []))

        let url: Bytes = [0x10, 0xEB, 0x03] + Array("example".utf8) + [0x07]  // https://example.com
        list.append(SimDevice(
            address: "C3:7A:22:10:9B:01", name: nil, connectable: false,
            advertisement: Advertisement(serviceUUIDs: ["FEAA"], serviceData: ["FEAA": url], flags: 0x06),
            advInterval: 0.6, baseRSSI: -76, phase: 2.6, services: []))

        m = PathMaker("DE:AD:BE:EF:00:1B")
        list.append(SimDevice(
            address: "DE:AD:BE:EF:00:1B", name: evilName, connectable: true,
            advertisement: Advertisement(localName: evilName, manufacturerData: [0xFFFF: Array("\u{1B}[2J".utf8)]),
            advInterval: 1.2, baseRSSI: -88, phase: 0.9,
            services: [m.battery(50)]))

        // Unnamed devices, as found anywhere: often the interesting ones.
        list.append(SimDevice(
            address: "4A:11:9C:E0:5B:77", name: nil, connectable: true,
            advertisement: Advertisement(manufacturerData: [0x004C: [0x10, 0x05, 0x0B, 0x1C, 0x6F, 0x2A, 0x91]], flags: 0x1A),
            advInterval: 0.25, baseRSSI: -79, phase: 1.3, services: []))
        list.append(SimDevice(
            address: "33:E8:0F:62:A9:C4", name: nil, connectable: false,
            // A Windows 10 desktop's CDP beacon: version 1, salt, then the salted device hash.
            advertisement: Advertisement(manufacturerData: [0x0006: [0x01, 0x29, 0x00, 0x20, 0x22, 0x9D, 0x4B, 0x0E,
                                                                     0x5A, 0x71, 0x03, 0xC4, 0x8E, 0x19, 0xF0, 0x62]]),
            advInterval: 1.1, baseRSSI: -91, phase: 0.5, services: []))

        m = PathMaker("C8:2B:96:0E:51:3A")
        list.append(SimDevice(
            address: "C8:2B:96:0E:51:3A", name: "Demo Bike", connectable: true,
            advertisement: Advertisement(localName: "Demo Bike", serviceUUIDs: ["1816", "1809"],
                                         manufacturerData: [0x02E5: [0x42, 0x01]], flags: 0x06, appearance: 0x0485),
            advInterval: 0.5, baseRSSI: -69, phase: 2.3,
            services: [
                m.service("1816") { [m] s in
                    // 1000 wheel revolutions at 2.000 s, 250 crank revolutions at 1.500 s.
                    [m.char(s, "2A5B", [.notify], [0x03, 0xE8, 0x03, 0x00, 0x00, 0x00, 0x08, 0xFA, 0x00, 0x00, 0x06],
                            notify: .periodic(period: 1, jitter: 0.1))]
                },
                m.service("1809") { [m] s in
                    // 36.6 °C (FLOAT 366 x 10^-1), taken in the mouth.
                    [m.char(s, "2A1C", [.indicate], [0x04, 0x6E, 0x01, 0x00, 0xFF, 0x06],
                            notify: .periodic(period: 3, jitter: 0.3)),
                     m.char(s, "2A1D", [.read], [0x06])]
                },
                m.service("1805") { [m] s in
                    // 2024-03-15 10:30:00.500, Friday, set by hand.
                    [m.char(s, "2A2B", [.read], [0xE8, 0x07, 0x03, 0x0F, 0x0A, 0x1E, 0x00, 0x05, 0x80, 0x01])]
                },
                m.service(bikeVendorService) { [m] s in
                    [m.char(s, bikeVendorCharacteristic, [.read, .notify], [0x29, 0x09], notify: .periodic(period: 2, jitter: 0.2),
                            userDescription: "Motor temperature", presentationFormat: celsiusFormat)]
                },
                m.battery(71),
            ]))

        var alt: Bytes = [0xBE, 0xAC] + uuidBytes(altBeaconID)
        alt += [0x00, 0x07, 0x00, 0x0C, 0xC4, 0x00]  // ID2 7, ID3 12, -60 dBm at 1 m
        list.append(SimDevice(
            address: "0E:77:A1:5B:C2:09", name: nil, connectable: false,
            advertisement: Advertisement(manufacturerData: [0x0118: alt], flags: 0x04),
            advInterval: 0.45, baseRSSI: -73, phase: 1.9, services: []))

        // A thermometer on open firmware: BTHome v2, packet 9, battery 93 %, 25.06 °C, 50.55 %.
        list.append(SimDevice(
            address: "A4:C1:38:8D:18:B2", name: "Demo Climate", connectable: false,
            advertisement: Advertisement(localName: "Demo Climate",
                                         serviceData: ["FCD2": [0x40, 0x00, 0x09, 0x01, 0x5D, 0x02, 0xCA, 0x09, 0x03, 0xBF, 0x13]],
                                         flags: 0x06),
            advInterval: 1.0, baseRSSI: -71, phase: 0.4, services: []))

        // A RuuviTag sending RAWv2: docs.ruuvi.com's "valid data" example.
        list.append(SimDevice(
            address: "CB:B8:33:4C:88:4F", name: "Ruuvi 884F", connectable: true,
            advertisement: Advertisement(localName: "Ruuvi 884F",
                                         manufacturerData: [0x0499: parseHex("0512fc5394c37c0004fffc040cac364200cdcbb8334c884f")!],
                                         flags: 0x06),
            advInterval: 1.3, baseRSSI: -77, phase: 2.1, services: []))

        // A beacon that sends iBeacon and Eddystone-TLM in one advertisement.
        var both: Bytes = [0x02, 0x15] + uuidBytes("426C7565-4368-6172-6D42-6561636F6E73")
        both += [0x0E, 0xFE, 0x13, 0x55, 0xC5]  // major 3838, minor 4949, -59 dBm
        list.append(SimDevice(
            address: "DD:34:02:06:D0:6C", name: nil, connectable: false,
            advertisement: Advertisement(serviceUUIDs: ["FEAA"], manufacturerData: [0x004C: both],
                                         serviceData: ["FEAA": parseHex("20000bfe1c000000070800003e7c")!], flags: 0x06),
            advInterval: 0.9, baseRSSI: -80, phase: 1.1, services: []))

        // The rest of what a real room sends, far away (weak, at the bottom of the list), each
        // from a vector of Tests/Fixtures/realdata or its format's own example.
        let room: [(String, String?, Advertisement)] = [
            ("58:2D:34:35:A2:C1", "LYWSDCGQ", Advertisement(localName: "LYWSDCGQ", serviceUUIDs: ["FE95"],     // MiBeacon, plain
                serviceData: ["FE95": parseHex("5020aa01a3bf2e3b342d580d1004b40095020a10013b")!])),
            ("A4:C1:38:02:83:F4", nil, Advertisement(serviceData: ["181A": parseHex("f4830238c1a4a9066911b60b58f70d")!])),  // pvvx
            ("C4:7C:8D:6A:3E:27", "GVH5075_2762", Advertisement(localName: "GVH5075_2762", serviceUUIDs: ["EC88"],  // Govee
                manufacturerData: [0xEC88: parseHex("00bc00043e27")!])),
            ("5E:81:0B:3F:C2:D4", nil, Advertisement(serviceUUIDs: ["FD6F"],                             // Exposure Notification
                serviceData: ["FD6F": parseHex("0d3b4f65584c582160571dd19010d41c2660ee34")!])),
            ("6C:3A:A9:11:40:5F", nil, Advertisement(serviceUUIDs: ["FE2C"], serviceData: ["FE2C": [0x2C, 0xA1, 0xF5]])),  // Fast Pair
            ("3A:9D:C0:1E:77:02", nil, Advertisement(manufacturerData: [0x0006: [0x03, 0x00, 0x80] + Array("Demo Mouse".utf8)])),  // Swift Pair
            ("7F:E2:18:5B:0A:93", nil, Advertisement(serviceUUIDs: ["FED8"],                             // UriBeacon
                serviceData: ["FED8": parseHex("00f203676f6f2e676c2f687142584531")!])),
            ("F7:3B:06:C9:58:1E", nil, Advertisement(serviceUUIDs: ["FEAA"],                             // Eddystone-eTLM
                serviceData: ["FEAA": parseHex("20016c1f0e8a33b7d20914c5e6f7addec1d2")!])),
        ]
        for (i, (address, name, adv)) in room.enumerated() {
            var a = adv
            a.flags = 0x06
            list.append(SimDevice(address: address, name: name, connectable: false, advertisement: a,
                                  advInterval: 1.0 + 0.2 * Double(i), baseRSSI: -93 - Double(i % 3), phase: 0.3 * Double(i), services: []))
        }

        let eid: Bytes = [0x30, 0xF0, 0x8B, 0x3D, 0x51, 0xE2, 0x07, 0xA4, 0xC9, 0x16]  // tx -16 dBm
        list.append(SimDevice(
            address: "F1:0C:3E:88:6D:45", name: nil, connectable: false,
            advertisement: Advertisement(serviceUUIDs: ["FEAA"], serviceData: ["FEAA": eid], flags: 0x06),
            advInterval: 0.8, baseRSSI: -82, phase: 0.6, services: []))
        // Broadcasters (phones' beacons, trackers, tags) use random addresses, whose kind the
        // top two bits say (the scan list's TYPE: RPA, NRPA, static); 10 is no random kind, so
        // those (A4:C1:38, a sensor maker's public prefix) stay public.
        for d in list where !d.connectable && (UInt8(d.id.rawValue.prefix(2), radix: 16) ?? 0) >> 6 != 0b10 {
            d.bond.addressType = "random"
        }
        return list
    }

    /// The passkey `Demo Lock` "shows" on its display: type it when pairing asks.
    public static let lockPasskey: UInt32 = 246_810

    /// A device that pairs only with a passkey (a random static address, as most do); its
    /// bolt (2A56) is read and written only over an encrypted link, so a read pairs first.
    static func pairingDevice() -> SimDevice {
        let m = PathMaker("C4:7A:0E:51:3B:D9")
        let d = SimDevice(
            address: "C4:7A:0E:51:3B:D9", name: "Demo Lock", connectable: true,
            advertisement: Advertisement(localName: "Demo Lock", serviceUUIDs: ["1815"], flags: 0x06),
            advInterval: 0.5, baseRSSI: -58, phase: 0.3,
            services: [m.service("1815") { [m] s in [m.encrypted(m.char(s, "2A56", [.read, .write], [0x00],
                                                                        userDescription: "Bolt (needs encryption)"))] },
                       m.battery(88)],
            link: LinkBehaviour(pairing: .showsPasskey(lockPasskey)))
        d.bond.addressType = "random"
        d.random = SeededRandom(seed: 0x10C)
        return d
    }

    /// The number Demo Keypad and we show for a numeric comparison, and the passkey of a
    /// passkey entry with it (whichever side shows it; random in a real pairing, fixed here).
    public static let keypadNumber: UInt32 = 482_913, keypadPasskey: UInt32 = 135_790

    /// A door keypad with a small display (KeyboardDisplay, LE Secure Connections): with our
    /// keyboard-display agent it pairs by numeric comparison; with `--agent display-only` we
    /// show a passkey and it types it; with `--agent keyboard-only` it shows one for us.
    static func keypadDevice() -> SimDevice {
        let m = PathMaker("D2:5A:17:C4:80:6E")
        let d = SimDevice(
            address: "D2:5A:17:C4:80:6E", name: "Demo Keypad", connectable: true,
            advertisement: Advertisement(localName: "Demo Keypad", serviceUUIDs: ["180F"], flags: 0x06),
            advInterval: 0.6, baseRSSI: -63, phase: 0.9,
            services: [m.battery(71)],
            link: LinkBehaviour(pairing: .keyboardDisplay(number: keypadNumber, passkey: keypadPasskey)))
        d.bond.addressType = "random"
        d.random = SeededRandom(seed: 0x4B9D)
        return d
    }

    /// `count` more anonymous devices, for benchmarks with a crowded room.
    static func crowd(_ count: Int, rng: inout SeededRandom) -> [SimDevice] {
        (0..<count).map { i in
            let address = "02:00:" + hex4(UInt16(truncatingIfNeeded: i >> 16)).pairs() + ":" + hex4(UInt16(truncatingIfNeeded: i)).pairs()
            return SimDevice(
                address: address, name: i % 3 == 0 ? "Sensor \(i)" : nil, connectable: i % 2 == 0,
                advertisement: Advertisement(manufacturerData: [UInt16(i % 7): [UInt8(i & 0xFF), 0x01]]),
                advInterval: rng.uniform(0.1, 1.5), baseRSSI: rng.uniform(-98, -45),
                phase: rng.uniform(0, 6.28), services: [])
        }
    }

    static func uuidBytes(_ u: BLEUUID) -> Bytes {
        let digits = Array(u.canonical.replacingDashes())
        return stride(from: 0, to: 32, by: 2).map { UInt8(String(digits[$0..<$0 + 2]), radix: 16)! }
    }

    static let streamText: String = {
        var lines = ["bleexplr demo stream: a long text sent as 20-byte notifications, then EOM.", ""]
        for i in 1...40 {
            lines.append("Line \(i): The quick brown fox jumps over the lazy dog. 0123456789")
        }
        lines.append("-- end of message --")
        return lines.joined(separator: "\n")
    }()
}

extension String {
    func replacingColons() -> String { String(map { $0 == ":" ? "_" : $0 }) }
    func replacingDashes() -> String { String(filter { $0 != "-" }) }
    /// "0a1b" -> "0A:1B"
    func pairs() -> String {
        let u = Array(uppercased())
        return stride(from: 0, to: u.count, by: 2).map { String(u[$0..<min($0 + 2, u.count)]) }.joined(separator: ":")
    }
}
