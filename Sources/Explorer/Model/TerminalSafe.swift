/// The one rule for device text meeting a terminal: control characters (C0, DEL, C1)
/// and bidi overrides never reach it. C0 become their visible "control pictures"
/// (ESC -> ␛, CR -> ␍), the others "�". Used by the screen's cell grid and by the
/// headless commands' plain-text output.
public enum TerminalSafe {
    /// nil when the scalar is safe as it is.
    public static func replacement(_ scalar: Unicode.Scalar) -> String? {
        let v = scalar.value
        if v < 0x20 { return String(Unicode.Scalar(0x2400 + v)!) }
        if v == 0x7F { return "\u{2421}" }
        if isUnsafe(scalar) { return "\u{FFFD}" }
        return nil
    }

    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || v == 0x7F || (0x80..<0xA0).contains(v) || (0x202A...0x202E).contains(v)
            || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F
    }

    /// A whole string made safe.
    public static func text(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            if let r = replacement(scalar) { out += r } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// Each line of `s` made safe, the line breaks kept: a message of our own that quotes
    /// untrusted text.
    public static func lines(_ s: String) -> String {
        s.split(separator: "\n", omittingEmptySubsequences: false).map { text(String($0)) }.joined(separator: "\n")
    }
}
