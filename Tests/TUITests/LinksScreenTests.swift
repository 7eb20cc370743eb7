import Testing
@testable import Explorer
@testable import TUI

/// The top bar lists the links while one of them is not the screen's own.
@Suite("Screens: several links in the top bar")
struct LinksScreenTests {
    typealias T = ScreenTests
    static let itag = PeripheralID("FC:58:FA:1A:2B:3C")

    /// The HRM connected (its device screen), then the list, then the iTag connecting.
    static func twoLinks() -> AppState {
        var s = T.connected()
        _ = Reducer.reduce(&s, .backRequested)
        s.scan.cursor = itag
        _ = Reducer.reduce(&s, .rowActivated)
        return s
    }

    @Test func oneLinkOnItsOwnScreenSaysNothingNew() {
        let s = T.connected()
        #expect(T.render(s)[0] == " bleexplr │ Scan › Demo HRM")
    }

    @Test func theListShowsTheLinksWithTheirStates() {
        var s = T.connected()
        _ = Reducer.reduce(&s, .backRequested)
        #expect(T.render(s)[0] == " bleexplr │ Scan   1 Demo HRM ●                                        sort RSSI")
        s = Self.twoLinks()
        #expect(T.render(s)[0] == " bleexplr │ Scan   1 Demo HRM ●  2 Demo iTag ◐                         sort RSSI")
        _ = Reducer.reduce(&s, .backend(.connected(Self.itag), at: T.t0 + 4))
        _ = Reducer.reduce(&s, .backend(.servicesResolved(Self.itag, [], mtu: 23), at: T.t0 + 4))
        #expect(s.route == .device(Self.itag))
        let lines = T.render(s)
        #expect(lines[0] == " bleexplr │ Scan › Demo iTag   1 Demo HRM ●  2 Demo iTag ●")
        // The link on screen is bold, the states coloured.
        let g = Router.render(s, width: 80, height: 24)
        let top = Array(lines[0])
        let hrmMark = top.firstIndex(of: "●")!, itagName = top.firstIndex(of: "2")! + 2
        #expect(g[itagName, 0].style.bold && !g[hrmMark - 3, 0].style.bold)
        #expect(g[hrmMark, 0].style.color == .green && g[hrmMark, 0].style.reverse)
        // The HRM drops behind the iTag's screen: marked down, its place kept.
        _ = Reducer.reduce(&s, .backend(.disconnected(T.hrm, .timeout), at: T.t0 + 9))
        #expect(T.render(s)[0].hasSuffix("1 Demo HRM ○  2 Demo iTag ●"))
    }

    /// No room for every name: they are cut, then the last links give way to "+N".
    @Test func manyLinksAreCutThenCounted() {
        var s = Self.twoLinks()
        for i in 0..<6 {
            let id = PeripheralID("00:00:00:00:00:0\(i)")
            _ = Reducer.reduce(&s, .backend(.advertisementReceived(AdvertisementReport(
                id: id, address: id.rawValue, name: "Long sensor name \(i)", rssi: -60, connectable: true,
                advertisement: Advertisement())), at: T.t0 + 4))
            _ = Reducer.reduce(&s, .backend(.connected(id), at: T.t0 + 4))
        }
        let top = T.render(s)[0]
        #expect(top.hasPrefix(" bleexplr │ Scan   "))
        #expect(top == " bleexplr │ Scan   1 Demo HRM ●  2 Demo iT… ◐  3 Long se… ◐  +5        sort RSSI", "\(top)")
        #expect(CellGrid.columns(of: top) <= 80)
    }
}
