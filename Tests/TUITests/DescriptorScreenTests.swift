import Testing
@testable import Explorer
@testable import TUI

/// The characteristic screen's descriptors: handles, what they say, the one `D` selected,
/// and the write line saying which write `w` makes.
@Suite("Descriptors and write types on screen")
struct DescriptorScreenTests {
    static let base = "/org/bluez/hci0/dev_E4_1C_22_5D_90_11/service0020"
    static let cid = CharacteristicID(base + "/char0021")
    static let label = GATTDescriptor(id: AttributeID(base + "/char0021/desc0022"), uuid: "2901", writable: true)
    static let extended = GATTDescriptor(id: AttributeID(base + "/char0021/desc0023"), uuid: "2900")

    static func state() -> AppState {
        var s = ScreenTests.connected()
        let id = ScreenTests.hrm
        s.peripherals[id]?.services?.append(GATTService(id: AttributeID(base), uuid: "B1E5E1A0-0010-4C7A-9E3B-2D8F00C0FFEE", characteristics: [
            GATTCharacteristic(id: cid, uuid: "B1E5E1A0-0011-4C7A-9E3B-2D8F00C0FFEE", properties: [.read, .write, .reliableWrite],
                               descriptors: [label, extended]),
        ]))
        _ = Reducer.reduce(&s, .backend(.descriptorRead(label.id, .success(Array("Note".utf8))), at: ScreenTests.t0 + 4))
        _ = Reducer.reduce(&s, .backend(.descriptorRead(extended.id, .success([0x01, 0x00])), at: ScreenTests.t0 + 4))
        s.route = .characteristic(id, cid)
        return s
    }

    @Test func descriptorsShowHandlesValuesAndWhichIsWritable() {
        let lines = ScreenTests.render(Self.state(), 100, 24)
        #expect(lines[3] == " Descriptors 0x0022 Characteristic User Description “Note” (writable)")
        #expect(lines[4] == "             0x0023 Characteristic Extended Properties: reliable write")
    }

    @Test func theSelectedDescriptorIsInBracketsAndTheWriteLineNamesIt() {
        var s = Self.state()
        _ = Reducer.reduce(&s, .descriptorCycled)
        var lines = ScreenTests.render(s, 100, 24)
        #expect(lines[3] == " Descriptors [0x0022 Characteristic User Description “Note” (writable)]")
        #expect(lines[22].hasPrefix("Descriptor 0x0022 Characteristic User Description selected (w writes it; D: next)"))
        _ = Reducer.reduce(&s, .writeStarted)
        lines = ScreenTests.render(s, 100, 24)
        #expect(lines[22].hasPrefix("write descriptor 0x0022 (hex 01 ff, or \"text\"): "))
    }

    @Test func theWriteLineSaysTheWriteType() {
        var s = Self.state()
        _ = Reducer.reduce(&s, .writeStarted)
        #expect(ScreenTests.render(s, 100, 24)[22].hasPrefix("write (hex 01 ff, or \"text\"): "))
        _ = Reducer.reduce(&s, .inputCancelled)
        _ = Reducer.reduce(&s, .writeTypeCycled)
        _ = Reducer.reduce(&s, .writeStarted)
        #expect(ScreenTests.render(s, 100, 24)[22].hasPrefix("reliable write (hex 01 ff, or \"text\"): "))
    }

    @Test func theHintLineOffersTypeAndDescriptor() {
        var s = Self.state()
        s.alert = nil
        let hints = ScreenTests.render(s, 140, 24)[22]
        #expect(hints.contains("W type") && hints.contains("D descriptor"))
    }
}
