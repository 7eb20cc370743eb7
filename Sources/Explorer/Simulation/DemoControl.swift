@preconcurrency import Glibc

/// 100,000 a second: 750 notifications at each 7.5 ms connection event, far past what a
/// link carries; the limit keeps a typo from stalling the world.
let maxFloodRate = 100_000

public struct DemoControlError: Error, CustomStringConvertible { public let description: String }

/// `--demo-control FIFO`: lines "press" (the demo iTag's button), "drop" (the iTag ends
/// its link), "gatt-change" (the connected device's database changes) and "flood RATE"
/// (Demo Stream's flood sends RATE notifications a second, 0 pauses it), so tests and
/// benchmarks drive the demo world from outside.
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
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            switch (words.first ?? "", words.count) {
            case ("press", 1): sim.pressButton()
            case ("drop", 1): sim.dropButtonLink()
            case ("gatt-change", 1): sim.changeDatabase()
            case ("flood", 2):
                guard let rate = Int(words[1]), (0...maxFloodRate).contains(rate) else {
                    fputs("bleexplr: demo control: flood takes notifications a second, 0 to \(maxFloodRate) "
                          + "(not '\(TerminalSafe.text(String(words[1])))')\n", stderr)
                    continue
                }
                sim.setFloodRate(Double(rate))
            default:
                fputs("bleexplr: demo control: unknown command '\(TerminalSafe.text(line))' "
                      + "(press, drop, gatt-change, flood RATE)\n", stderr)
            }
        }
        if pending.count > 4096 { pending.removeAll() }
    }
}
