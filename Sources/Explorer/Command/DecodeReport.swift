/// `bleexplr decode HEX…`: raw advertising payloads (as btmon or nRF Connect's raw view
/// show them), each parsed on its own (an advertisement and its scan response are two),
/// then decoded together by the same decoders the scan list uses.
public struct DecodeReport: Equatable, Sendable {
    public struct Chunk: Equatable, Sendable {
        public var bytes: Bytes
        public var structures: [AdvertisingData.Structure]
        /// Why parsing stopped before the end, if it did.
        public var malformed: String?
    }

    public var chunks: [Chunk]
    /// What the chunks say together.
    public var advertisement: Advertisement

    public init(_ payloads: [Bytes]) {
        chunks = []
        advertisement = Advertisement()
        for p in payloads {
            let parsed = AdvertisingData.parse(p)
            chunks.append(Chunk(bytes: p, structures: AdvertisingData.structures(p), malformed: parsed.malformed))
            // A scan response adds to what the advertisement said: its UUIDs join the list.
            let uuids = advertisement.serviceUUIDs
            advertisement.merge(parsed.advertisement)
            advertisement.serviceUUIDs = uuids + parsed.advertisement.serviceUUIDs.filter { !uuids.contains($0) }
        }
    }
}

extension CommandPrinter {
    /// One `decoded` line: the structures as they came, then the advertisement's fields as
    /// `scan --json` gives them.
    static func decodedJSON(_ r: DecodeReport) -> String {
        var j = JSONLine()
        var structures: [String] = []
        for (n, c) in r.chunks.enumerated() {
            for s in c.structures {
                var sj = JSONLine()
                sj.int("chunk", n); sj.int("offset", s.offset); sj.int("type", Int(s.type))
                sj.string("typeName", s.typeName); sj.hex("hex", s.data)
                structures.append(sj.finish())
            }
        }
        j.raw("structures", JSONLine.array(structures))
        let problems = r.chunks.enumerated().compactMap { n, c in c.malformed.map { r.chunks.count > 1 ? "chunk \(n): \($0)" : $0 } }
        if !problems.isEmpty { j.string("malformed", problems.joined(separator: "; ")) }
        j.string("localName", r.advertisement.localName)
        advertisement(&j, r.advertisement)
        return j.finish()
    }

    /// The structures one per line (`@3  0x09 Complete Local Name  4d 79…`), then the
    /// summary and each frame.
    static func decodedText(_ r: DecodeReport) -> [String] {
        var lines: [String] = []
        for (n, c) in r.chunks.enumerated() {
            if r.chunks.count > 1 { lines.append("chunk \(n + 1) (\(c.bytes.count) bytes)") }
            for s in c.structures {
                let name = s.typeName ?? "unknown type"
                lines.append("  @\(s.offset)  0x\(hex([s.type])) \(name)  \(s.data.isEmpty ? "(empty)" : hex(s.data))")
            }
            if let m = c.malformed { lines.append("  " + m) }
        }
        let adv = r.advertisement
        if let name = adv.localName { lines.append("name: " + name) }
        for f in adv.frames() { lines.append(f.value.text) }
        let summary = adv.summary()
        if !summary.isEmpty { lines.append("summary: " + summary) }
        return lines.map(TerminalSafe.text)
    }
}
