import Testing
import Foundation
import TestSupport
import Explorer

/// The exit statuses `--help` and the README promise, from the real binary.
@Suite("Exit codes")
struct ExitCodeEndToEndTests {
    /// The binary under sh, for redirections and environment: (status, what sh's stderr got).
    static func sh(_ script: String) throws -> (Int32, String) {
        try spawn("/bin/sh", ["-c", script])
    }
    static let bin = "'\(Tmux.binary)'"

    @Test func noSystemBusIsItsOwnStatusAndSaysWhatToTry() throws {
        let (code, out) = try Self.sh("DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/bx-bus \(Self.bin) scan --duration 1")
        #expect(code == ExitCode.unavailable.rawValue && code != ExitCode.usage.rawValue)
        #expect(out.hasPrefix("bleexplr: cannot reach the system bus: "), "\(out)")
        #expect(out.contains("--bus ADDRESS") && out.contains("--demo"))
        #expect(out.split(separator: "\n").count == 1)
    }

    @Test func aMalformedBusAddressNamesTheFlag() throws {
        var (code, out) = try Self.sh("\(Self.bin) --bus garbage scan --duration 1")
        #expect(code == ExitCode.usage.rawValue)
        #expect(out.hasPrefix("bleexplr: --bus 'garbage' is not a D-Bus address ("), "\(out)")
        #expect(out.contains("unix:path=/run/dbus/system_bus_socket"))
        (code, out) = try Self.sh("\(Self.bin) --bus frob:x=1 services AA:BB:CC:DD:EE:FF")
        #expect(code == ExitCode.usage.rawValue && out.hasPrefix("bleexplr: --bus 'frob:x=1' is not a D-Bus address"), "\(out)")
        // Well formed, nobody there: the bus is missing, the command line is fine.
        (code, out) = try Self.sh("\(Self.bin) --bus unix:path=/nonexistent/bx-bus scan --duration 1")
        #expect(code == ExitCode.unavailable.rawValue)
        #expect(out.hasPrefix("bleexplr: cannot reach the bus given with --bus 'unix:path=/nonexistent/bx-bus': "), "\(out)")
    }

    /// `> /dev/full`: every headless printer fails with one line and status 4, not 0.
    @Test func aFullStandardOutputFailsEveryPrinter() throws {
        let commands = [
            "--demo scan --duration 1", "--demo scan --duration 1 --json",
            "--demo services E4:1C:22:5D:90:11", "--demo read E4:1C:22:5D:90:11 2A38",
            "--demo notify E4:1C:22:5D:90:11 2A37 --count 2", "--demo notify E4:1C:22:5D:90:11 2A37 --duration 3",
            "decode 0201060303aafe", "--help", "--version",
        ]
        for args in commands {
            let (code, out) = try Self.sh("\(Self.bin) \(args) > /dev/full")
            #expect(code == ExitCode.output.rawValue, "\(args): \(code) \(out)")
            #expect(out == "bleexplr: cannot write to standard output: No space left on device\n", "\(args)")
        }
        // The same commands to a real file still succeed.
        let (code, _) = try Self.sh("\(Self.bin) decode 0201060303aafe > /dev/null")
        #expect(code == 0)
    }

    /// A command cut short by a signal: 128 + the signal, as `--help` says; one that runs until
    /// stopped: 0 (the shell's `$?` of the real binary, signalled after a second on the demo).
    @Test func aSignalGivesTheStatusHelpPromises() throws {
        for (sig, finite, open) in [("TERM", 143, 0), ("HUP", 129, 0), ("INT", 130, 0)] {
            for (args, want) in [("notify E4:1C:22:5D:90:11 2A37 --count 1000", finite), ("notify E4:1C:22:5D:90:11 2A37", open)] {
                let (code, out) = try Self.sh("\(Self.bin) --demo \(args) > /dev/null & p=$!; sleep 1.5; kill -\(sig) $p; wait $p")
                #expect(code == Int32(want), "SIG\(sig) to \(args): \(code) \(out)")
            }
        }
    }

    @Test func helpListsTheStatuses() throws {
        let (code, out) = try Self.sh("\(Self.bin) --help")
        #expect(code == 0)
        for c in ExitCode.allCases { #expect(out.contains("  \(c.rawValue)    \(c.meaning)")) }
    }
}
