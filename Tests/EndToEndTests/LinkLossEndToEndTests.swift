import TestSupport
import Foundation
import Testing

/// The real binary on --demo: the demo iTag drops its link on demand (`--demo-control`).
@Suite("End to end: link loss keeps your place", .serialized)
struct LinkLossEndToEndTests {
    @Test func theScreenAHalfTypedWriteAndTheSubscriptionsSurviveALinkLoss() throws {
        let fifo = tempPath("ctl"), state = tempPath("state")
        defer { unlink(fifo); try? FileManager.default.removeItem(atPath: state) }
        let t = try Tmux("linkloss", command: "export XDG_STATE_HOME=\(state); " + wrapped("--demo --demo-control \(fifo)"))
        try t.waitFor(text: "Demo iTag")
        try t.filterScanList("iTag", "only the iTag") { !$0.contains("Demo HRM") }
        try t.keys("Enter")
        try t.waitFor(text: "Alert Level", timeout: 10)
        try t.keys("j", "Enter")
        try t.waitFor(text: "Scan › Demo iTag › iTag Button Press")
        try t.keys("n")
        try t.waitFor(text: "Notify on")
        try t.keys("Escape", "j", "j", "Enter")
        try t.waitFor(text: "Scan › Demo iTag › Alert Level")
        try t.keys("w")
        try t.literal("01")
        try t.waitFor(text: "): 01▏")
        let control = try #require(fopen(fifo, "w"))
        defer { fclose(control) }
        fputs("drop\n", control); fflush(control)
        let kept = try t.waitFor("the screen kept with the line") { s in
            s.contains("● disconnected (remote device ended the connection) — Enter reconnects")
                && s.contains("Scan › Demo iTag › Alert Level") && s.contains("): 01▏")
        }
        #expect(!kept.contains("NAME"))
        // Enter in the line reconnects; the line stays until the link is back.
        try t.keys("Enter")
        try t.waitFor("reconnected", timeout: 15) { s in
            !s.contains("disconnected (") && !s.contains("reconnecting") && s.contains("): 01▏")
        }
        try t.keys("Enter")
        let wrote = try t.waitFor("the write", timeout: 5) { $0.contains("Wrote 1 byte to Alert Level") }
        #expect(wrote.contains("write ") && !wrote.contains("): 01"))
        // The value went to the characteristic's write history in the state directory; ↑ brings it back.
        let history = state + "/bleexplr/writes/FC58FA1A2B3C-2a06"
        #expect((try? String(contentsOfFile: history, encoding: .utf8)) == "01\n")
        try t.keys("w")
        try t.waitFor(text: "): ▏")
        try t.keys("Up")
        try t.waitFor(text: "): 01▏")
        try t.keys("Left", "Left")
        try t.literal("ff")
        try t.waitFor(text: "): ff▏01")
        try t.keys("Escape")
        try t.waitFor("the line closed") { !$0.contains("write (hex") }
        // Back in the tree, the button's notifications are on again.
        try t.keys("Escape")
        let tree = try t.waitFor("the subscription back on") { s in
            s.split(separator: "\n").contains { $0.contains("iTag Button Press") && $0.contains("● live") }
        }
        #expect(tree.contains("● connected"))
        // From the tree: A reads every readable characteristic, and each value shows on its row.
        try t.keys("A")
        try t.waitFor("the battery level read from the tree") { s in
            s.split(separator: "\n").contains { $0.contains("Battery Level") && $0.contains(" %") }
        }
        try t.keys("q")
        try DemoEndToEndTests.expectRestored(t, exit: 0)
    }
}
