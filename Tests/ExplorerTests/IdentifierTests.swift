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

    /// Tables hash an address key with `mix`: equal keys hash alike under one seed, the
    /// seed changes where a key goes, and consecutive addresses (a batch of cheap tags)
    /// spread over the buckets as random values would (about 63 % of 1,024 buckets hit).
    @Test func addressesHashWithTheTablesSeed() {
        let a = PeripheralID("C0:FF:EE:00:00:01"), b = PeripheralID("C0:FF:EE:00:00:01")
        for seed in [0, 1, -7, Int.max] { #expect(a._rawHashValue(seed: seed) == b._rawHashValue(seed: seed)) }
        #expect(a._rawHashValue(seed: 1) != a._rawHashValue(seed: 2))
        let other = PeripheralID("c0:ff:ee:00:00:01")
        #expect(other._rawHashValue(seed: 3) == PeripheralID("c0:ff:ee:00:00:01")._rawHashValue(seed: 3))
        for seed in [0, 0x5EED, -1] {
            let buckets = Set((0..<1024).map { PeripheralID(address: 0xC0FF_EE00_0000 + UInt64($0))._rawHashValue(seed: seed) & 1023 })
            #expect(buckets.count > 600, "seed \(seed): \(buckets.count) buckets")
        }
        // And as keys: every one found, none confused.
        var table: [PeripheralID: Int] = [:]
        for i in 0..<5000 { table[PeripheralID(address: UInt64(i) << 24)] = i }
        #expect((0..<5000).allSatisfy { table[PeripheralID(address: UInt64($0) << 24)] == $0 })
        #expect(table[PeripheralID(address: 1)] == nil)
    }
}
