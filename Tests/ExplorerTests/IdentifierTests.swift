import Testing
@testable import Explorer

/// A peripheral's key: an address in BlueZ's spelling is held as its 48 bits, any other
/// text as itself. Either way the key gives back its text and keeps String's equality
/// and order.
@Suite("Peripheral identifiers")
struct IdentifierTests {
    @Test func anAddressInTheUsualSpellingIsHeldAsItsBits() {
        let id = PeripheralID("C0:FF:EE:00:0A:1B")
        #expect(id.address == 0xC0FF_EE00_0A1B)
        #expect(id.rawValue == "C0:FF:EE:00:0A:1B")
        #expect(id == PeripheralID(address: 0xC0FF_EE00_0A1B))
        #expect(PeripheralID("00:00:00:00:00:00").rawValue == "00:00:00:00:00:00")
        #expect(PeripheralID("FF:FF:FF:FF:FF:FF").address == 0xFFFF_FFFF_FFFF)
    }

    @Test func anyOtherTextIsKeptAsItIs() {
        for text in ["c0:ff:ee:00:0a:1b", "C0-FF-EE-00-0A-1B", "C0:FF:EE:00:0A:1", "C0:FF:EE:00:0A:1BB",
                     "C0:FF:EE:00:0A:1G", "C0:FF:EE:00:0A;1B", "", "HRM", "C0:FF:EE:00:0A:1B\u{1B}"] {
            let id = PeripheralID(text)
            #expect(id.address == nil, "\(text)")
            #expect(id.rawValue == text)
        }
        // Another spelling of the same address is another key, as its String is.
        #expect(PeripheralID("c0:ff:ee:00:0a:1b") != PeripheralID("C0:FF:EE:00:0A:1B"))
    }

    @Test func equalityHashingAndOrderFollowTheText() {
        let texts = ["C0:FF:EE:00:0A:1B", "C0:FF:EE:00:0A:1C", "00:11:22:33:44:55", "A0:00:00:00:00:00",
                     "9F:FF:FF:FF:FF:FF", "c0:ff:ee:00:0a:1b", "HRM", "Z", ""]
        for a in texts {
            for b in texts {
                #expect((PeripheralID(a) == PeripheralID(b)) == (a == b))
                #expect((PeripheralID(a) < PeripheralID(b)) == (a < b), "\(a) < \(b)")
            }
        }
        let set = Set(texts.map(PeripheralID.init) + texts.map(PeripheralID.init))
        #expect(set.count == texts.count)
        #expect(set.contains(PeripheralID("C0:FF:EE:00:0A:1B")))
    }
}
