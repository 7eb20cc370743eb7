import Testing
import Explorer
@testable import BlueZ

/// The fast path index's open-addressing table: the same answers as a Dictionary through
/// growth and removals (backward-shift deletion must leave no key unreachable).
@Suite("Key table")
struct KeyTableTests {
    @Test func agreesWithADictionaryThroughInsertsAndRemovals() {
        var table = KeyTable()
        var reference: [UInt64: PeripheralID] = [:]
        var rng = SplitMix(seed: 15)
        // Few distinct keys, so that inserts, replacements and removals all hit runs of slots.
        for step in 0..<20_000 {
            let key = 1 + rng.next() % 600
            if rng.next() % 3 == 0 {
                table.remove(key)
                reference[key] = nil
            } else {
                let id = PeripheralID("device \(step)")
                table.insert(key, id)
                reference[key] = id
            }
        }
        for key in UInt64(1)...700 { #expect(table.find(key) == reference[key], "key \(key)") }
        table.removeAll()
        #expect(table.find(reference.keys.first ?? 1) == nil)
    }

    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
