/// Builds one JSON object on one line, keys in the order given. The only place where
/// untrusted text meets JSON: `escape` turns every control character into \uXXXX, so a
/// device name can never break a line of a recording.
public struct JSONLine {
    private var out = "{"
    private var first = true

    public init() {}

    private mutating func key(_ k: String) {
        if !first { out += "," }
        first = false
        out += "\""
        Self.escape(k, into: &out)
        out += "\":"
    }

    public mutating func string(_ k: String, _ v: String?) {
        guard let v else { return }
        key(k)
        out += "\""
        Self.escape(v, into: &out)
        out += "\""
    }

    public mutating func int(_ k: String, _ v: Int?) {
        guard let v else { return }
        key(k)
        out += String(v)
    }

    public mutating func bool(_ k: String, _ v: Bool?) {
        guard let v else { return }
        key(k)
        out += v ? "true" : "false"
    }

    public mutating func strings(_ k: String, _ v: [String]) {
        key(k)
        out += "["
        for (i, s) in v.enumerated() {
            if i > 0 { out += "," }
            out += "\""
            Self.escape(s, into: &out)
            out += "\""
        }
        out += "]"
    }

    /// A nested object from (key, string value) pairs.
    public mutating func stringMap(_ k: String, _ pairs: [(String, String)]) {
        key(k)
        var inner = JSONLine()
        for (pk, pv) in pairs { inner.string(pk, pv) }
        out += inner.finish()
    }

    /// Pre-built JSON (an object or array made with this type).
    public mutating func raw(_ k: String, _ json: String) {
        key(k)
        out += json
    }

    public func finish() -> String { out + "}" }

    public static func escape(_ s: String, into out: inout String) {
        // Printable ASCII without " or \ (addresses, UUIDs, paths, hex: most of a line) goes
        // in whole; appending scalar by scalar cost 60 % of a recorded notification (callgrind).
        let plain = s.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }
        }
        if plain == true {
            out += s
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                // Bidi overrides and isolates too (TerminalSafe.isUnsafe): a JSON line printed
                // to a terminal would reorder what follows (found by the recording fuzz target).
                if TerminalSafe.isUnsafe(scalar) || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let h = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
    }

    /// A JSON string of `s`, escaped as every value is.
    public static func quoted(_ s: String) -> String {
        var out = "\""
        escape(s, into: &out)
        return out + "\""
    }

    /// `[ ... ]` of already-built JSON values.
    public static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }
}
