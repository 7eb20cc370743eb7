import Testing
@testable import Explorer

@Suite("Exit codes and bus failures")
struct ExitCodeTests {
    @Test func everyStatusHasItsOwnNumberAndTheHelpListsThem() {
        #expect(Set(ExitCode.allCases.map(\.rawValue)).count == ExitCode.allCases.count)
        #expect(ExitCode.usage.rawValue == 2 && ExitCode.unavailable != .usage)
        for c in ExitCode.allCases { #expect(Usage.text.contains("  \(c.rawValue)    \(c.meaning)")) }
    }

    @Test func aBusAddressLibdbusCannotParseIsTheCommandLines() {
        let r = BusFailure.report(name: "org.freedesktop.DBus.Error.BadAddress", message: "Address does not contain a colon",
                                  address: "garbage")
        #expect(r.code == .usage)
        #expect(r.message.hasPrefix("--bus 'garbage' is not a D-Bus address (Address does not contain a colon): give one like unix:path="))
    }

    @Test func anUnreachableBusIsUnavailable() {
        var r = BusFailure.report(name: "org.freedesktop.DBus.Error.FileNotFound",
                                  message: "Failed to connect to socket /x: No such file or directory", address: nil)
        #expect(r.code == .unavailable)
        #expect(r.message.hasPrefix("cannot reach the system bus: Failed to connect to socket /x"))
        #expect(r.message.contains("--bus ADDRESS"))
        r = BusFailure.report(name: "org.freedesktop.DBus.Error.NoServer", message: "", address: "tcp:host=h,port=1")
        #expect(r.code == .unavailable && r.message == "cannot reach the bus given with --bus 'tcp:host=h,port=1': org.freedesktop.DBus.Error.NoServer")
    }

    /// An address is the user's text and libdbus repeats it: it reaches stderr harmless.
    @Test func controlCharactersInTheAddressAreShownNotSent() {
        let r = BusFailure.report(name: "org.freedesktop.DBus.Error.BadAddress", message: "Unknown address type \u{1B}[2J",
                                  address: "x\u{1B}]0;pwn\u{07}")
        #expect(!r.message.unicodeScalars.contains { $0.value < 0x20 })
    }
}
