import Foundation
import Testing
@testable import Explorer

/// The real-world vectors (Tests/Fixtures/realdata/adverts.json, README there):
/// advertisements from other parsers' test suites, with the values those tests assert.
/// Each vector gives its BlueZ-style dictionaries; this turns them into the
/// `Advertisement` BlueZ would hand over, and keeps the JSON for the assertions.
struct RealVector {
    let id: String
    let json: JSONValue
    let advertisement: Advertisement

    /// Manufacturer entries in company order (the file's keys are decimal company ids).
    var manufacturer: [(company: UInt16, data: Bytes)] {
        advertisement.manufacturerData.keys.sorted().map { ($0, advertisement.manufacturerData[$0]!) }
    }

    var service: [(uuid: BLEUUID, data: Bytes)] {
        advertisement.serviceData.keys.sorted().map { ($0, advertisement.serviceData[$0]!) }
    }

    /// `expect.<source>.<key>` as a number (ble_monitor, vendor, mibeacon blocks).
    func expected(_ path: String...) -> JSONValue? {
        var v: JSONValue? = json["expect"]
        for key in path { v = v?[key] }
        return v
    }

    /// Every vendor value decoded from this vector's entries, manufacturer data first.
    var decoded: [DecodedValue] {
        manufacturer.flatMap { VendorFrames.manufacturer($0.company, $0.data, in: advertisement) }
            + service.flatMap { VendorFrames.service($0.uuid, $0.data) }
    }
}

enum RealVectors {
    /// The repository root is three levels above this file.
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/realdata/adverts.json")

    static let all: [RealVector] = load()

    static func load() -> [RealVector] {
        guard let data = FileManager.default.contents(atPath: url.path),
              let list = (try? JSONValue.parse(String(decoding: data, as: UTF8.self)))?.array, !list.isEmpty else {
            preconditionFailure("the real-data vectors are missing or unreadable: \(url.path)")
        }
        return list.compactMap { v in
            guard let id = v["id"]?.string else { return nil }
            var adv = Advertisement(localName: v["local_name"]?.string)
            adv.serviceUUIDs = (v["service_uuids"]?.array ?? []).compactMap { $0.string.flatMap(BLEUUID.init) }
            for (key, value) in v["manufacturer_data"]?.object ?? [:] {
                if let company = UInt16(key), let hex = value.string, let b = parseHex(hex) { adv.manufacturerData[company] = b }
            }
            for (key, value) in v["service_data"]?.object ?? [:] {
                if let uuid = BLEUUID(key), let hex = value.string, let b = parseHex(hex) { adv.serviceData[uuid] = b }
            }
            return RealVector(id: id, json: v, advertisement: adv)
        }
    }

    static subscript(_ id: String) -> RealVector? { all.first { $0.id == id } }

    /// Vectors whose id starts with one of the prefixes.
    static func named(_ prefixes: String...) -> [RealVector] {
        all.filter { v in prefixes.contains { v.id.hasPrefix($0) } }
    }
}

extension DecodedValue {
    /// A field's value by key (the first with that key).
    subscript(_ key: String) -> JSONValue? { fields.first { $0.key == key }?.value }
}

/// Bytes from a hex literal in a test; traps on a typo, which is a test bug.
func h(_ hex: String) -> Bytes { parseHex(hex.filter { $0 != " " })! }
