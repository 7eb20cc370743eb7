import Testing
@testable import Explorer
@testable import TUI

/// The RSSI bar with numbers no radio reports: an RSSI of Int.max (a lying bluetoothd's
/// int64) trapped the app on its first frame (issue 20); the bar takes any Int.
@Suite("RSSI bar at the ends of Int")
struct RSSIBarTests {
    @Test func anyIntDrawsABar() {
        #expect(ScanScreen.bar(Int.max) == "█████")
        #expect(ScanScreen.bar(Int.min) == "░░░░░")
        #expect(ScanScreen.bar(Int.max - 1) == "█████" && ScanScreen.bar(Int.min + 1) == "░░░░░")
        #expect(ScanScreen.bar(-40) == "█████" && ScanScreen.bar(-100) == "░░░░░")
    }

    /// A peripheral holding such an RSSI (a reducer fed by hand, past the backends' bounds)
    /// draws on the scan list (as much of the number as its column holds) and on its details.
    @Test func screensDrawTheEndsOfInt() {
        for rssi in [Int.max, Int.min] {
            var s = ScreenTests.state()
            _ = s.peripherals.update(ScreenTests.hrm) { $0.rssi = rssi }
            let list = ScreenTests.render(s, 120, 24)
            // The column holds four digits: the number's start.
            #expect(list.contains { $0.contains("Demo HRM") && $0.contains(String(String(rssi).prefix(4))) }, "\(list)")
            s.route = .details(ScreenTests.hrm)
            #expect(ScreenTests.render(s, 120, 24).joined().contains("RSSI \(rssi) dBm"))
        }
    }
}
