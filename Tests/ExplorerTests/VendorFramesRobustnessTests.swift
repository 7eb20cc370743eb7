import Testing
@testable import Explorer

@Suite("Vendor frames: every vector, every truncation, random bytes")
struct VendorFramesRobustnessTests {
    /// Every vector through both entry points: which decoded, by kind, and that nothing
    /// outside these formats is claimed (no other company or service gives a value).
    @Test func census() {
        #expect(RealVectors.all.count == 135, "adverts.json not found at \(RealVectors.url.path)?")
        var byKind: [String: Set<String>] = [:]
        var malformed: [String] = []
        for v in RealVectors.all {
            for (company, data) in v.manufacturer {
                let out = VendorFrames.manufacturer(company, data, in: v.advertisement)
                if ![0x004C, 0x0006, 0x0499].contains(company) {
                    #expect(out.allSatisfy { $0["kind"] == .string("unregistered-use") }, "\(v.id) \(hexID(company))")
                }
                for d in out {
                    if d.malformed { malformed.append(v.id) }
                    if let kind = d["kind"]?.string { byKind[kind, default: []].insert(v.id) }
                }
            }
            for (uuid, data) in v.service {
                let out = VendorFrames.service(uuid, data)
                if ![FastPair.service, ExposureNotification.service, MiBeacon.service, PvvxThermometer.service].contains(uuid) {
                    #expect(out.isEmpty, "\(v.id) \(uuid)")
                }
                for d in out {
                    if d.malformed { malformed.append(v.id) }
                    if let kind = d["kind"]?.string { byKind[kind, default: []].insert(v.id) }
                }
            }
            for d in v.decoded { Self.expectSafe(d, v.id) }
        }
        #expect(byKind["apple-continuity"]?.count == 4)
        #expect(byKind["mibeacon"]?.count == 13)
        #expect(byKind["ruuvi"]?.count == 3)
        #expect(byKind["exposure-notification"]?.count == 1)
        #expect(byKind["pvvx"]?.count == 2)
        #expect(byKind["unregistered-use"]?.count == 22)
        #expect(malformed == ["bdt-two-companies"])
        print("vendor census:", byKind.keys.sorted().map { "\($0) \(byKind[$0]!.count)" }.joined(separator: ", "))
    }

    // MARK: Robustness

    /// Valid examples of every format here; each truncation and extension must return
    /// (no trap, no read past the end) with terminal-safe text, and a cut frame must not
    /// pass for a whole one where the format fixes its length.
    static let examples: [(company: UInt16?, uuid: BLEUUID?, data: Bytes, adv: Advertisement?)] = {
        var out: [(UInt16?, BLEUUID?, Bytes, Advertisement?)] = [
            (0x004C, nil, h("09 06 03 07 c0 a8 01 02 10 05 0a 1c 77 f9 5b"), nil),
            (0x004C, nil, h("06 31 00 e4c49beefb3e 0500 0d00 01 02 63112065"), nil),
            (0x0006, nil, h("03 01 80 665544332211 040424") + Array("Headset".utf8), nil),
            (0x0006, nil, h("01 29 21 20 a1b2c3d4") + Array(repeating: 0x5A, count: 19), nil),
            (0x0499, nil, h("0512FC5394C37C0004FFFC040CAC364200CDCBB8334C884F"), nil),
            (0x0499, nil, h("E1170C5668C79E0065007004BD11CA00C90A0213E0ACFFFFFFDECDEE10FFFFFFFFFFCBB8334C884F"), nil),
            (nil, "FE2C", h("00 40 11223344 11 7f 33 64 50 46"), nil),
            (nil, "FE95", h("71 20 98 00 71 00 00 66 8d 7c c4 0d 08 10 01 1f"), nil),
            (nil, "FE95", h("5858 6f06 07 892012342d58 5f176dd54f 020000 2fa453fa"), nil),
        ]
        for v in RealVectors.all {
            for (company, data) in v.manufacturer where !VendorFrames.manufacturer(company, data, in: v.advertisement).isEmpty {
                out.append((company, nil, data, v.advertisement))
            }
            for (uuid, data) in v.service where !VendorFrames.service(uuid, data).isEmpty { out.append((nil, uuid, data, nil)) }
        }
        return out
    }()

    static func run(_ company: UInt16?, _ uuid: BLEUUID?, _ b: Bytes, _ adv: Advertisement? = nil) -> [DecodedValue] {
        if let company { return VendorFrames.manufacturer(company, b, in: adv) }
        return VendorFrames.service(uuid!, b)
    }

    static func expectSafe(_ d: DecodedValue, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if d.text.unicodeScalars.contains(where: TerminalSafe.isUnsafe) {
            Issue.record("unsafe text \(d.text.debugDescription) from \(what)", sourceLocation: sourceLocation)
        }
        if d.malformed && !d.fields.isEmpty { Issue.record("malformed value with fields from \(what)", sourceLocation: sourceLocation) }
    }

    @Test func everyTruncationAndExtension() {
        #expect(Self.examples.count > 40)
        for (company, uuid, example, adv) in Self.examples {
            let whole = Self.run(company, uuid, example, adv)
            for n in 0...example.count {
                let cut = Array(example.prefix(n))
                for d in Self.run(company, uuid, cut, adv) + Self.run(company, uuid, cut + [0xFF, 0x1B, 0x00, 0x9B], adv) {
                    Self.expectSafe(d, hex(cut))
                }
                // Fixed-length frames: a cut one is malformed, never a shorter reading.
                if n < example.count, company == 0x0499 || uuid == ExposureNotification.service {
                    #expect(Self.run(company, uuid, cut).allSatisfy { $0.malformed } || n == 0, "\(hex(cut))")
                }
            }
            #expect(!whole.isEmpty)
        }
    }

    @Test func randomBytes() {
        var rng = SeededRandom(seed: 0xF00D)
        let companies: [UInt16] = [0x004C, 0x0006, 0x0499, 0x0001, 0xEC88]
        let services: [BLEUUID] = ["FE2C", "FD6F", "FE95"]
        let adv = Advertisement(localName: "GVH5075_0000", serviceUUIDs: ["EC88"])
        for round in 0..<2000 {
            let n = Int(rng.next() % 48)
            var b = Bytes((0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            if round % 2 == 0, let e = Self.examples.randomElement(using: &rng) {
                b = Array(e.data.prefix(Int(rng.next() % UInt64(e.data.count + 1)))) + b
            }
            for c in companies {
                for d in VendorFrames.manufacturer(c, b) + VendorFrames.manufacturer(c, b, in: adv) { Self.expectSafe(d, hex(b)) }
            }
            for u in services { for d in VendorFrames.service(u, b) { Self.expectSafe(d, hex(b)) } }
        }
    }
}
