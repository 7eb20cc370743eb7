/// The part of TOML a config file needs, into the JSONValue the JSON form also gives:
/// `# comments`, `[table]` headers (one level), `key = value` with bare or "quoted" keys,
/// and values that are "basic strings" (with \" \\ \n \t \uXXXX), 'literal strings',
/// integers, true/false, arrays (over several lines too) and { inline = "tables" }.
/// Anything else is an error naming the line: input is the user's, and a setting
/// silently misread is worse than one refused.
public enum TOMLReader {
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    public static func parse(_ text: String) -> Result<JSONValue, Problem> {
        var root: [String: JSONValue] = [:]
        var table: String?
        var p = Cursor(Array(text.utf8))
        while !p.atEnd {
            p.skipBlank()
            if p.atEnd { break }
            do throws(Problem) {
                if p.peek == UInt8(ascii: "[") {
                    p.i += 1
                    let name = try p.key()
                    p.skipSpaces()
                    guard p.take(UInt8(ascii: "]")) else { throw p.problem("a table header is [name]") }
                    guard root[name] == nil else { throw p.problem("table [\(TerminalSafe.text(name))] is defined twice") }
                    root[name] = .object([:])
                    table = name
                } else {
                    let key = try p.key()
                    p.skipSpaces()
                    guard p.take(UInt8(ascii: "=")) else { throw p.problem("expected = after '\(TerminalSafe.text(key))'") }
                    let value = try p.value(depth: 0)
                    if let t = table {
                        guard case var .object(o) = root[t] else { throw p.problem("not a table") }
                        guard o[key] == nil else { throw p.problem("'\(TerminalSafe.text(key))' is set twice in [\(TerminalSafe.text(t))]") }
                        o[key] = value
                        root[t] = .object(o)
                    } else {
                        guard root[key] == nil else { throw p.problem("'\(TerminalSafe.text(key))' is set twice") }
                        root[key] = value
                    }
                }
                try p.endOfLine()
            } catch {
                return .failure(error)
            }
        }
        return .success(.object(root))
    }

    struct Cursor {
        let b: [UInt8]
        var i = 0
        var line = 1
        init(_ b: [UInt8]) { self.b = b }

        var atEnd: Bool { i >= b.count }
        var peek: UInt8? { i < b.count ? b[i] : nil }

        func problem(_ reason: String) -> Problem { Problem(line: line, reason: reason) }

        mutating func take(_ c: UInt8) -> Bool {
            guard peek == c else { return false }
            i += 1
            return true
        }

        mutating func skipSpaces() { while let c = peek, c == 0x20 || c == 0x09 { i += 1 } }

        mutating func skipComment() {
            if peek == UInt8(ascii: "#") { while let c = peek, c != 0x0A { i += 1 } }
        }

        /// Spaces, comments and newlines.
        mutating func skipBlank() {
            while true {
                skipSpaces(); skipComment()
                if peek == 0x0D { i += 1 }
                guard peek == 0x0A else { return }
                i += 1; line += 1
            }
        }

        mutating func endOfLine() throws(Problem) {
            skipSpaces(); skipComment()
            if peek == 0x0D { i += 1 }
            guard atEnd || peek == 0x0A else { throw problem("unexpected text after the value") }
        }

        mutating func key() throws(Problem) -> String {
            skipSpaces()
            if peek == UInt8(ascii: "\"") { return try basicString() }
            if peek == UInt8(ascii: "'") { return try literalString() }
            let start = i
            while let c = peek, (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D { i += 1 }
            guard i > start else { throw problem("expected a key (letters, digits, _ and -, or a \"quoted\" key)") }
            return String(decoding: b[start..<i], as: UTF8.self)
        }

        mutating func value(depth: Int) throws(Problem) -> JSONValue {
            guard depth < 16 else { throw problem("nested too deeply") }
            skipSpaces()
            guard let c = peek else { throw problem("a value is missing") }
            switch c {
            case UInt8(ascii: "\""): return .string(try basicString())
            case UInt8(ascii: "'"): return .string(try literalString())
            case UInt8(ascii: "["):
                i += 1
                var items: [JSONValue] = []
                while true {
                    skipBlank()
                    if take(UInt8(ascii: "]")) { return .array(items) }
                    items.append(try value(depth: depth + 1))
                    skipBlank()
                    if take(UInt8(ascii: ",")) { continue }
                    guard take(UInt8(ascii: "]")) else { throw problem("expected , or ] in a list") }
                    return .array(items)
                }
            case UInt8(ascii: "{"):
                i += 1
                var o: [String: JSONValue] = [:]
                skipSpaces()
                if take(UInt8(ascii: "}")) { return .object(o) }
                while true {
                    let k = try key()
                    skipSpaces()
                    guard take(UInt8(ascii: "=")) else { throw problem("expected = in an inline table") }
                    guard o[k] == nil else { throw problem("'\(TerminalSafe.text(k))' is set twice") }
                    o[k] = try value(depth: depth + 1)
                    skipSpaces()
                    if take(UInt8(ascii: ",")) { skipSpaces(); continue }
                    guard take(UInt8(ascii: "}")) else { throw problem("expected , or } in an inline table (on one line)") }
                    return .object(o)
                }
            default:
                let start = i
                while let d = peek, d != 0x20, d != 0x09, d != 0x0A, d != 0x0D, d != 0x2C, d != 0x5D, d != 0x7D, d != 0x23 { i += 1 }
                let word = String(decoding: b[start..<i], as: UTF8.self)
                if word == "true" { return .bool(true) }
                if word == "false" { return .bool(false) }
                let digits = word.replacing("_", with: "")
                if let n = Int(digits.hasPrefix("+") ? String(digits.dropFirst()) : digits), abs(n) < 1 << 53 { return .number(Double(n)) }
                throw problem("'\(TerminalSafe.text(word))' is not a value (a \"string\", a number, true, false, [list] or {table})")
            }
        }

        mutating func basicString() throws(Problem) -> String {
            i += 1
            var out: [UInt8] = []
            while let c = peek {
                i += 1
                switch c {
                case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
                case 0x0A: throw problem("a string ends on its line")
                case UInt8(ascii: "\\"):
                    guard let e = peek else { throw problem("a string ends on its line") }
                    i += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(e)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        guard i + 4 <= b.count, let v = UInt32(String(decoding: b[i..<i + 4], as: UTF8.self), radix: 16),
                              let s = Unicode.Scalar(v) else { throw problem("\\u takes four hex digits") }
                        i += 4
                        out += Array(String(Character(s)).utf8)
                    default: throw problem("unknown escape \\" + TerminalSafe.text(String(Character(Unicode.Scalar(e)))))
                    }
                default: out.append(c)
                }
            }
            throw problem("a string is not closed")
        }

        mutating func literalString() throws(Problem) -> String {
            i += 1
            let start = i
            while let c = peek, c != UInt8(ascii: "'") {
                guard c != 0x0A else { throw problem("a string ends on its line") }
                i += 1
            }
            guard take(UInt8(ascii: "'")) else { throw problem("a string is not closed") }
            return String(decoding: b[start..<i - 1], as: UTF8.self)
        }
    }
}
