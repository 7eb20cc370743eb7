/// Parses what the user types after `w`: hex bytes (`01 ff`, `01ff`, `0x01 0xff`) or
/// text in quotes (`"hello"` or `'hello'`, sent as UTF-8).
public enum WriteValue {
    public struct ParseError: Error, Equatable { public let message: String }

    public static func parse(_ input: String) -> Result<Bytes, ParseError> {
        let t = input.trimmingSpaces()
        guard !t.isEmpty else { return .failure(ParseError(message: "Nothing to write: type hex like 01 ff, or \"text\"")) }
        if let q = t.first, q == "\"" || q == "'" {
            guard t.count >= 2, t.last == q else {
                return .failure(ParseError(message: "Text must end with a closing \(q)"))
            }
            return .success(Array(t.dropFirst().dropLast().utf8))
        }
        var digits: [UInt8] = []
        for token in t.split(whereSeparator: { $0 == " " || $0 == "," || $0 == ":" }) {
            var tok = Substring(token)
            if tok.hasPrefix("0x") || tok.hasPrefix("0X") { tok = tok.dropFirst(2) }
            for ch in tok {
                guard let v = ch.hexDigitValue, ch.isASCII else {
                    return .failure(ParseError(message: "Not hex: '\(ch)'. Type hex like 01 ff, or \"text\" in quotes"))
                }
                digits.append(UInt8(v))
            }
            if tok.count % 2 == 1 {
                return .failure(ParseError(message: "Odd number of hex digits in '\(tok)'"))
            }
        }
        var bytes: Bytes = []
        bytes.reserveCapacity(digits.count / 2)
        var i = 0
        while i + 1 < digits.count { bytes.append(digits[i] << 4 | digits[i + 1]); i += 2 }
        return .success(bytes)
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var s = String(self)[...]
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
