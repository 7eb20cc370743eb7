import Testing
@testable import Explorer
@testable import TUI

/// `LANG=C`: the grid the terminal draws is ASCII, every column where it was in UTF-8.
@Suite("Screens in ASCII (a locale without UTF-8)")
struct ASCIIScreenTests {
    /// Each line of the ASCII grid is pure ASCII and as wide, cell for cell, as the UTF-8 one.
    static func both(_ s: AppState, _ w: Int = 80, _ h: Int = 24, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        let utf8 = Router.render(s, width: w, height: h), ascii = utf8.ascii()
        let lines = ascii.lines()
        for (y, line) in lines.enumerated() {
            #expect(line.unicodeScalars.allSatisfy { $0.isASCII }, "line \(y): \(line)", sourceLocation: sourceLocation)
        }
        for y in 0..<h {
            for x in 0..<w where !utf8[x, y].text.isEmpty && utf8[x, y].text.unicodeScalars.allSatisfy({ $0.isASCII }) {
                #expect(ascii[x, y] == utf8[x, y], "cell \(x),\(y) moved", sourceLocation: sourceLocation)
            }
        }
        return lines
    }

    @Test func theLocaleDecides() {
        #expect(Charset.of(codeset: "UTF-8") == .utf8)
        #expect(Charset.of(codeset: "utf8") == .utf8)
        #expect(Charset.of(codeset: "ANSI_X3.4-1968") == .ascii)   // glibc's C and POSIX
        #expect(Charset.of(codeset: "ISO-8859-1") == .ascii)
    }

    @Test func scanList() {
        let lines = Self.both(ScreenTests.state())
        ScreenTests.expectLines(Array(lines.prefix(6)), [
            " bleexplr | Scan                                                       sort RSSI",
            "  NAME         ADDRESS           TYPE   RSSI       ADVERTISEMENT            AGE",
            "> Demo HRM     E4:1C:22:5D:90:11         -52 ####. Nordic Semiconductor .~   3s",
            "  Demo iTag    FC:58:FA:1A:2B:3C         -61 ###.. iTag Button . tx 0 dBm    3s",
            "  (unnamed)    6B:2E:91:3C:4D:5E         -67 ###.. iBeacon e2c56db5~ 1/42~   3s",
            "  Evil?[2J?]0~ DE:AD:BE:EF:00:1B         -88 #....                           3s",
        ])
        #expect(lines[22] == "Enter connect . i details . / filter . o sort . s scan . R rec . ? help . q quit")
    }

    @Test func deviceTreeAndCharacteristicWithSparkline() {
        var s = ScreenTests.connected()
        var lines = Self.both(s)
        #expect(lines[1] == " Demo HRM  E4:1C:22:5D:90:11  * connected  RSSI -52 dBm  MTU 247  not paired")
        #expect(lines[3] == " v Heart Rate                             180D")
        _ = Reducer.reduce(&s, .cursorMoved(.down))
        _ = Reducer.reduce(&s, .rowActivated)
        _ = Reducer.reduce(&s, .backend(.valueNotified(ScreenTests.hrmChar, [0x06, 72]), at: ScreenTests.t0 + 6))
        _ = Reducer.reduce(&s, .backend(.valueNotified(ScreenTests.hrmChar, [0x16, 75, 0x00, 0x04]), at: ScreenTests.t0 + 7.25))
        lines = Self.both(s)
        #expect(lines[0] == " bleexplr | Scan > Demo HRM > Heart Rate Measurement")
        #expect(lines.contains(" Text     \".K..\""))
        #expect(lines.contains { $0.hasSuffix("  _#  72-75") })
    }

    @Test func helpBox() {
        var s = ScreenTests.state()
        s.showHelp = true
        let lines = Self.both(s)
        #expect(lines.contains { $0.contains("+- Keys -") && $0.hasSuffix("+") })
        #expect(lines.contains { $0.contains("| ^v j k PgUp PgDn g G ") })
    }

    /// Names are the device's: accents fold, anything else is one ? a column.
    @Test func wideAndAccentedNames() {
        var s = ScreenTests.state()
        let id = PeripheralID("11:22:33:44:55:66")
        _ = Reducer.reduce(&s, .backend(.advertisementReceived(AdvertisementReport(
            id: id, address: "11:22:33:44:55:66", name: "Küche 温度", rssi: -40, connectable: true,
            advertisement: Advertisement())), at: ScreenTests.t0))
        let lines = Self.both(s)
        #expect(lines.contains { $0.contains("  Kuche ????   11:22:33:44:55:66         -40 #####") }, "\(lines)")
    }
}
