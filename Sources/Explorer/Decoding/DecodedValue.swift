/// The meaning of a value, once: the text people read ("72 bpm, contact") and the same
/// facts as fields for programs (`{"bpm": 72, "contact": true}`), made by one parse.
public struct DecodedValue: Equatable, Sendable {
    public struct Field: Equatable, Sendable {
        public var key: String
        public var value: JSONValue
        public init(_ key: String, _ value: JSONValue) { self.key = key; self.value = value }
    }

    public var text: String
    /// In the order the format gives them; empty when the value is malformed.
    public var fields: [Field]
    /// The bytes do not fit the format (too short, a length it cannot have).
    public var malformed: Bool

    public init(_ text: String, _ fields: [Field] = [], malformed: Bool = false) {
        self.text = text; self.fields = fields; self.malformed = malformed
    }

    /// `{"bpm":72,"contact":true}`, keys in the order given.
    public var fieldsJSON: String {
        var j = JSONLine()
        for f in fields { j.raw(key: f.key, f.value.serialized) }
        return j.finish()
    }

    static func malformed(_ what: String, _ b: Bytes) -> DecodedValue {
        DecodedValue("malformed \(what) (\(b.count) byte\(b.count == 1 ? "" : "s"))", malformed: true)
    }
}

extension JSONValue {
    /// Compact JSON text; object keys sorted so the same value always reads the same.
    /// Numbers that are whole print without a fraction; non-finite numbers are null.
    public var serialized: String {
        switch self {
        case .null: return "null"
        case let .bool(b): return b ? "true" : "false"
        case let .number(n):
            guard n.isFinite else { return "null" }
            if n.rounded() == n, abs(n) < 9.0e15 { return String(Int(n)) }
            return "\(n)"
        case let .string(s):
            var out = "\""
            JSONLine.escape(s, into: &out)
            return out + "\""
        case let .array(a): return "[" + a.map(\.serialized).joined(separator: ",") + "]"
        case let .object(o):
            return "{" + o.keys.sorted().map { k in
                var out = "\""
                JSONLine.escape(k, into: &out)
                return out + "\":" + o[k]!.serialized
            }.joined(separator: ",") + "}"
        }
    }

    /// A number rounded to `places` decimals, as the text shows it (0.821, not 0.8212890625).
    static func rounded(_ v: Double, _ places: Int) -> JSONValue {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return .number((v * scale).rounded() / scale)
    }
}
