import Explorer
import DBus

/// The objects `serve` exports, built from a spec: an ObjectManager root with
/// GattService1 / GattCharacteristic1 / GattDescriptor1 objects below it (what
/// GattManager1.RegisterApplication reads), and an LEAdvertisement1 beside it.
struct GattObjects {
    static let service = "org.bluez.GattService1"
    static let characteristic = "org.bluez.GattCharacteristic1"
    static let descriptor = "org.bluez.GattDescriptor1"
    static let advertisement = "org.bluez.LEAdvertisement1"

    enum Kind: Equatable { case service, characteristic(service: String), descriptor(characteristic: String) }

    struct Object {
        var path: String
        var kind: Kind
        var uuid: BLEUUID
        var flags: [String]
        var primary = true
        var children: [String] = []
    }

    let root: String
    let advertisementPath: String
    let spec: PeripheralSpec
    /// In export order: each service, then its characteristics, each with its descriptors.
    private(set) var objects: [Object] = []
    private(set) var byPath: [String: Int] = [:]
    /// Current values by path (characteristics and descriptors): writes are kept here.
    var values: [String: Bytes] = [:]
    var notifying: Set<String> = []
    /// Notifying characteristics offer bluetoothd a socket (`NotifyAcquired`): only where
    /// the bus can pass it one.
    let acquirable: Bool
    var acquired: Set<String> = []

    init(spec: PeripheralSpec, root: String, advertisementPath: String, acquirable: Bool = false) {
        self.spec = spec
        self.acquirable = acquirable
        self.root = root
        self.advertisementPath = advertisementPath
        for (si, s) in spec.services.enumerated() {
            let sp = "\(root)/service\(si)"
            var svc = Object(path: sp, kind: .service, uuid: s.uuid, flags: [], primary: s.primary)
            var chars: [Object] = []
            var descs: [Object] = []
            for (ci, c) in s.characteristics.enumerated() {
                let cp = "\(sp)/char\(ci)"
                var ch = Object(path: cp, kind: .characteristic(service: sp), uuid: c.uuid, flags: c.flags)
                values[cp] = c.value
                for (di, d) in c.descriptors.enumerated() {
                    let dp = "\(cp)/desc\(di)"
                    descs.append(Object(path: dp, kind: .descriptor(characteristic: cp), uuid: d.uuid, flags: d.flags))
                    values[dp] = d.value
                    ch.children.append(dp)
                }
                chars.append(ch)
                svc.children.append(cp)
            }
            add(svc)
            for ch in chars {
                add(ch)
                for d in descs where d.kind == .descriptor(characteristic: ch.path) { add(d) }
            }
        }
    }

    private mutating func add(_ o: Object) {
        byPath[o.path] = objects.count
        objects.append(o)
    }

    func object(_ path: String) -> Object? { byPath[path].map { objects[$0] } }

    /// The characteristic paths with this UUID.
    func characteristics(_ uuid: BLEUUID) -> [String] {
        objects.filter { if case .characteristic = $0.kind { return $0.uuid == uuid }; return false }.map(\.path)
    }

    func interface(of o: Object) -> String {
        switch o.kind {
        case .service: return Self.service
        case .characteristic: return Self.characteristic
        case .descriptor: return Self.descriptor
        }
    }

    func properties(_ o: Object) -> [String: DBusValue] {
        switch o.kind {
        case .service:
            return ["UUID": .string(o.uuid.canonical), "Primary": .bool(o.primary),
                    "Characteristics": .array(element: "o", o.children.map { .objectPath($0) })]
        case let .characteristic(service):
            var p: [String: DBusValue] = [
                "UUID": .string(o.uuid.canonical), "Service": .objectPath(service),
                "Flags": .array(element: "s", o.flags.map { .string($0) }),
                "Value": .bytes(values[o.path] ?? []), "Notifying": .bool(notifying.contains(o.path)),
                "Descriptors": .array(element: "o", o.children.map { .objectPath($0) })]
            // bluetoothd asks for a socket (AcquireNotify) instead of StartNotify when this is
            // present; indications stay StartNotify's (a socket carries no confirmation).
            if acquirable, o.flags.contains("notify") { p["NotifyAcquired"] = .bool(acquired.contains(o.path)) }
            return p
        case let .descriptor(characteristic):
            return ["UUID": .string(o.uuid.canonical), "Characteristic": .objectPath(characteristic),
                    "Flags": .array(element: "s", o.flags.map { .string($0) }), "Value": .bytes(values[o.path] ?? [])]
        }
    }

    /// GetManagedObjects at the root: `a{oa{sa{sv}}}`.
    func managedObjects() -> DBusValue {
        .dict(key: "o", value: "a{sa{sv}}", objects.map { o in
            DBusDictEntry(.objectPath(o.path),
                          .dict(key: "s", value: "a{sv}", [DBusDictEntry(.string(interface(of: o)), .vardict(properties(o)))]))
        })
    }

    func advertisementProperties() -> [String: DBusValue] {
        // Discoverable: the LE General Discoverable flag. Since BlueZ 5.67 a central whose discovery
        // filter sets only Transport (bluetoothctl's `transport le`) drops adverts without it.
        var p: [String: DBusValue] = ["Type": .string("peripheral"), "Discoverable": .bool(true)]
        if let name = spec.localName { p["LocalName"] = .string(name) }
        if !spec.advertisedServices.isEmpty {
            p["ServiceUUIDs"] = .array(element: "s", spec.advertisedServices.map { .string($0.canonical) })
        }
        if !spec.manufacturerData.isEmpty {
            p["ManufacturerData"] = .dict(key: "q", value: "v", spec.manufacturerData.keys.sorted().map {
                DBusDictEntry(.uint16($0), .variant(.bytes(spec.manufacturerData[$0]!)))
            })
        }
        if !spec.serviceData.isEmpty {
            p["ServiceData"] = .dict(key: "s", value: "v", spec.serviceData.keys.sorted().map {
                DBusDictEntry(.string($0.canonical), .variant(.bytes(spec.serviceData[$0]!)))
            })
        }
        return p
    }
}
