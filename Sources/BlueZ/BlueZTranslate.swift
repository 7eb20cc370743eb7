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
    /// whole is bounded (`ReportBounds`): a value of another type, or out of range, is absent,
    /// and `unread` is set (`mistyped` then says which: only then, as this runs per signal).
    static func advertisement(_ props: BlueZMirror.Properties, unread: inout Bool) -> Advertisement {
        // A property that is there but not at its type: absent, and noted.
        func read<T>(_ key: String, _ at: (DBusValue) -> T?) -> T? {
            guard let v = props[key] else { return nil }
            if let t = at(v) { return t }
            unread = true
            return nil
        }
        var adv = Advertisement()
        adv.localName = read("Name") { $0.strictString }
        let uuids = read("UUIDs") { $0.strictStrings } ?? []
        adv.serviceUUIDs = uuids.prefix(ReportBounds.serviceUUIDs).compactMap(BLEUUID.init)
        for e in read("ManufacturerData", { $0.strictEntries(key: "q", value: "v") }) ?? [] {
            if let id = e.key.strictUInt16, let data = e.value.bytes { adv.manufacturerData[UInt16(id)] = data }
        }
        for e in read("ServiceData", { $0.strictEntries(key: "s", value: "v") }) ?? [] {
            if let u = e.key.strictString.flatMap(BLEUUID.init), let data = e.value.bytes { adv.serviceData[u] = data }
        }
        adv.txPower = read("TxPower") { $0.strictInt16 }
        adv.flags = read("AdvertisingFlags") { $0.bytes }?.first
        adv.appearance = read("Appearance") { $0.strictUInt16 }.map { UInt16($0) }
        return ReportBounds.advertisement(adv)
    }

    /// A report for a device from its properties (all of them, or what changed); `unread`
    /// is set when one of them was of another type than BlueZ's.
    static func report(id: PeripheralID, _ props: BlueZMirror.Properties, unread: inout Bool) -> AdvertisementReport {
        let adv = advertisement(props, unread: &unread)
        // Name is what the device said; Alias falls back to the address when there is
        // no name, which would hide unnamed devices' "(unnamed)": use it only if it differs.
        var name = props["Name"]?.strictString
        let alias = props["Alias"].map { v -> String? in
            if let a = v.strictString { return a }
            unread = true
            return nil
        } ?? nil
        if name == nil, let alias, alias != String(id.rawValue.map { $0 == ":" ? "-" : $0 }) {
            name = alias
        }
        // 0 and 127 mean "not available" (BlueZ clears RSSI to 0 when a scan stops).
        var rssi: Int?
        if let v = props["RSSI"] {
            if let r = v.strictInt16 { rssi = r == 0 || r == 127 ? nil : r } else { unread = true }
        }
        return ReportBounds.report(AdvertisementReport(id: id, address: id.rawValue, name: name, rssi: rssi, connectable: nil,
                                                       advertisement: adv))
    }

    static func report(id: PeripheralID, _ props: BlueZMirror.Properties) -> AdvertisementReport {
        var unread = false
        return report(id: id, props, unread: &unread)
    }

    /// The D-Bus signature of each Device1 property bleexplr reads (doc/org.bluez.Device.rst).
    static let deviceSignatures: [String: String] = [
        "Address": "s", "AddressType": "s", "Name": "s", "Alias": "s", "RSSI": "n", "TxPower": "n", "Appearance": "q",
        "UUIDs": "as", "ManufacturerData": "a{qv}", "ServiceData": "a{sv}", "AdvertisingFlags": "ay",
        "Connected": "b", "ServicesResolved": "b", "Paired": "b", "Bonded": "b", "Trusted": "b", "Blocked": "b",
    ]

    /// The properties of `props` that bleexplr reads and that arrived at a type other than
    /// BlueZ's, by name: what the backend says it could not read. Looks at each property of
    /// `props` (not at every one it knows): a change of two properties costs two lookups.
    static func mistyped(_ props: BlueZMirror.Properties, object: String,
                         signatures: [String: String] = deviceSignatures) -> [UnreadableProperty] {
        var out: [UnreadableProperty] = []
        for (key, value) in props {
            guard let expected = signatures[key] else { continue }
            let sent = value.unwrapped.signature
            if sent != expected { out.append(UnreadableProperty(object: object, property: key, problem: .wrongType(sent: sent, expected: expected))) }
        }
        return out.sorted { $0.property < $1.property }
    }

    /// The GATT tree of a device from the mirror. A service, characteristic or descriptor
    /// without a UUID it can read is left out, and said in `unreadable`.
    static func services(_ mirror: BlueZMirror, devicePath: String, unreadable: inout [UnreadableProperty]) -> [GATTService] {
        func readUUID(_ path: String, _ props: BlueZMirror.Properties?) -> BLEUUID? {
            guard let v = props?["UUID"] else {
                unreadable.append(UnreadableProperty(object: path, property: "UUID", problem: .missing))
                return nil
            }
            guard let s = v.strictString else {
                unreadable.append(UnreadableProperty(object: path, property: "UUID",
                                                     problem: .wrongType(sent: v.unwrapped.signature, expected: "s")))
                return nil
            }
            return BLEUUID(s)
        }
        return mirror.paths(with: service, under: devicePath).compactMap { sp -> GATTService? in
            guard let s = mirror[sp, service], let uuid = readUUID(sp, s) else { return nil }
            let chars = mirror.paths(with: characteristic, under: sp).compactMap { cp -> GATTCharacteristic? in
                guard let c = mirror[cp, characteristic], let cu = readUUID(cp, c) else { return nil }
                let charFlags = c["Flags"]?.strictStrings ?? []
                let descs = mirror.paths(with: descriptor, under: cp).compactMap { dp -> GATTDescriptor? in
                    guard let du = readUUID(dp, mirror[dp, descriptor]) else { return nil }
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
