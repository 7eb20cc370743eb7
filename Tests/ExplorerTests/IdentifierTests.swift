import Testing
@testable import Explorer

/// A peripheral's key is its address as the backend spells it: String's equality and order.
@Suite("Peripheral identifiers")
struct IdentifierTests {
    @Test func equalityHashingAndOrderAreTheText() {
        let texts = ["C0:FF:EE:00:0A:1B", "C0:FF:EE:00:0A:1C", "00:11:22:33:44:55", "A0:00:00:00:00:00",
                     "9F:FF:FF:FF:FF:FF", "c0:ff:ee:00:0a:1b", "HRM", "Z", ""]
        for a in texts {
            #expect(PeripheralID(a).rawValue == a)
            for b in texts {
                #expect((PeripheralID(a) == PeripheralID(b)) == (a == b))
                #expect((PeripheralID(a) < PeripheralID(b)) == (a < b), "\(a) < \(b)")
            }
        }
        let set = Set(texts.map(PeripheralID.init) + texts.map(PeripheralID.init))
        #expect(set.count == texts.count)
        // Another spelling of the same address is another key.
        #expect(PeripheralID("c0:ff:ee:00:0a:1b") != PeripheralID("C0:FF:EE:00:0A:1B"))
    }
}
