import Testing
@testable import Explorer
@testable import TUI

/// The agent's prompts and `X`'s question over the screen, and the pairing facts, at 80x24.
@Suite("Pairing on screen, 80x24")
struct PairingScreenTests {
    typealias T = ScreenTests
    static let evil = PeripheralID("DE:AD:BE:EF:00:1B")

    static func asked(_ kind: AgentRequestKind, _ device: PeripheralID = T.hrm) -> AppState {
        var s = T.state()
        _ = Reducer.reduce(&s, .backend(.agentRequested(AgentRequest(id: 1, device: device, kind: kind)), at: T.t0 + 3))
        return s
    }

    /// The box's lines, from its top border to its bottom one.
    static func box(_ s: AppState) -> [String] {
        let lines = T.render(s)
        guard let top = lines.firstIndex(where: { $0.contains("┌") }),
              let bottom = lines.firstIndex(where: { $0.contains("└") }) else { return [] }
        return lines[top...bottom].map { line in
            let from = line.firstIndex(where: { "┌│└".contains($0) })!
            let to = line.lastIndex(where: { "┐│┘".contains($0) })!
            return String(line[from...to])
        }
    }

    @Test func passkeyPromptShowsTheDigitsTyped() {
        var s = Self.asked(.passkey)
        _ = Reducer.reduce(&s, .agentPromptEdited(.insert("2")))
        _ = Reducer.reduce(&s, .agentPromptEdited(.insert("4")))
        T.expectLines(Self.box(s), [
            "┌─ Pairing ──────────────────────────────────────────┐",
            "│  Demo HRM (E4:1C:22:5D:90:11) asks for a passkey.  │",
            "│  Type the six digits it shows:                     │",
            "│  2 4 _ _ _ _                                       │",
            "│                                                    │",
            "│  Enter sends · Esc refuses · Backspace deletes     │",
            "└────────────────────────────────────────────────────┘",
        ])
    }

    @Test func numericComparisonAndShownPasskey() {
        let compare = Self.box(Self.asked(.confirmation(4_210)))
        #expect(compare.contains { $0.contains("Does Demo HRM (E4:1C:22:5D:90:11) show this number?") })
        #expect(compare.contains { $0.contains("004 210") })
        #expect(compare.contains { $0.contains("y yes, pair · n no") })
        let shown = Self.box(Self.asked(.displayPasskey(246_810, entered: 4)))
        #expect(shown.contains { $0.contains("246 810") })
        #expect(shown.contains { $0.contains("4 of 6 digits entered") })
        let service = Self.box(Self.asked(.service("180D")))
        #expect(service.contains { $0.contains("Heart Rate") })
    }

    @Test func aHostileNameIsShownHarmlessly() {
        let lines = T.render(Self.asked(.authorization, Self.evil))
        #expect(!lines.joined().contains("\u{1B}"))
        #expect(lines.contains { $0.contains("wants to pair (no passkey to compare).") })
    }

    @Test func cancelledPromptGoesAwaySayingSo() {
        var s = Self.asked(.passkey)
        _ = Reducer.reduce(&s, .backend(.agentCancelled, at: T.t0 + 4))
        #expect(Self.box(s).isEmpty)
        #expect(T.render(s)[22] == "Pairing request from Demo HRM cancelled")
    }

    @Test func forgetAsksOnScreen() {
        var s = T.state()
        s.scan.cursor = T.hrm
        _ = Reducer.reduce(&s, .forgetRequested)
        let box = Self.box(s)
        #expect(box.contains { $0.contains("Forget Demo HRM (E4:1C:22:5D:90:11)?") })
        #expect(box.contains { $0.contains("y forget · any other key keeps it") })
    }

    @Test func pairingFactsInTheListAndOnTheDeviceScreen() {
        var s = T.connected()
        _ = Reducer.reduce(&s, .backend(.bondChanged(T.hrm, Bond(paired: true, bonded: true, trusted: true, addressType: "random")),
                                        at: T.t0 + 3))
        #expect(T.render(s, 110)[1]
            == " Demo HRM  E4:1C:22:5D:90:11  ● connected  RSSI -52 dBm  MTU 247  paired·bonded·trusted  random static")
        // Whole facts only: the address's kind gives way first.
        #expect(T.render(s, 100)[1] == " Demo HRM  E4:1C:22:5D:90:11  ● connected  RSSI -52 dBm  MTU 247  paired·bonded·trusted")
        s.route = .scan
        _ = Reducer.reduce(&s, .backend(.disconnected(T.hrm, .local), at: T.t0 + 4))
        #expect(T.render(s).contains { $0.contains("E4:1C:22:5D:90:11 static ") && $0.contains("paired·bonded·trusted") })
        s.route = .details(T.hrm)
        let details = T.render(s)
        #expect(details.contains { $0.contains("Address type") && $0.contains("random static") })
        #expect(details.contains { $0.contains("Pairing") && $0.contains("paired, bonded, trusted") })
    }
}
