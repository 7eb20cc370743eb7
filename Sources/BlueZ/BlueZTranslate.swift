import Explorer
import DBus

/// BlueZ property bags into the app's domain types. BlueZ names (Device1, Flags) stop here.
enum BlueZTranslate {
    static let device = "org.bluez.Device1"
    static let adapter = "org.bluez.Adapter1"
    static let service = "org.bluez.GattService1"
    static let characteristic = "org.bluez.GattCharacteristic1"
    static let descriptor = "org.bluez.GattDescriptor1"
    /// Device1 properties that come from advertising reports.
    static let advertisingProperties: Set<String> = ["RSSI", "ManufacturerData", "ServiceData", "UUIDs", "Name",
                                                     "Alias", "TxPower", "AdvertisingFlags", "Appearance"]

    /// Device1 properties about pairing.
    static let bondProperties: Set<String> = ["Paired", "Bonded", "Trusted", "Blocked", "AddressType"]

    static func bond(_ props: BlueZMirror.Properties) -> Bond {
        Bond(paired: props["Paired"]?.bool ?? false, bonded: props["Bonded"]?.bool ?? false,
             trusted: props["Trusted"]?.bool ?? false, blocked: props["Blocked"]?.bool ?? false,
             addressType: props["AddressType"]?.string.flatMap { $0 == "public" || $0 == "random" ? $0 : nil })
    }

    /// The advertisement fields present in `props` (a full set, or only what changed).
    static func advertisement(_ props: BlueZMirror.Properties) -> Advertisement {
        var adv = Advertisement()
        adv.localName = props["Name"]?.string
        adv.serviceUUIDs = (props["UUIDs"]?.strings ?? []).compactMap(BLEUUID.init)
        for e in props["ManufacturerData"]?.entries ?? [] {
            if let id = e.key.int, id >= 0, id <= 0xFFFF, let data = e.value.bytes { adv.manufacturerData[UInt16(id)] = data }
        }
        for e in props["ServiceData"]?.entries ?? [] {
            if let u = e.key.string.flatMap(BLEUUID.init), let data = e.value.bytes { adv.serviceData[u] = data }
        }
        adv.txPower = props["TxPower"]?.int
        adv.flags = props["AdvertisingFlags"]?.bytes?.first
        adv.appearance = props["Appearance"]?.int.flatMap { $0 >= 0 && $0 <= 0xFFFF ? UInt16($0) : nil }
        return adv
    }

    /// A report for a device from its properties (all of them, or what changed).
    static func report(id: PeripheralID, _ props: BlueZMirror.Properties) -> AdvertisementReport {
        let adv = advertisement(props)
        // Name is what the device said; Alias falls back to the address when there is
        // no name, which would hide unnamed devices' "(unnamed)": use it only if it differs.
        var name = props["Name"]?.string
        if name == nil, let alias = props["Alias"]?.string, alias != String(id.rawValue.map { $0 == ":" ? "-" : $0 }) {
            name = alias
        }
        let rssi = props["RSSI"]?.int.flatMap { $0 == 0 || $0 == 127 ? nil : $0 }
        return AdvertisementReport(id: id, address: id.rawValue, name: name, rssi: rssi, connectable: nil, advertisement: adv)
    }

    /// The GATT tree of a device from the mirror.
    static func services(_ mirror: BlueZMirror, devicePath: String) -> [GATTService] {
        mirror.paths(with: service, under: devicePath).compactMap { sp in
            guard let s = mirror[sp, service], let uuid = s["UUID"]?.string.flatMap(BLEUUID.init) else { return nil }
            let chars = mirror.paths(with: characteristic, under: sp).compactMap { cp -> GATTCharacteristic? in
                guard let c = mirror[cp, characteristic], let cu = c["UUID"]?.string.flatMap(BLEUUID.init) else { return nil }
                let descs = mirror.paths(with: descriptor, under: cp).compactMap { dp -> GATTDescriptor? in
                    guard let du = mirror[dp, descriptor]?["UUID"]?.string.flatMap(BLEUUID.init) else { return nil }
                    return GATTDescriptor(id: AttributeID(dp), uuid: du)
                }
                return GATTCharacteristic(id: AttributeID(cp), uuid: cu,
                                          properties: CharacteristicProperties(flags: c["Flags"]?.strings ?? []),
                                          descriptors: descs)
            }
            return GATTService(id: AttributeID(sp), uuid: uuid, isPrimary: s["Primary"]?.bool ?? true, characteristics: chars)
        }
    }

    /// The largest MTU BlueZ reports on the device's characteristics (BlueZ >= 5.62).
    static func mtu(_ mirror: BlueZMirror, devicePath: String) -> Int? {
        mirror.paths(with: characteristic, under: devicePath).compactMap { mirror[$0, characteristic]?["MTU"]?.int }.max()
    }

    /// Device1.Disconnected's reason name (org.bluez.Reason.*, doc/org.bluez.Device.rst)
    /// as the app's reason. `weAsked`: this process called Disconnect.
    static func disconnectReason(_ name: String, weAsked: Bool) -> DisconnectReason {
        switch name {
        case "org.bluez.Reason.Timeout": return .timeout
        case "org.bluez.Reason.Local": return .local
        // Ours, whatever a controller that echoes our HCI Disconnect's reason (0x13) made BlueZ say.
        case "org.bluez.Reason.Remote": return weAsked ? .local : .remote
        case "org.bluez.Reason.Authentication": return .other("authentication failed")
        case "org.bluez.Reason.Suspend": return .other("this computer suspended")   // bluetoothd 5.87's name
        default:
            // Unknown (or a name newer than this code): say so, unless it was our own doing.
            return weAsked ? .local : .other("disconnected, reason unknown")
        }
    }

    static func backendError(_ e: DBusError) -> BackendError {
        BackendError(name: e.name, message: e.message)
    }
}
