/// A region's on-enter or on-exit command: run with the transition in BLE_* variables
/// (BLE_REGION, BLE_EVENT, BLE_TIME, and the beacon's BLE_ADDRESS, BLE_MAJOR, BLE_MINOR,
/// BLE_RSSI), reported in one line (its last line of output) and whether it went wrong.
public enum RegionCommand {
    @MainActor
    public static func run(_ command: String, _ t: RegionTransition, loop: EventLoop,
                           report: @escaping @MainActor (String, Bool) -> Void) {
        var env = [("BLE_REGION", t.region), ("BLE_EVENT", t.kind.rawValue), ("BLE_TIME", t.at.iso8601)]
        if let b = t.beacon {
            env += [("BLE_ADDRESS", b.address), ("BLE_MAJOR", String(b.major)), ("BLE_MINOR", String(b.minor)),
                    ("BLE_RSSI", b.rssi.map(String.init) ?? "")]
        }
        ChildProcess.run(["/bin/sh", "-c", command], environment: env, loop: loop, timeout: 60) { status, output in
            let last = output.split(separator: "\n").last.map { TerminalSafe.text(String($0.prefix(120))) } ?? ""
            let name = "\(t.kind == .enter ? "--on-enter" : "--on-exit") for \(t.region)"
            switch status {
            case .exited(0): report("\(name): exit 0" + (last.isEmpty ? "" : ": " + last), false)
            case let .exited(code): report("\(name): exit \(code)" + (last.isEmpty ? "" : ": " + last), true)
            case let .signalled(sig): report("\(name): killed by signal \(sig)", true)
            case .timedOut: report("\(name): still running after 60 s, killed", true)
            case let .failedToStart(why): report("\(name): \(why)", true)
            }
        }
    }
}
