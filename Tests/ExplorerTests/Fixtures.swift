@testable import Explorer

/// Builders for deterministic states: fixed addresses, fixed clock.
enum Fixture {
    static let t0 = Timestamp(1_780_000_000)
    static let hrm = PeripheralID("E4:1C:22:5D:90:11")
    static let itag = PeripheralID("FC:58:FA:1A:2B:3C")
    static let beacon = PeripheralID("6B:2E:91:3C:4D:5E")
    static let hrmChar = CharacteristicID("/sim/dev_E4_1C_22_5D_90_11/service000b/char000c")
    static let bslChar = CharacteristicID("/sim/dev_E4_1C_22_5D_90_11/service000b/char000e")

    static func report(_ id: PeripheralID, name: String?, rssi: Int, connectable: Bool = true,
                       adv: Advertisement = Advertisement()) -> BackendEvent {
        .advertisementReceived(AdvertisementReport(id: id, address: id.rawValue, name: name, rssi: rssi,
                                                   connectable: connectable, advertisement: adv))
    }

    static let hrmServices = [
        GATTService(id: AttributeID("/sim/dev_E4_1C_22_5D_90_11/service000b"), uuid: "180D", characteristics: [
            GATTCharacteristic(id: hrmChar, uuid: "2A37", properties: [.notify],
                               descriptors: [GATTDescriptor(id: AttributeID(hrmChar.path + "/desc000d"), uuid: "2902")]),
            GATTCharacteristic(id: bslChar, uuid: "2A38", properties: [.read]),
        ]),
    ]

    static let itagChar = CharacteristicID("/sim/dev_FC_58_FA_1A_2B_3C/service0010/char0011")
    static let itagServices = [
        GATTService(id: AttributeID("/sim/dev_FC_58_FA_1A_2B_3C/service0010"), uuid: "FFE0", characteristics: [
            GATTCharacteristic(id: itagChar, uuid: "FFE1", properties: [.notify]),
        ]),
    ]

    /// Three devices heard, scan on.
    static func scanning() -> AppState {
        var s = AppState(now: t0)
        s.adapter = AdapterStatus(name: "sim0", power: .on, discovering: true)
        apply(&s, report(hrm, name: "Demo HRM", rssi: -50, adv: Advertisement(serviceUUIDs: ["180D"])))
        apply(&s, report(itag, name: "Demo iTag", rssi: -60, adv: Advertisement(serviceUUIDs: ["FFE0"])))
        apply(&s, report(beacon, name: nil, rssi: -70, connectable: false,
                         adv: Advertisement(manufacturerData: [0x004C: [0x02, 0x15] + Array(repeating: 0xAB, count: 16) + [0, 1, 0, 2, 0xC5]])))
        return s
    }

    @discardableResult
    static func apply(_ s: inout AppState, _ e: BackendEvent, after: Double = 0) -> [Effect] {
        Reducer.reduce(&s, .backend(e, at: s.now + after))
    }

    /// Connected to the HRM with its device screen open.
    static func connectedHRM() -> AppState {
        var s = scanning()
        s.scan.cursor = hrm
        _ = Reducer.reduce(&s, .rowActivated)
        apply(&s, .connected(hrm), after: 0.5)
        apply(&s, .servicesResolved(hrm, hrmServices, mtu: 247), after: 0.2)
        return s
    }
}
