import Testing
@testable import Explorer

@Suite("Vendor frames: unregistered use of company ids")
struct VendorFramesUnregisteredUseTests {
    /// Every Govee, Inkbird and SensorPush vector, and what the note says; the one not
    /// flagged (a corrupted name, nothing else to go on) says nothing.
    @Test func unregisteredUseVectors() throws {
        let flagged = RealVectors.named("govee-", "blemon-govee-", "inkbird-", "blemon-inkbird-", "sensorpush-", "blemon-sensorpush-")
        #expect(flagged.count == 23)
        for v in flagged {
            let notes = v.manufacturer.flatMap { VendorFrames.manufacturer($0.company, $0.data, in: v.advertisement) }
                .filter { $0["kind"] == .string("unregistered-use") }
            if v.id == "inkbird-corrupt-name" {
                #expect(notes.isEmpty, "\(v.id)")
                continue
            }
            let vendor = v.id.contains("govee") ? "Govee" : v.id.contains("inkbird") ? "Inkbird" : "SensorPush"
            #expect(!notes.isEmpty, "\(v.id)")
            for n in notes { #expect(n["vendor"] == .string(vendor), "\(v.id)") }
        }
        let nokia = try #require(RealVectors["govee-h5100-company-1"]?.decoded.first)
        #expect(nokia.text == "Govee data under company 0x0001, registered to Nokia Mobile Phones: "
            + "Govee sensors (H5100-H5106, H5174, H5177) put their readings under it")
        let inkbird = try #require(RealVectors["inkbird-ibs-th-raw"]?.decoded.first)
        #expect(inkbird.text == "Inkbird data; its company-id bytes (0x07FC) are a reading, not a company: "
            + "Inkbird IBS-TH sensors (named sps, tps) put the temperature there")
        #expect(nokia["registeredTo"] == .string("Nokia Mobile Phones"))
        let glued = try #require(RealVectors["govee-h5075-glued-ibeacon"]?.decoded.first)
        #expect(glued["appleBeaconAt"] == .number(6))
        #expect(glued.text.hasSuffix("; an Apple iBeacon follows at byte 6 (two structures joined)"))
        // Both structures of the two-structure Inkbird packet are readings.
        #expect(RealVectors["inkbird-tps-two-ff"]?.decoded.count == 2)
        // Govee's real Apple iBeacon beside its data stays Apple's (and iBeacon's).
        let twoCompanies = try #require(RealVectors["govee-h5074-two-companies"])
        #expect(VendorFrames.manufacturer(0x004C, twoCompanies.advertisement.manufacturerData[0x004C]!,
                                          in: twoCompanies.advertisement).isEmpty)
    }

    /// Without the evidence a pattern asks for, nothing is claimed: Nokia's id is Nokia's,
    /// a reading-shaped id is whatever company it is.
    @Test func noEvidenceNoClaim() {
        #expect(VendorFrames.manufacturer(0x0001, h("010103465464")).isEmpty)
        #expect(VendorFrames.manufacturer(0x089C, h("f41000ba4e6408")).isEmpty)
        #expect(VendorFrames.manufacturer(0x2449, h("07110098d80013026401900400000000"),
                                          in: Advertisement(localName: "Prodigio")).isEmpty)
        // 0xEC88 is no one's, so the id alone is enough.
        #expect(VendorFrames.manufacturer(0xEC88, h("0003215d6400")).first?["vendor"] == .string("Govee"))
        // A reading that happens to equal Ruuvi's id is not decoded as Ruuvi when the name says Inkbird.
        let inkbird = VendorFrames.manufacturer(0x0499, h("f41000ba4e6408"), in: Advertisement(localName: "sps"))
        #expect(inkbird.first?["kind"] == .string("unregistered-use"))
    }

    /// The table's id-alone patterns name ids no one was given, and its reasons are there.
    @Test func patternTable() {
        for p in UnregisteredUse.patterns {
            #expect(!p.reason.isEmpty)
            if p.evidence.isEmpty, case let .ids(ids) = p.companies {
                for id in ids {
                    #expect(AssignedNumbers.companyName(id) == nil, "\(hexID(id))")
                    #expect(id >= UnregisteredUse.firstUnassigned, "\(hexID(id))")
                }
            }
        }
    }
}
