import TestSupport
import Foundation
import Testing

/// The real binary on --demo: the connected device's database changes (`gatt-change` on
/// the demo's control FIFO: a DFU service appears, then goes), as BlueZ re-resolves the
/// services after a Service Changed indication.
@Suite("End to end: the GATT database changes while connected", .serialized)
struct ServiceChangedEndToEndTests {
    @Test func theTreeFollowsTheDatabase() throws {
        let fifo = tempPath("ctl")
        defer { unlink(fifo) }
        let t = try Tmux("gattchange", command: wrapped("--demo --demo-control \(fifo)"))
        try t.waitFor(text: "Demo iTag")
        try t.filterScanList("iTag", "only the iTag") { !$0.contains("Demo HRM") }
        try t.keys("Enter")
        try t.waitFor(text: "Alert Level", timeout: 10)
        #expect(!(try t.screen()).contains("FE59"))
        let control = try #require(fopen(fifo, "w"))
        defer { fclose(control) }
        fputs("gatt-change\n", control); fflush(control)
        let changed = try t.waitFor("the new service") { $0.contains("FE59") && $0.contains("Buttonless DFU") }
        #expect(changed.contains("The services of Demo iTag changed: 5 services now"), "\(changed)")
        #expect(changed.contains("Alert Level"))
        // In the new characteristic; then the service goes again, and the screen says so.
        try t.keys("G", "Enter")
        try t.waitFor(text: "Scan › Demo iTag › “Buttonless DFU”")
        fputs("gatt-change\n", control); fflush(control)
        let gone = try t.waitFor("back in the tree") { $0.contains("“Buttonless DFU” is gone") && !$0.contains("FE59") }
        #expect(gone.contains("Alert Level") && gone.contains("changed: 4 services now"), "\(gone)")
        // C clears bluetoothd's cache: asked, forgotten, and back by itself when heard again.
        try t.keys("C")
        try t.waitFor(text: "Clear bluetoothd's cache of Demo iTag")
        try t.keys("y")
        let back = try t.waitFor("connected again", timeout: 20) { $0.contains("Reconnected to Demo iTag") && $0.contains("● connected") }
        #expect(back.contains("Alert Level") && !back.contains("FE59"), "\(back)")
        try t.keys("q")
        try t.waitFor(text: "EXIT=0")
    }
}
