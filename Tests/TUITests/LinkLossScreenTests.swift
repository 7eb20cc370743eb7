import Testing
@testable import Explorer
@testable import TUI

/// The device and characteristic screens after a link loss: still open, marked above the
/// message line, the half-typed line kept.
@Suite("Screens: link loss")
struct LinkLossScreenTests {
    typealias T = ScreenTests

    @Test func theDeviceScreenStaysMarked() {
        var s = T.connected()
        _ = Reducer.reduce(&s, .backend(.readCompleted(AttributeID("/s/f/g"), .success([64])), at: T.t0 + 4))
        _ = Reducer.reduce(&s, .backend(.disconnected(T.hrm, .timeout), at: T.t0 + 20))
        s.alert = nil
        let lines = T.render(s)
        T.expectLines(Array(lines.prefix(9)), T.deviceLines("disconnected"))
        #expect(lines[21] == " ● disconnected (connection timed out) — Enter reconnects  since 20:27:00.000")
        #expect(lines[22].hasPrefix("Enter reconnect · d disconnect"))
        // Reconnecting: the line says how far it got; ready again, it is gone.
        _ = Reducer.reduce(&s, .rowActivated)
        _ = Reducer.reduce(&s, .backend(.connected(T.hrm), at: T.t0 + 21))
        #expect(T.render(s)[21] == " ● reconnecting: resolving services…")
        _ = Reducer.reduce(&s, .backend(.servicesResolved(T.hrm, s.peripherals[T.hrm]!.services!, mtu: 247), at: T.t0 + 22))
        #expect(T.render(s)[21] == "")
        #expect(T.render(s)[1].contains("● connected"))
    }

    @Test func theCharacteristicScreenKeepsItsHistoryAndTheLine() {
        var s = T.connected()
        let bsl = AttributeID("/s/b/e")
        s.peripherals[T.hrm]!.services![0].characteristics[1].properties = [.read, .write]
        s.route = .characteristic(T.hrm, bsl)
        _ = Reducer.reduce(&s, .backend(.readCompleted(bsl, .success([1])), at: T.t0 + 5))
        _ = Reducer.reduce(&s, .writeStarted)
        _ = Reducer.reduce(&s, .inputEdited(.insert("02")))
        _ = Reducer.reduce(&s, .backend(.disconnected(T.hrm, .remote), at: T.t0 + 20))
        let lines = T.render(s)
        #expect(lines[0] == " bleexplr │ Scan › Demo HRM › Body Sensor Location")
        #expect(lines[10] == " HISTORY 1 value, newest first")
        #expect(lines[11].hasPrefix(" 20:26:45.000  read    01"))
        // No room for the time at 80 columns: the reason and the way back come first.
        #expect(lines[21] == " ● disconnected (remote device ended the connection) — Enter reconnects")
        #expect(lines[22] == "write (hex 01 ff, or \"text\"): 02▏")
        // At 60 columns the reason gives way to the way back.
        let small = T.render(s, 60, 16)
        #expect(small[13] == " ● disconnected (remote device ended t…) — Enter reconnects")
    }

    /// A replay cannot reconnect: the line does not offer it.
    @Test func aReplayKeepsThePlaceWithoutOfferingEnter() {
        var s = T.connected()
        s.replay = ReplayStatus(start: T.t0, end: T.t0 + 60, position: T.t0 + 20, speed: .one, paused: false, finished: false, skipped: 0)
        _ = Reducer.reduce(&s, .backend(.disconnected(T.hrm, .timeout), at: T.t0 + 20))
        #expect(T.render(s)[21] == " ● disconnected (connection timed out)  since 20:27:00.000")
        #expect(!Keymap.hints(for: s).contains("reconnect"))
    }
}
