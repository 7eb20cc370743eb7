/// `serve --clone`: a recorded device as a spec: its advertisement (every report merged),
/// its last resolved GATT tree and the last value each characteristic and descriptor had
/// (read, written or notified). What BlueZ serves by itself on every adapter is left out.
public enum CloneSpec {
    public struct CloneError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// BlueZ serves these itself on every adapter (GAP, GATT): a clone leaves them out.
    static let ownedByBlueZ: Set<BLEUUID> = ["1800", "1801"]

    /// BlueZ adds Device Information with only a PnP ID (main.conf DeviceID) to every
    /// adapter: a device behind BlueZ shows it, and a clone served by BlueZ gets it anyway.
    static func isBlueZDeviceID(_ s: GATTService) -> Bool {
        s.uuid == "180A" && s.characteristics.map(\.uuid) == ["2A50"]
    }

    /// A recorded name as a clone advertises it: its control characters (TerminalSafe's
    /// rule, which PeripheralSpec.parse refuses) left out, at most 20 bytes, whole scalars.
    static func cloneName(_ recorded: String) -> String? {
        var out = String.UnicodeScalarView()
        var size = 0
        for scalar in recorded.unicodeScalars where !TerminalSafe.isUnsafe(scalar) {
            let n = String(scalar).utf8.count
            guard size + n <= 20 else { break }
            out.append(scalar)
            size += n
        }
        return out.isEmpty ? nil : String(out)
    }

    /// What a clone takes from a recording, gathered one event at a time: `serve --clone`
    /// reads the file through it (`Recording.read`) and keeps no other event.
    public struct Gathered: Sendable {
        let id: PeripheralID
        var adv = Advertisement()
        var name: String?
        var heard = false
        /// BlueZ adds the GATT services it resolved to Device1.UUIDs after a connection: the
        /// UUIDs a device advertised are those of the first report that had any.
        var advertisedUUIDs: [BLEUUID]?
        var services: [GATTService]?
        var values: [AttributeID: Bytes] = [:]

        public init(address: String) { id = PeripheralID(address.uppercased()) }

        public mutating func add(_ e: BackendEvent) {
            switch e {
            case let .advertisementReceived(rep) where rep.id == id:
                heard = true
                adv.merge(rep.advertisement)
                if advertisedUUIDs == nil, !rep.advertisement.serviceUUIDs.isEmpty {
                    advertisedUUIDs = rep.advertisement.serviceUUIDs
                }
                if let n = rep.name { name = n }
            case let .servicesResolved(pid, s, _) where pid == id:
                services = s
            case let .readCompleted(cid, .success(b)), let .valueNotified(cid, b), let .writeCompleted(cid, b, _, nil):
                values[cid] = Array(b.prefix(512))
            case let .valuesNotified(cid, vs):
                if let b = vs.last?.bytes { values[cid] = Array(b.prefix(512)) }
            case let .descriptorRead(did, .success(b)):
                values[did] = Array(b.prefix(512))
            default:
                break
            }
        }
    }

    public static func make(_ r: Recording, address: String) throws(CloneError) -> PeripheralSpec {
        var g = Gathered(address: address)
        for (_, e) in r.events { g.add(e) }
        return try make(g, address: address)
    }

    public static func make(_ g: Gathered, address: String) throws(CloneError) -> PeripheralSpec {
        let (adv, name, values) = (g.adv, g.name, g.values)
        guard g.heard || g.services != nil else { throw CloneError(description: "the recording never heard \(address)") }
        guard let services = g.services, !services.isEmpty else {
            throw CloneError(description: "the recording has no GATT tree for \(address): connect to it while recording")
        }
        var spec = PeripheralSpec(localName: (adv.localName ?? name).flatMap(cloneName), services: [])
        for s in services where !ownedByBlueZ.contains(s.uuid) && !isBlueZDeviceID(s) {
            spec.services.append(ServiceSpec(uuid: s.uuid, primary: s.isPrimary, characteristics: s.characteristics.map { c in
                let flags = c.properties.flagNames.filter { PeripheralSpec.characteristicFlags.contains($0) }
                return CharacteristicSpec(
                    uuid: c.uuid, flags: flags.isEmpty ? ["read"] : flags, value: Array((values[c.id] ?? []).prefix(512)),
                    descriptors: c.descriptors.filter { $0.uuid != "2902" }.map {
                        DescriptorSpec(uuid: $0.uuid, value: Array((values[$0.id] ?? []).prefix(512)))
                    })
            }))
        }
        guard !spec.services.isEmpty else { throw CloneError(description: "\(address) has only the services BlueZ serves itself") }
        // An advertisement holds 31 bytes: the flags (3), the name, one 16-bit list or one
        // 128-bit UUID; manufacturer data when it still fits.
        let uuids = (g.advertisedUUIDs ?? []).filter { !ownedByBlueZ.contains($0) }
        spec.advertisedServices = Array(uuids.prefix(uuids.first?.shortValue != nil ? 2 : 1))
        var used = 3 + (spec.localName.map { 2 + $0.utf8.count } ?? 0)
            + (spec.advertisedServices.isEmpty ? 0 : 2 + spec.advertisedServices.reduce(0) { $0 + ($1.shortValue != nil ? 2 : 16) })
        for k in adv.manufacturerData.keys.sorted() {
            let size = 4 + adv.manufacturerData[k]!.count
            if used + size <= 31 { spec.manufacturerData[k] = adv.manufacturerData[k]; used += size }
        }
        return spec
    }
}
