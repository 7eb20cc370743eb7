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
             addressType: props["AddressType"]?.strictString.flatMap { $0 == "public" || $0 == "random" ? $0 : nil })
    }

    /// The advertisement fields present in `props` (a full set, or only what changed).
    /// Each property is read only at the type BlueZ documents (BlueZTypes.swift), and the
    /// whole is bounded (`ReportBounds`): a value of another type, or out of range, is absent.
    static func advertisement(_ props: BlueZMirror.Properties) -> Advertisement {
        var adv = Advertisement()
        adv.localName = props["Name"]?.strictString
        let uuids = props["UUIDs"]?.strictStrings ?? []
        adv.serviceUUIDs = uuids.prefix(ReportBounds.serviceUUIDs).compactMap(BLEUUID.init)
        for e in props["ManufacturerData"]?.strictEntries(key: "q", value: "v") ?? [] {
            if let id = e.key.strictUInt16, let data = e.value.bytes { adv.manufacturerData[UInt16(id)] = data }
        }
        for e in props["ServiceData"]?.strictEntries(key: "s", value: "v") ?? [] {
            if let u = e.key.strictString.flatMap(BLEUUID.init), let data = e.value.bytes { adv.serviceData[u] = data }
        }
        adv.txPower = props["TxPower"]?.strictInt16
        adv.flags = props["AdvertisingFlags"]?.bytes?.first
        adv.appearance = props["Appearance"]?.strictUInt16.map { UInt16($0) }
        return ReportBounds.advertisement(adv)
    }

    /// A report for a device from its properties (all of them, or what changed).
    static func report(id: PeripheralID, _ props: BlueZMirror.Properties) -> AdvertisementReport {
        let adv = advertisement(props)
        // Name is what the device said; Alias falls back to the address when there is
        // no name, which would hide unnamed devices' "(unnamed)": use it only if it differs.
        var name = props["Name"]?.strictString
        if name == nil, let alias = props["Alias"]?.strictString, alias != String(id.rawValue.map { $0 == ":" ? "-" : $0 }) {
            name = alias
        }
        // 0 and 127 mean "not available" (BlueZ clears RSSI to 0 when a scan stops).
        let rssi = props["RSSI"]?.strictInt16.flatMap { $0 == 0 || $0 == 127 ? nil : $0 }
        return ReportBounds.report(AdvertisementReport(id: id, address: id.rawValue, name: name, rssi: rssi, connectable: nil,
                                                       advertisement: adv))
    }

    /// The properties of this report that arrived at a type other than BlueZ's, by name:
    /// what the backend says it could not read.
    static func mistyped(_ props: BlueZMirror.Properties) -> [String] {
        var out: [String] = []
        func check(_ key: String, _ ok: (DBusValue) -> Bool) { if let v = props[key], !ok(v) { out.append(key) } }
        check("RSSI") { $0.strictInt16 != nil }
        check("TxPower") { $0.strictInt16 != nil }
        check("Appearance") { $0.strictUInt16 != nil }
        check("Name") { $0.strictString != nil }
        check("Alias") { $0.strictString != nil }
        check("UUIDs") { $0.strictStrings != nil }
        check("ManufacturerData") { $0.strictEntries(key: "q", value: "v") != nil }
        check("ServiceData") { $0.strictEntries(key: "s", value: "v") != nil }
        check("AdvertisingFlags") { $0.bytes != nil }
        return out
    }

    /// The GATT tree of a device from the mirror.
    static func services(_ mirror: BlueZMirror, devicePath: String) -> [GATTService] {
        mirror.paths(with: service, under: devicePath).compactMap { sp in
            guard let s = mirror[sp, service], let uuid = s["UUID"]?.strictString.flatMap(BLEUUID.init) else { return nil }
            let chars = mirror.paths(with: characteristic, under: sp).compactMap { cp -> GATTCharacteristic? in
                guard let c = mirror[cp, characteristic], let cu = c["UUID"]?.strictString.flatMap(BLEUUID.init) else { return nil }
                let charFlags = c["Flags"]?.strictStrings ?? []
                let descs = mirror.paths(with: descriptor, under: cp).compactMap { dp -> GATTDescriptor? in
                    guard let du = mirror[dp, descriptor]?["UUID"]?.strictString.flatMap(BLEUUID.init) else { return nil }
                    let flags = mirror[dp, descriptor]?["Flags"]?.strictStrings
                    return GATTDescriptor(id: AttributeID(dp), uuid: du,
                                          writable: GATTDescriptor.writable(du, flags: flags, characteristicFlags: charFlags))
                }
                return GATTCharacteristic(id: AttributeID(cp), uuid: cu,
                                          properties: CharacteristicProperties(flags: c["Flags"]?.strictStrings ?? []),
                                          descriptors: descs)
            }
            return GATTService(id: AttributeID(sp), uuid: uuid, isPrimary: s["Primary"]?.bool ?? true, characteristics: chars)
        }
    }

    /// The largest MTU BlueZ reports on the device's characteristics (BlueZ >= 5.62).
    static func mtu(_ mirror: BlueZMirror, devicePath: String) -> Int? {
        mirror.paths(with: characteristic, under: devicePath).compactMap { mirror[$0, characteristic]?["MTU"]?.strictUInt16 }.max()
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
