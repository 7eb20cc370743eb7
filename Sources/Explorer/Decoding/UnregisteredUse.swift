/// Manufacturer data that is not what its company id says. The id's two bytes are meant
/// to name the SIG member whose format follows; some vendors use an id that is not
/// theirs, or one no one was given, or put a reading in those two bytes. A generic
/// explorer then labels the entry with a stranger's name ("Nokia", "Renault SA") or, worse,
/// decodes it with that company's format. This table lists the known patterns, each with
/// its reason, so the entry is shown as what it is instead.
///
/// A pattern names the ids it applies to and the evidence it needs. Where the id alone is
/// ambiguous (0x0001 is also Nokia's, a reading can take any value), the rest of the
/// advertisement must say who sent it: its name, a service UUID, Govee's own iBeacon.
/// Without that evidence nothing is claimed. The patterns come from the public decoders'
/// write-ups (Home Assistant's govee-ble, inkbird-ble, sensorpush-ble; ble_monitor's device
/// pages) and the vectors in shared/realdata; no reading is decoded here.
enum UnregisteredUse {
    /// Which company ids a pattern covers.
    enum Companies: Sendable {
        case ids(Set<UInt16>)
        /// Ids the SIG has not assigned to anyone (see `firstUnassigned`).
        case unassigned
        /// Any id: the two bytes are a reading, not a company.
        case any
    }

    /// What else in the advertisement must point at the vendor.
    enum Evidence: Sendable {
        case name(String)
        case namePrefix(String)
        case serviceUUID(BLEUUID)
        /// An Apple iBeacon (02 15 …) with this UUID in the same advertisement, or the same
        /// UUID in its 128-bit service list.
        case iBeaconUUID(BLEUUID)
    }

    struct Pattern: Sendable {
        let vendor: String
        let companies: Companies
        /// Any one suffices; empty: the id alone is evidence.
        let evidence: [Evidence]
        let reason: String
    }

    /// The SIG's list had reached about 0x0F00 by 2025; from here up no id is anyone's.
    static let firstUnassigned: UInt16 = 0x1000

    /// Govee's iBeacon UUID, ASCII "INTELLI_ROCKS_HW": its thermometers send it beside their data.
    static let goveeBeacon: BLEUUID = "494E5445-4C4C-495F-524F-434B535F4857"
    static let goveeService: BLEUUID = "EC88"
    static let govee: [Evidence] = [.namePrefix("GVH"), .namePrefix("Govee"), .serviceUUID(goveeService), .iBeaconUUID(goveeBeacon)]

    static let patterns: [Pattern] = [
        Pattern(vendor: "Govee", companies: .ids([0xEC88]), evidence: [],
                reason: "no company was given this id; Govee thermo-hygrometers (H5072, H5074, H5075, H5051) put their readings under it"),
        Pattern(vendor: "Govee", companies: .ids([0x0001]), evidence: govee,
                reason: "Govee sensors (H5100-H5106, H5174, H5177) put their readings under it"),
        Pattern(vendor: "Govee", companies: .unassigned, evidence: govee,
                reason: "no company was given this id; Govee uses several (0x8801, 0x8803, its probe thermometers' own)"),
        Pattern(vendor: "Inkbird", companies: .any, evidence: [.name("sps"), .name("tps")],
                reason: "Inkbird IBS-TH sensors (named sps, tps) put the temperature there"),
        Pattern(vendor: "Inkbird", companies: .ids([0x0000]), evidence: [.namePrefix("iBBQ")],
                reason: "Inkbird iBBQ thermometers put their data under it"),
        Pattern(vendor: "Inkbird", companies: .unassigned, evidence: [.namePrefix("IBS-"), .namePrefix("ITH-")],
                reason: "no company was given this id; Inkbird IBS and ITH sensors use it"),
        Pattern(vendor: "SensorPush", companies: .any,
                evidence: [.namePrefix("SensorPush"), .serviceUUID("EF090000-11D6-42BA-93B8-9DD7EC090AB0"),
                           .serviceUUID("EF090000-11D6-42BA-93B8-9DD7EC090AA9")],
                reason: "SensorPush packs measurement bits into them"),
    ]

    /// The note for an entry matching a pattern, nil for any other entry.
    static func note(_ company: UInt16, _ data: Bytes, in adv: Advertisement?) -> DecodedValue? {
        guard let p = patterns.first(where: { covers($0.companies, company) && hasEvidence($0.evidence, adv) }) else { return nil }
        let registered = AssignedNumbers.companyLegalName(company)
        var text: String
        if case .any = p.companies {
            text = "\(p.vendor) data; its company-id bytes (\(hexID(company))) are a reading, not a company: \(p.reason)"
        } else {
            text = "\(p.vendor) data under company \(hexID(company))" + (registered.map { ", registered to \($0)" } ?? "")
                + ": \(p.reason)"
        }
        var fields: [DecodedValue.Field] = [
            .kind("unregistered-use"), .int("company", company), .init("registeredTo", registered.map { .string($0) } ?? .null),
            .string("vendor", p.vendor), .string("reason", p.reason), .bytes("data", data),
        ]
        // macOS hands over two manufacturer structures as one: an Apple iBeacon after the data.
        if let at = appleBeaconStart(data) {
            text += "; an Apple iBeacon follows at byte \(at) (two structures joined)"
            fields.append(.int("appleBeaconAt", at))
        }
        return DecodedValue(text, fields)
    }

    static func covers(_ companies: Companies, _ id: UInt16) -> Bool {
        switch companies {
        case let .ids(set): return set.contains(id)
        case .unassigned: return id >= firstUnassigned
        case .any: return true
        }
    }

    static func hasEvidence(_ evidence: [Evidence], _ adv: Advertisement?) -> Bool {
        if evidence.isEmpty { return true }
        guard let adv else { return false }
        return evidence.contains { e in
            switch e {
            case let .name(n): return adv.localName == n
            case let .namePrefix(p): return adv.localName?.hasPrefix(p) == true
            case let .serviceUUID(u): return adv.serviceUUIDs.contains(u)
            case let .iBeaconUUID(u):
                if adv.serviceUUIDs.contains(u) { return true }
                guard let apple = adv.manufacturerData[0x004C], apple.count >= 18, apple[0] == 0x02, apple[1] == 0x15 else { return false }
                return BLEUUID(bigEndianBytes: apple[2..<18]) == u
            }
        }
    }

    /// Where `4C 00 02 15` and a whole iBeacon body start inside the data, if they do.
    static func appleBeaconStart(_ b: Bytes) -> Int? {
        guard b.count >= 25 else { return nil }
        for i in 0...(b.count - 25) where b[i] == 0x4C && b[i + 1] == 0x00 && b[i + 2] == 0x02 && b[i + 3] == 0x15 {
            return i
        }
        return nil
    }
}
