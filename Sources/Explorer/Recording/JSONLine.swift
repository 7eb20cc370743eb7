/// Builds one JSON object on one line, keys in the order given. The only place where
/// untrusted text meets JSON: `escape` turns every control character into \uXXXX, so a
/// device name can never break a line of a recording.
///
/// The line grows as UTF-8 bytes and becomes a String once, in `finish()`: growing a String
/// piece by piece was a third of a recorded notification's CPU (perf, `notify --json
/// --record` on the demo's flood), most of it in String's append machinery.
public struct JSONLine {
    private var out = Bytes()
    private var first = true

    public init() {
        out.reserveCapacity(320)
        out.append(0x7B)   // {
    }

    private mutating func add(_ s: String) { Self.append(s, to: &out) }

    /// A String's UTF-8 as one copy: `append(contentsOf: s.utf8)` went byte by byte through
    /// the generic path, 600 instructions a field (callgrind, 2026-12-06).
    private static func append(_ s: String, to out: inout Bytes) {
        if s.utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil { out.append(contentsOf: Array(s.utf8)) }
    }

    private mutating func addQuoted(_ s: String) {
        out.append(0x22)
        Self.escape(s, into: &out)
        out.append(0x22)
    }

    /// Keys are the code's own names, never a device's: not escaped (a tenth of a
    /// recorded notification's line went to checking them, callgrind 2026-12-06).
    private mutating func key(_ k: StaticString) {
        nextField()
        out.append(0x22)
        k.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(0x22)
        out.append(0x3A)   // :
    }

    public mutating func string(_ k: StaticString, _ v: String?) {
        guard let v else { return }
        key(k)
        addQuoted(v)
    }

    /// A key that is not one of the code's own names (a decoder's field, a serve line's):
    /// escaped as values are.
    public mutating func string(key k: String, _ v: String?) {
        guard let v else { return }
        dynamicKey(k)
        addQuoted(v)
    }

    public mutating func raw(key k: String, _ json: String) {
        dynamicKey(k)
        add(json)
    }

    private mutating func dynamicKey(_ k: String) {
        nextField()
        addQuoted(k)
        out.append(0x3A)
    }

    /// A time as `Timestamp.iso8601` writes it, straight into the line.
    public mutating func time(_ k: StaticString, _ t: Timestamp) {
        key(k)
        out.append(0x22)
        t.appendISO8601(to: &out)
        out.append(0x22)
    }

    /// Bytes as lowercase hex digits with no separator, written straight into the line
    /// (`hex(_:separator:)` made a String that was then checked for escapes).
    public mutating func hex(_ k: StaticString, _ bytes: Bytes) {
        key(k)
        out.append(0x22)
        Self.appendHex(bytes, to: &out)
        out.append(0x22)
    }

    static func appendHex(_ bytes: Bytes, to out: inout Bytes) {
        guard !bytes.isEmpty else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count * 2) { digits in
            var i = 0
            for b in bytes {
                digits[i] = hexDigit(b >> 4)
                digits[i + 1] = hexDigit(b & 0x0F)
                i += 2
            }
            out.append(contentsOf: UnsafeBufferPointer(digits))
        }
    }

    public mutating func int(_ k: StaticString, _ v: Int?) {
        guard let v else { return }
        key(k)
        add(String(v))
    }

    public mutating func bool(_ k: StaticString, _ v: Bool?) {
        guard let v else { return }
        key(k)
        add(v ? "true" : "false")
    }

    public mutating func strings(_ k: StaticString, _ v: [String]) {
        key(k)
        out.append(0x5B)   // [
        for (i, s) in v.enumerated() {
            if i > 0 { out.append(0x2C) }
            addQuoted(s)
        }
        out.append(0x5D)   // ]
    }

    /// A nested object from (key, string value) pairs.
    public mutating func stringMap(_ k: StaticString, _ pairs: [(String, String)]) {
        key(k)
        var inner = JSONLine()
        for (pk, pv) in pairs {
            inner.string(key: pk, pv)   // keys from the data (company ids, UUIDs)
        }
        add(inner.finish())
    }

    /// Pre-built JSON (an object or array made with this type).
    public mutating func raw(_ k: StaticString, _ json: String) {
        key(k)
        add(json)
    }

    /// The fields, without the braces: `"a":1,"b":2`.
    func appendFields(to buffer: inout Bytes) {
        buffer.append(contentsOf: out[1...])
    }

    /// A comma before every field but the first.
    private mutating func nextField() {
        if !first { out.append(0x2C) }   // ,
        first = false
    }

    public consuming func finish() -> String {
        out.append(0x7D)   // }
        return String(decoding: out, as: UTF8.self)
    }

    /// The line, closed and ended with a newline, added to `buffer` (a recorder's: no
    /// String between, whose making checked the UTF-8 again).
    public func appendLine(to buffer: inout Bytes) {
        buffer.append(contentsOf: out)
        buffer.append(0x7D)   // }
        buffer.append(0x0A)   // newline
    }

    public static func escape(_ s: String, into out: inout String) {
        if isPlain(s) { out += s } else { escapeScalars(s, into: &out) }
    }

    static func escape(_ s: String, into out: inout Bytes) {
        let plain = s.utf8.withContiguousStorageIfAvailable { bytes in
            guard isPlain(bytes) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain == true { return }
        var text = ""
        escapeScalars(s, into: &text)
        append(text, to: &out)
    }

    /// Printable ASCII without " or \ (addresses, UUIDs, paths, hex: most of a line) goes
    /// in whole; appending scalar by scalar cost 60 % of a recorded notification (callgrind).
    private static func isPlain(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable(isPlain) == true
    }

    private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in bytes where b < 0x20 || b >= 0x7F || b == 0x22 || b == 0x5C { return false }
        return true
    }

    private static func escapeScalars(_ s: String, into out: inout String) {
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
