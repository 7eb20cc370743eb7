/// Names for UUIDs, units, appearance values and company identifiers, looked up by
/// normalised UUID (`180D`, `0x180D` and `0000180d-0000-1000-8000-00805f9b34fb` are one
/// key). The rows live in one data file, `AssignedNumbersData`; this parses them once.
public enum AssignedNumbers {
    /// A member UUID without a curated name is named after its company, shortly ("Google").
    // The user's names (the configuration's [names]) come before the SIG's.
    public static func serviceName(_ uuid: BLEUUID) -> String? { UserNames.current.name(uuid) ?? services[uuid] ?? memberServices[uuid].map(shortCompanyName) }
    /// The curated name, or the member company's name exactly as the SIG lists it.
    public static func serviceLegalName(_ uuid: BLEUUID) -> String? { services[uuid] ?? memberServices[uuid] }
    public static func characteristicName(_ uuid: BLEUUID) -> String? { UserNames.current.name(uuid) ?? characteristics[uuid] }
    public static func descriptorName(_ uuid: BLEUUID) -> String? { UserNames.current.name(uuid) ?? descriptors[uuid] }

    /// The company's name as shown in narrow columns: the SIG's legal name without its
    /// legal form or notes ("Apple, Inc." -> "Apple", "Nordic Semiconductor ASA" -> "Nordic
    /// Semiconductor").
    public static func companyName(_ id: UInt16) -> String? { companies[id].map(shortCompanyName) }
    /// The name exactly as the SIG lists it.
    public static func companyLegalName(_ id: UInt16) -> String? { companies[id] }

    /// Any kind of attribute: services, characteristics, descriptors.
    public static func name(_ uuid: BLEUUID) -> String? {
        UserNames.current.name(uuid) ?? services[uuid] ?? characteristics[uuid] ?? descriptors[uuid]
    }

    /// A unit from a Presentation Format descriptor (0x2904), e.g. 0x272F.
    public static func unitName(_ id: UInt16) -> String? { units[id]?.name }
    /// Its symbol ("°C"); empty for unitless.
    public static func unitSymbol(_ id: UInt16) -> String? { units[id]?.symbol }

    /// GAP Appearance (0x2A01, advertising type 0x19): "Heart Rate Sensor: Heart Rate Belt".
    /// Category in the upper 10 bits, subcategory in the lower 6.
    public static func appearanceName(_ value: UInt16) -> String? {
        guard let category = appearances[value & 0xFFC0] else { return nil }
        let sub = value & 0x3F
        guard sub != 0 else { return category }
        return category + ": " + (appearances[value] ?? "subcategory \(sub)")
    }

    static let services = uuidTable(AssignedNumbersData.services)
    static let memberServices = uuidTable(AssignedNumbersData.memberServices)
    static let characteristics = uuidTable(AssignedNumbersData.characteristics)
    static let descriptors = uuidTable(AssignedNumbersData.descriptors)
    static let companies = numberTable(AssignedNumbersData.companies)
    static let appearances = numberTable(AssignedNumbersData.appearances)
    static let units: [UInt16: (name: String, symbol: String)] = numberTable(AssignedNumbersData.units).mapValues { row in
        let parts = row.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }

    /// `KEY NAME` rows. Keys that fail to parse or repeat are reported by `problems`.
    static func rows(_ text: String) -> [(key: Substring, name: String)] {
        text.split(separator: "\n").compactMap { line in
            guard let space = line.firstIndex(of: " ") else { return nil }
            return (line[..<space], String(line[line.index(after: space)...]))
        }
    }

    static func uuidTable(_ text: String) -> [BLEUUID: String] {
        Dictionary(rows(text).compactMap { r in BLEUUID(String(r.key)).map { ($0, r.name) } },
                   uniquingKeysWith: { a, _ in a })
    }

    static func numberTable(_ text: String) -> [UInt16: String] {
        Dictionary(rows(text).compactMap { r in UInt16(r.key, radix: 16).map { ($0, r.name) } },
                   uniquingKeysWith: { a, _ in a })
    }

    /// Rows of the data file that do not parse or repeat a key (a test keeps this empty).
    static func problems() -> [String] {
        var out: [String] = []
        let all = [("services", AssignedNumbersData.services, true), ("characteristics", AssignedNumbersData.characteristics, true),
                   ("descriptors", AssignedNumbersData.descriptors, true), ("units", AssignedNumbersData.units, false),
                   ("appearances", AssignedNumbersData.appearances, false), ("companies", AssignedNumbersData.companies, false),
                   ("memberServices", AssignedNumbersData.memberServices, true)]
        for (table, text, isUUID) in all {
            var seen = Set<String>()
            let lines = text.split(separator: "\n")
            if rows(text).count != lines.count { out.append("\(table): a row without a name") }
            for r in rows(text) {
                let key = isUUID ? BLEUUID(String(r.key))?.canonical : UInt16(r.key, radix: 16).map { String($0) }
                guard let key else { out.append("\(table): bad key \(r.key)"); continue }
                if !seen.insert(key).inserted { out.append("\(table): duplicate \(r.key)") }
                if r.name.isEmpty { out.append("\(table): empty name for \(r.key)") }
            }
        }
        return out
    }

    static let legalSuffixes = [
        ",", ".", " Inc", " Incorporated", " Corp", " Corporation", " Co", " Ltd", " LTD", " Limited", " LIMITED",
        " LLC", " GmbH", " AG", " ASA", " A/S", " AB", " Oy", " OY", " SA", " S.A.S", " SAS", " BV", " B.V", " SE",
        " S.L", " S.p.A", " S.P.A", " a.s", " s.r.o", " Pty", " ApS", " srl", " CORPORATION", " CO", " KG", " &",
    ]

    /// Drops a trailing legal form ("Inc.", "Co., Ltd.") and a parenthesised note. The legal
    /// forms are ASCII and cut as bytes: comparing Characters, the 37 of them (again after
    /// each cut) cost about 52,000 instructions a name, and a row's summary names its
    /// company every time its advertisement changes (callgrind).
    static func shortCompanyName(_ legal: String) -> String {
        var s = Substring(legal)
        if let paren = s.firstIndex(of: "("), paren > s.startIndex { s = s[..<paren] }
        var name = Array(s.drop(while: { $0 == " " }).utf8)
        var changed = true
        while changed {
            changed = false
            while name.last == 0x20 { name.removeLast() }
            for suffix in legalSuffixBytes where name.count >= suffix.count && name.suffix(suffix.count).elementsEqual(suffix)
                && String(decoding: name, as: UTF8.self).count > suffix.count + 1 {
                name.removeLast(suffix.count)
                changed = true
            }
        }
        return name.isEmpty ? legal : String(decoding: name, as: UTF8.self)
    }

    private static let legalSuffixBytes = legalSuffixes.map { Array($0.utf8) }
}
