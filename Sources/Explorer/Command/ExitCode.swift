@preconcurrency import Glibc

/// How the process ends, one meaning a number, for scripts to tell "the device said no"
/// from "my command line is wrong" from "there is no bus here". The README's table and
/// `--help` list these (`Usage.exitCodes`); a signal ends it with 128 + the signal.
public enum ExitCode: Int32, CaseIterable, Sendable {
    /// The command did what it was asked.
    case success = 0
    /// The command ran and failed: no such device, the operation failed, a timeout.
    case failure = 1
    /// A bad command line: unknown option or command, a bad value, a named file unusable.
    case usage = 2
    /// What it needs is not there: the system bus (or the `--bus` address) cannot be
    /// reached, or there is no terminal the app can draw on.
    case unavailable = 3
    /// The output could not be written: standard output (closed, full: `scan > /dev/full`)
    /// or the `--output` file.
    case output = 4

    /// The line of the table for `--help` and the README.
    public var meaning: String {
        switch self {
        case .success: "success"
        case .failure: "the command failed: no such device, the operation failed, a timeout"
        case .usage: "a bad command line: unknown option or command, a bad value, an unusable file"
        case .unavailable: "no bus (the system bus or --bus unreachable), or no terminal the app can use"
        case .output: "the output could not be written (standard output or --output FILE)"
        }
    }
}

/// What to say when the bus cannot be opened, and with which status: libdbus's own words
/// alone ("Address does not contain a colon") do not say that they are about `--bus`.
public enum BusFailure {
    /// `name` and `message`: libdbus's error; `address`: `--bus`, nil for the system bus.
    public static func report(name: String, message: String, address: String?) -> (message: String, code: ExitCode) {
        let why = TerminalSafe.text(message.isEmpty ? name : message)
        guard let address else {
            return ("cannot reach the system bus: \(why) (is D-Bus running? --bus ADDRESS names another bus; --demo runs the simulated world)",
                    .unavailable)
        }
        let given = TerminalSafe.text(address)
        // libdbus parses the address before it connects: a parse error is the command line's.
        if name == "org.freedesktop.DBus.Error.BadAddress" || name == "org.freedesktop.DBus.Error.InvalidArgs" {
            return ("--bus '\(given)' is not a D-Bus address (\(why)): give one like unix:path=/run/dbus/system_bus_socket or tcp:host=127.0.0.1,port=17777",
                    .usage)
        }
        return ("cannot reach the bus given with --bus '\(given)': \(why)", .unavailable)
    }
}

/// Standard output as the headless commands leave it: stdio buffers, so a full disk or a
/// closed file shows only at a flush, and a command that ignored it would exit 0 having
/// printed nothing. Only the main thread prints.
public enum StandardOutput {
    nonisolated(unsafe) private static var failed: String?

    /// Flushes; the first thing that went wrong writing standard output, if anything has.
    public static func problem() -> String? {
        guard failed == nil else { return failed }
        let flushed = fflush(stdout) == 0
        let why = errno
        guard !flushed || ferror(stdout) != 0 else { return nil }
        failed = "cannot write to standard output" + (flushed ? "" : ": " + String(cString: strerror(why)))
        return failed
    }
}
