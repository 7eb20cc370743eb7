@preconcurrency import Glibc

public struct DemoControlError: Error, CustomStringConvertible { public let description: String }

/// `--demo-control FIFO`: lines "press" (the demo iTag's button) and "drop" (the iTag
/// ends its link), so tests drive the demo world from outside.
@MainActor
public func openDemoControl(_ path: String, loop: EventLoop, sim: SimulatedBackend) throws(DemoControlError) {
    if access(path, F_OK) != 0, mkfifo(path, 0o600) != 0 {
        throw DemoControlError(description: "cannot create the FIFO \(path): \(String(cString: strerror(errno)))")
    }
    // Read-write, so the FIFO never reports end-of-file when a writer closes it.
    let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { throw DemoControlError(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
    var pending: [UInt8] = []
    loop.addReader(fd: fd) {
        var buf = [UInt8](repeating: 0, count: 512)
        while true {
            let n = read(fd, &buf, buf.count)
            if n <= 0 { break }
            pending += buf[0..<n]
        }
        while let nl = pending.firstIndex(of: 0x0A) {
            let line = String(decoding: pending[..<nl], as: UTF8.self).trimmingCharacters(in: " \r")
            pending.removeSubrange(...nl)
            switch line {
            case "press": sim.pressButton()
            case "drop": sim.dropButtonLink()
            case "gatt-change": sim.changeDatabase()
            default: fputs("bleexplr: demo control: unknown command '\(TerminalSafe.text(line))' (press, drop, gatt-change)\n", stderr)
            }
        }
        if pending.count > 4096 { pending.removeAll() }
    }
}
