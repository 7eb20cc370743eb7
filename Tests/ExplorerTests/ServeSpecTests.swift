import Foundation
import Testing
@testable import Explorer

@MainActor
@Suite("Serve spec and clones")
struct ServeSpecTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theDocumentedExampleParses() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/examples/thermometer.json"), encoding: .utf8)
        let spec = try PeripheralSpec.parse(text)
        #expect(spec.localName == "bx Thermo")
        #expect(spec.advertisedServices == ["181A"])
        #expect(spec.manufacturerData == [0xFFFF: [0xB1, 0xE0]])
        #expect(spec.services.map(\.uuid) == ["181A", "626c6578-0000-4000-8000-00000000f000"])
        let temp = spec.services[0].characteristics[0]
        #expect(temp.uuid == "2A6E" && temp.flags == ["read", "notify"] && temp.value == [0x34, 0x08])
        #expect(temp.descriptors == [DescriptorSpec(uuid: "2901", value: Array("Living room".utf8))])
        #expect(spec.services[1].characteristics[0].value == Array("setpoint 21.5".utf8))
    }

    @Test func badSpecsNameTheKey() {
        let cases: [(String, String)] = [
            ("[]", "the spec is a JSON object"),
            ("{", "not JSON"),
            (#"{"services": []}"#, "services: a list of at least one service"),
            (#"{"services": [{"uuid": "nope"}]}"#, "services[0].uuid: a UUID"),
            (#"{"services": [{"uuid": "180F", "characteristics": [{"uuid": "2A19", "properties": ["wirte"]}]}]}"#,
             "services[0].characteristics[0].properties: unknown flag 'wirte'"),
            (#"{"services": [{"uuid": "180F", "characteristics": [{"uuid": "2A19", "properties": ["read"], "value": "0g"}]}]}"#,
             "services[0].characteristics[0].value: hex"),
            (#"{"services": [{"uuid": "180F", "characteristics": [{"uuid": "2A19", "properties": ["notify"], "descriptors": [{"uuid": "2902"}]}]}]}"#,
             "BlueZ makes the 2902"),
            (#"{"name": "a name that is far too long for any advertisement", "services": [{"uuid": "180F"}]}"#, "name: at most 29"),
            (#"{"name": "bx Serve Lab", "services": [{"uuid": "626c6578-0000-4000-8000-00000000f000"}]}"#,
             "the advertisement needs 35 bytes, and holds 31"),
            // The fuzzer's finding (Tests/Fuzz/corpus/serve/name-ends-in-del.json): a DEL, raw.
            ("{\"name\": \"bx Therm\u{7F}\", \"services\": [{\"uuid\": \"181A\"}]}", "name: no control characters (it has U+007F)"),
            (#"{"name": "bx \u001b[2J", "services": [{"uuid": "181A"}]}"#, "name: no control characters (it has U+001B)"),
            (#"{"name": "bx \u0085", "services": [{"uuid": "181A"}]}"#, "name: no control characters (it has U+0085)"),
            (#"{"name": "bx \u202eomreht", "services": [{"uuid": "181A"}]}"#, "name: no control characters (it has U+202E)"),
        ]
        for (text, message) in cases {
            do {
                _ = try PeripheralSpec.parse(text)
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description.contains(message), "\(text) → \(error.description)")
            }
        }
    }

    @Test func aRecordedDeviceBecomesASpec() throws {
        let (text, original) = ReplayTests.recordDemoSession()
        let recording = try Recording.parse(text)
        let hrm = try #require(original.peripherals[ReplayTests.hrm])
        let spec = try CloneSpec.make(recording, address: hrm.address)
        #expect(spec.localName == hrm.name)
        #expect(spec.advertisedServices.first == hrm.advertisement.serviceUUIDs.first)
        let recorded = (hrm.services ?? []).filter { $0.uuid != "1800" && $0.uuid != "1801" }
        #expect(spec.services.map(\.uuid) == recorded.map(\.uuid))
        #expect(spec.services.map { $0.characteristics.map(\.uuid) } == recorded.map { $0.characteristics.map(\.uuid) })
        // The last value each had: the body sensor location read, the last heart rate notified.
        let chars = spec.services.flatMap(\.characteristics)
        let bsl = try #require(chars.first { $0.uuid == "2A38" })
        let bslID = try #require(recorded.flatMap(\.characteristics).first { $0.uuid == "2A38" }?.id)
        #expect(bsl.value == original.values[bslID]?.latest?.bytes)
        #expect(bsl.flags.contains("read"))
        #expect(chars.first { $0.uuid == "2A37" }?.value.isEmpty == false)
        #expect(chars.allSatisfy { $0.descriptors.allSatisfy { $0.uuid != "2902" } })
        #expect(throws: CloneSpec.CloneError.self) { try CloneSpec.make(recording, address: "00:11:22:33:44:55") }
    }

    @Test func aCloneLeavesTheRecordedNamesControlCharactersOut() throws {
        // A device that called itself "Demo\e[2J HRM\u{7F}\u{202E}": the recording keeps it (escaped),
        // the clone advertises what a terminal can show, which serve's own parser accepts.
        let (text, _) = ReplayTests.recordDemoSession()
        let hostile = text.replacingOccurrences(of: #""Demo HRM""#, with: #""Demo\u001b[2J HRM\u007f\u202e""#)
        #expect(hostile != text)
        let spec = try CloneSpec.make(try Recording.parse(hostile), address: ReplayTests.hrm.rawValue)
        #expect(spec.localName == "Demo[2J HRM")
        #expect(CloneSpec.cloneName("\u{1B}\u{7F}\u{9B}") == nil)
        // At most 20 bytes, cut between scalars: "é" is two bytes and does not fit at the 20th.
        #expect(CloneSpec.cloneName(String(repeating: "a", count: 19) + "é") == String(repeating: "a", count: 19))
        #expect(CloneSpec.cloneName("Thermomètre de la cave") == "Thermomètre de la c")
    }
}
