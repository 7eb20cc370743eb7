import Testing
@testable import Explorer

/// Manufacturer data reads and writes as a dictionary of companies, wherever each
/// company's bytes are held (inline or in the dictionary for the rest).
@Suite("Manufacturer data")
struct ManufacturerDataTests {
    @Test func aDictionaryOfCompanies() {
        var m: ManufacturerData = [0x004C: [2, 0x15], 0x0059: [1, 2, 3]]
        #expect(m.count == 2 && !m.isEmpty)
        #expect(m[0x004C] == [2, 0x15] && m[0x0059] == [1, 2, 3] && m[0x0006] == nil)
        #expect(m.keys.sorted() == [0x004C, 0x0059])
        m[0x004C] = nil
        #expect(m.count == 1 && m[0x004C] == nil && m.keys == [0x0059])
        m[0x0059] = nil
        #expect(m.isEmpty && m.count == 0 && m.keys.isEmpty)
        #expect(m == [:])
        #expect(Array(m).isEmpty)
    }

    /// Data too long to hold inline (extended advertising) and a company that replaces its
    /// short data with long data, or long with short: still exactly one entry each.
    @Test func longDataAndEveryMoveBetweenThePlaces() {
        let long = Bytes(repeating: 7, count: 40), short: Bytes = [1, 2]
        var m = ManufacturerData()
        m[0x0001] = long
        #expect(m[0x0001] == long && m.count == 1)
        m[0x0002] = short
        #expect(m[0x0002] == short && m.count == 2)
        m[0x0002] = long
        #expect(m[0x0002] == long && m.count == 2)
        m[0x0002] = short
        m[0x0001] = short
        #expect(m[0x0001] == short && m[0x0002] == short && m.count == 2)
        #expect(m == [0x0001: short, 0x0002: short])
        #expect(m != [0x0001: short, 0x0002: [1, 3]])
        #expect(m != [0x0001: short])
        #expect(Dictionary(uniqueKeysWithValues: m.map { ($0.key, $0.value) }) == [0x0001: short, 0x0002: short])
    }

    /// What an advertising update does (`set`) is what a write through the subscript does.
    @Test func anUpdateIsAWrite() {
        let updates: [(UInt16, Bytes)] = [(0x004C, [1]), (0x004C, [2, 3]), (0x0059, [4]), (0x004C, []), (0x0059, [5, 6])]
        var bySet = ManufacturerData(), bySubscript = ManufacturerData()
        var plain: [UInt16: Bytes] = [:]
        for (company, data) in updates {
            bySet.set(company, ShortBytes(data)!)
            bySubscript[company] = data
            plain[company] = data
            #expect(bySet == bySubscript)
            #expect(bySet == ManufacturerData(plain))
        }
        #expect(ManufacturerData(company: 0x004C, data: ShortBytes([9])!) == [0x004C: [9]])
        // Order does not matter for equality.
        #expect(ManufacturerData([0x0001: [1], 0x0002: [2]]) == [0x0002: [2], 0x0001: [1]])
        var long: ManufacturerData = [0x0001: Bytes(repeating: 1, count: 33)]
        long.set(0x0001, ShortBytes([1])!)
        #expect(long == [0x0001: [1]] && long.count == 1)
    }
}
