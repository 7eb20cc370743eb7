@preconcurrency import Glibc

/// Where bleexplr keeps its own state (watch's queues, the values written to each
/// characteristic): `$XDG_STATE_HOME/bleexplr` when that is an absolute path (the XDG
/// Base Directory rule), else `$HOME/.local/state/bleexplr`; every folder made private
/// (0700) when `create`.
public enum StateDirectory {
    /// `sub` inside it ("writes"); nil with neither variable set to an absolute path.
    public static func path(_ sub: String = "", create: Bool) -> String? {
        var dir: String
        if let x = getenv("XDG_STATE_HOME"), x.pointee == 0x2F { dir = String(cString: x) }
        else if let h = getenv("HOME"), h.pointee == 0x2F { dir = String(cString: h) + "/.local/state" }
        else { return nil }
        dir += "/bleexplr" + (sub.isEmpty ? "" : "/" + sub)
        if create { make(dir) }
        return dir
    }

    /// Makes each folder of `dir` that is missing, private.
    static func make(_ dir: String) {
        var partial = ""
        for part in dir.split(separator: "/") {
            partial += "/" + part
            mkdir(partial, 0o700)
        }
    }
}
