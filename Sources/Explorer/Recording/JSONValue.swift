/// A parsed JSON value. The reading side of `JSONLine`: recordings, the action queue
/// on disk and spec files come back through here. Input is untrusted (a file someone
/// sent, a line cut by a crash): errors are values, nesting is bounded, nothing traps.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case let .object(o) = self { return o[key] }
        return nil
    }

    public var string: String? { if case let .string(s) = self { return s }; return nil }
    public var number: Double? { if case let .number(n) = self { return n }; return nil }
    public var bool: Bool? { if case let .bool(b) = self { return b }; return nil }
    public var array: [JSONValue]? { if case let .array(a) = self { return a }; return nil }
    public var object: [String: JSONValue]? { if case let .object(o) = self { return o }; return nil }
    /// A whole number that fits an Int exactly.
    public var int: Int? {
        guard let n = number, n.rounded() == n, abs(n) < 9.0e15 else { return nil }
        return Int(n)
    }

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "\(reason) at byte \(offset)" }
    }

    public static let maxDepth = 64

    public static func parse(_ text: String) throws(ParseError) -> JSONValue {
        var p = JSONReader(Array(text.utf8))
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == p.b.count else { throw p.error("unexpected text after the value") }
        return v
    }
}

private struct JSONReader {
    let b: [UInt8]
    var i = 0
    init(_ b: [UInt8]) { self.b = b }

    func error(_ reason: String) -> JSONValue.ParseError { .init(offset: i, reason: reason) }

    mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    mutating func value(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard depth < JSONValue.maxDepth else { throw error("nested too deeply") }
        skipSpace()
        guard i < b.count else { throw error("unexpected end") }
        switch b[i] {
        case UInt8(ascii: "{"):
            i += 1
            var o: [String: JSONValue] = [:]
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
            while true {
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw error("expected a key") }
                let k = try string()
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
                i += 1
                o[k] = try value(depth: depth + 1)
                skipSpace()
                guard i < b.count else { throw error("unexpected end") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
                throw error("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            i += 1
            var a: [JSONValue] = []
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
            while true {
                a.append(try value(depth: depth + 1))
                skipSpace()
                guard i < b.count else { throw error("unexpected end") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
                throw error("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default:
            return .number(try number())
        }
    }

    mutating func literal(_ word: String) throws(JSONValue.ParseError) {
        let w = Array(word.utf8)
        guard i + w.count <= b.count, Array(b[i..<(i + w.count)]) == w else { throw error("unknown literal") }
        i += w.count
    }

    mutating func number() throws(JSONValue.ParseError) -> Double {
        let start = i
        while i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: ".")
                || b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") || (b[i] >= 0x30 && b[i] <= 0x39) { i += 1 }
        guard i > start, i - start < 64, let d = Double(String(decoding: b[start..<i], as: UTF8.self)), d.isFinite else {
            i = start
            throw error("expected a value")
        }
        return d
    }

    mutating func hex4() throws(JSONValue.ParseError) -> UInt32 {
        guard i + 4 <= b.count, let v = UInt32(String(decoding: b[i..<(i + 4)], as: UTF8.self), radix: 16) else {
            throw error("bad \\u escape")
        }
        i += 4
        return v
    }

    mutating func string() throws(JSONValue.ParseError) -> String {
        i += 1  // the opening quote
        var out = String.UnicodeScalarView()
        var run = i
        func flush(_ end: Int) { out.append(contentsOf: String(decoding: b[run..<end], as: UTF8.self).unicodeScalars) }
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                flush(i)
                i += 1
                return String(out)
            }
            if c < 0x20 { throw error("control character in a string") }
            if c == UInt8(ascii: "\\") {
                flush(i)
                i += 1
                guard i < b.count else { break }
                let e = b[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append("\"")
                case UInt8(ascii: "\\"): out.append("\\")
                case UInt8(ascii: "/"): out.append("/")
                case UInt8(ascii: "b"): out.append("\u{08}")
                case UInt8(ascii: "f"): out.append("\u{0C}")
                case UInt8(ascii: "n"): out.append("\n")
                case UInt8(ascii: "r"): out.append("\r")
                case UInt8(ascii: "t"): out.append("\t")
                case UInt8(ascii: "u"):
                    var v = try hex4()
                    if (0xD800..<0xDC00).contains(v), i + 6 <= b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") {
                        i += 2
                        let lo = try hex4()
                        if (0xDC00..<0xE000).contains(lo) { v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00) } else { v = 0xFFFD }
                    }
                    out.append(Unicode.Scalar(v) ?? "\u{FFFD}")
                default: throw error("bad escape")
                }
                run = i
                continue
            }
            i += 1
        }
        throw error("unterminated string")
    }
}
