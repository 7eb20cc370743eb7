// bleexplr-bench: prints figures for speed and memory. Not a test: nothing here fails
// on a number; it reports them next to the targets. Run with `make bench` (release).
@preconcurrency import Glibc
import Explorer
import TUI

@MainActor func cpuSeconds() -> Double {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
}

func statusKiB(_ field: String) -> Int {
    guard let f = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, f) != nil {
        let s = String(cString: line)
        if s.hasPrefix(field + ":") {
            return Int(s.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
    }
    return -1
}

/// A state with `n` peripherals heard through the real reducer.
@MainActor func crowdedState(_ n: Int, now: Timestamp) -> AppState {
    var s = AppState(now: now)
    s.adapter = AdapterStatus(name: "sim0", power: .on, discovering: true)
    var rng = SeededRandom(seed: 1)
    for i in 0..<n {
        let id = PeripheralID("02:00:00:00:" + hex([UInt8(i >> 8 & 0xFF)]) + ":" + hex([UInt8(i & 0xFF)]))
        _ = Reducer.reduce(&s, .backend(.advertisementReceived(AdvertisementReport(
            id: id, address: id.rawValue, name: i % 3 == 0 ? "Sensor \(i)" : nil,
            rssi: Int(rng.uniform(-98, -40)), connectable: i % 2 == 0,
            advertisement: Advertisement(serviceUUIDs: i % 5 == 0 ? ["180D"] : [],
                                         manufacturerData: [UInt16(i % 7): [UInt8(i & 0xFF), 1, 2, 3]]))), at: now))
    }
    return s
}

/// CPU per frame, the median of three batches (a batch per figure would be at the mercy
/// of one busy moment of the machine).
@MainActor func msPerFrame(_ s: AppState, width: Int, height: Int, frames: Int) -> Double {
    var sink = 0
    _ = Router.render(s, width: width, height: height)   // warm: one-time tables, caches
    let batches = (0..<3).map { _ in
        let c0 = cpuSeconds()
        for _ in 0..<frames { sink &+= Router.render(s, width: width, height: height).cells.count }
        return (cpuSeconds() - c0) / Double(frames) * 1000
    }
    if sink == 42 { print("") }
    return batches.sorted()[1]
}

@MainActor func benchRender(_ report: Report) {
    let now = Timestamp(1_780_000_000)
    var perFrame: [Int: Double] = [:]
    for n in [100, 1000, 10_000] {
        let s = crowdedState(n, now: now)
        perFrame[n] = msPerFrame(s, width: 120, height: 40, frames: 200)
        report.figure("scan list render, \(n.formatted) peripherals, 120x40 (ms/frame)", perFrame[n]!, digits: 3,
                      atMost: n == 1000 ? 0.3 : n == 10_000 ? 1 : nil)
        if n == 1000 {
            report.figure("scan list render, 1,000 peripherals, 80x24 (ms/frame)", msPerFrame(s, width: 80, height: 24, frames: 200), digits: 3)
        }
    }
    report.ratio("  a frame with 10,000 peripherals / a frame with 100", perFrame[10_000]! / perFrame[100]!, atMost: 3)
}

extension Int {
    /// 10,000
    var formatted: String {
        let d = String(self)
        var out = ""
        for (i, c) in d.enumerated() {
            if i > 0, (d.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}

/// Bytes ncurses writes for a frame where one RSSI changed, vs a full frame.
@MainActor func benchBytes(_ report: Report) {
    let path = "/tmp/bleexplr-bench-\(getpid()).out"
    defer { unlink(path) }
    guard let out = fopen(path, "w") else { return }
    let now = Timestamp(1_780_000_000)
    var s = crowdedState(1000, now: now)
    do {
        let term = try Terminal(benchmarkOutput: out, width: 120, height: 40)
        term.draw(Router.render(s, width: 120, height: 40))
        fflush(out)
        let full = ftell(out)
        // One visible device's RSSI moves by 1 dB (it may swap places with a neighbour).
        let rows = ScanQuery.rows(s)
        let target = rows[3]
        let newRSSI = (target.rssi ?? -60) - 1
        _ = Reducer.reduce(&s, .backend(.advertisementReceived(AdvertisementReport(
            id: target.id, address: target.address, name: nil, rssi: newRSSI, connectable: nil,
            advertisement: Advertisement())), at: now))
        let cells = term.draw(Router.render(s, width: 120, height: 40))
        fflush(out)
        let delta = ftell(out) - full
        term.draw(Router.render(s, width: 120, height: 40))
        fflush(out)
        let none = ftell(out) - full - delta
        term.restore()
        report.text("bytes to the terminal: full first frame, 120x40", "\(full)")
        report.text("bytes to the terminal: one RSSI changed (cells written)", "\(delta) (\(cells) cells)", "~ the change")
        report.text("bytes to the terminal: nothing changed", "\(none)", "0")
    } catch {
        print("terminal benchmark skipped: \(error)")
    }
    fclose(out)
}

/// 10,000 advertisement/RSSI events through the store (reducer, observers) with frames
/// coalesced as the app's loop does: at most one every 1/30 s.
@MainActor func benchEvents(_ report: Report) {
    let start = Timestamp(1_780_000_000)
    let n = 10_000
    func event(_ i: Int, _ ids: [PeripheralID], _ rng: inout SeededRandom, at: Timestamp) -> Action {
        let id = ids[Int(rng.next() % UInt64(ids.count))]
        return .backend(.advertisementReceived(AdvertisementReport(
            id: id, address: id.rawValue, name: nil, rssi: Int(rng.uniform(-98, -40)), connectable: nil,
            advertisement: Advertisement(manufacturerData: [1: [UInt8(i & 0xFF), 1, 2, 3]]))), at: at)
    }

    // A burst, as fast as they come: frames by wall clock, like TUIApp.drawIfDue.
    do {
        let store = Store(state: crowdedState(1000, now: start))
        let ids = Array(store.state.peripherals.keys)
        var rng = SeededRandom(seed: 2)
        var frames = 0, lastFrame = -1.0
        let c0 = cpuSeconds(), w0 = monotonicSeconds()
        for i in 0..<n {
            store.send(event(i, ids, &rng, at: start + Double(i) * 1e-4))
            let now = monotonicSeconds()
            if now - lastFrame >= 1.0 / 30 {
                _ = Router.render(store.state, width: 120, height: 40)
                frames += 1
                lastFrame = now
            }
        }
        _ = Router.render(store.state, width: 120, height: 40)   // the frame after the burst
        frames += 1
        let total = cpuSeconds() - c0, wall = monotonicSeconds() - w0
        report.figure("10,000 adv events in a burst, 1,000 devices, reducer + frames (µs/event)", total / Double(n) * 1e6, atMost: 2)
        report.text("  frames drawn during the burst (\(formatFixed(wall * 1000, 1)) ms)", "\(frames)", "<= 30/s")
    }

    // Sustained: 2,000 events a second for 5 s of event time, a frame every 1/30 s of it,
    // in rooms of 10, 1,000 and 10,000 devices: the cost of an event must not grow with them.
    var perEvent: [Int: Double] = [:]
    for devices in [10, 1000, 10_000] {
        let store = Store(state: crowdedState(devices, now: start))
        let ids = Array(store.state.peripherals.keys)
        var rng = SeededRandom(seed: 3)
        let rate = 2_000.0
        var frames = 0, lastFrame = -1.0
        let c0 = cpuSeconds()
        for i in 0..<n {
            let at = start + Double(i) / rate
            store.send(event(i, ids, &rng, at: at))
            if at.seconds - lastFrame >= 1.0 / 30 {
                _ = Router.render(store.state, width: 120, height: 40)
                frames += 1
                lastFrame = at.seconds
            }
        }
        let total = cpuSeconds() - c0
        perEvent[devices] = total / Double(n) * 1e6
        report.figure("sustained 2,000 events/s, 30 frames/s, \(devices.formatted) devices: CPU per event (µs)", perEvent[devices]!)
        if devices == 1000 {
            report.text("  sustained: frames for 5 s of events", "\(frames) (\(formatFixed(Double(frames) / 5, 1))/s)", "<= 30/s")
            report.figure("  sustained: CPU load of 2,000 events/s, 1,000 devices (%)", total / 5 * 100)
        }
    }
    report.ratio("  CPU per event with 1,000 devices / with 10", perEvent[1000]! / perEvent[10]!, atMost: 1.5)
}

/// Resident memory after `events` reports from `devices` peripherals, recorded to a file.
/// Run in a child process (`memory-child DEVICES EVENTS`), so that what the other sections
/// allocated does not count: it prints "RSS_KIB PEAK_KIB RECORDING_BYTES".
@MainActor func memoryChild(devices: Int, events: Int) {
    let start = Timestamp(1_780_000_000)
    let store = Store(state: crowdedState(devices, now: start))
    let path = "/tmp/bleexplr-bench-\(getpid()).jsonl"
    defer { unlink(path) }
    guard let recorder = try? Recorder(path: path, header: .init(started: start, backend: "simulated", adapter: "sim0", seed: 1)) else {
        print("cannot record to \(path)"); return
    }
    store.observers.append { action, store in
        if let line = RecordingFormat.line(for: action, state: store.state) { recorder.append(line) }
    }
    let rows = Array(store.state.peripherals.keys)
    for i in 0..<events {
        let id = rows[i % rows.count]
        store.send(.backend(.advertisementReceived(AdvertisementReport(
            id: id, address: id.rawValue, name: nil, rssi: -50 - i % 40, connectable: nil,
            advertisement: Advertisement(manufacturerData: [0x59: [UInt8(i & 0xFF), 1, 2, 3]]))),
                           at: start + Double(i) / 1000))
        if i % 64 == 0 { try? recorder.flush() }
    }
    try? recorder.close()
    var st = stat()
    stat(path, &st)
    print(statusKiB("VmRSS"), statusKiB("VmHWM"), st.st_size)
}

@MainActor func benchMemory(_ report: Report) {
    for (devices, events, target) in [(1000, 100_000, 25.0), (10_000, 1_000_000, 64.0)] {
        guard let p = popen("'\(CommandLine.arguments[0])' memory-child \(devices) \(events)", "r") else { continue }
        var buf = [CChar](repeating: 0, count: 256)
        let out = fgets(&buf, 256, p) != nil ? String(cString: buf) : ""
        pclose(p)
        let f = out.split(separator: " ").compactMap { Double($0.trimmingSpaces()) }
        guard f.count == 3 else { report.text("resident memory: \(devices.formatted) devices", "failed: \(out)"); continue }
        let name = "resident memory: \(devices.formatted) devices, \(events.formatted) events recorded (MiB)"
        report.figure(name, f[1] / 1024, digits: 1, atMost: target)
        report.text("  recording size for \(events.formatted) events (MiB)", formatFixed(f[2] / 1048576, 1))
    }
}

/// CPU of the real binary idling in a terminal (tmux) for 10 s: scan off, and scan on
/// with the demo world's ten devices advertising.
@MainActor func benchIdle(_ report: Report) {
    let binary = CommandLine.arguments[0].replacingSuffix("bleexplr-bench", with: "bleexplr")
    guard access(binary, X_OK) == 0, access("/usr/bin/tmux", X_OK) == 0 else {
        print("idle CPU skipped: needs \(binary) and tmux"); return
    }
    let socket = "bxbench\(getpid())"
    func tmux(_ args: [String]) -> String {
        let cmd = (["/usr/bin/tmux", "-L", socket] + args).map { "'\($0)'" }.joined(separator: " ")
        guard let p = popen(cmd + " 2>/dev/null </dev/null", "r") else { return "" }
        var out = "", buf = [CChar](repeating: 0, count: 512)
        while fgets(&buf, 512, p) != nil { out += String(cString: buf) }
        pclose(p)
        return out.trimmingSpacesAndNewlines()
    }
    func cpuTicks(_ pid: String) -> Double {
        guard let f = fopen("/proc/\(pid)/stat", "r") else { return 0 }
        defer { fclose(f) }
        var buf = [CChar](repeating: 0, count: 1024)
        fgets(&buf, 1024, f)
        let s = String(cString: buf)
        guard let close = s.lastIndex(of: ")") else { return 0 }
        let fields = s[s.index(after: close)...].split(separator: " ")
        return (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
    }
    _ = tmux(["new-session", "-d", "-x", "120", "-y", "40", "exec \(binary) --demo"])
    defer { _ = tmux(["kill-server"]) }
    usleep(1_500_000)
    let pid = tmux(["display-message", "-p", "#{pane_pid}"])
    let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
    func measure(_ seconds: Double) -> Double {
        let t0 = cpuTicks(pid)
        usleep(UInt32(seconds * 1e6))
        return (cpuTicks(pid) - t0) / hz / seconds * 100
    }
    let busy = measure(10)
    _ = tmux(["send-keys", "s"])
    usleep(500_000)
    let idle = measure(10)
    // The process's CPU time is counted in clock ticks: over 10 s one tick is 0.1 % at 100 Hz, and
    // the idle figure is a few of them, so two ticks more than the README's is not a regression.
    report.figure("CPU, real binary in tmux, 10 s, scan off (idle, %)", idle, atMost: 1, resolution: 2 * 100 / hz / 10)
    report.figure("CPU, real binary in tmux, 10 s, scanning 10 demo devices (%)", busy)
}

extension String {
    func replacingSuffix(_ suffix: String, with other: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + other : self
    }
    func trimmingSpacesAndNewlines() -> String {
        var s = Substring(self)
        while let l = s.last, l == "\n" || l == " " { s.removeLast() }
        return String(s)
    }
}

setvbuf(stdout, nil, _IOLBF, 0)
// `bleexplr-bench render events` runs only those sections (to profile one); none runs all.
let sections: [(String, @MainActor (Report) -> Void)] = [
    ("render", benchRender), ("bytes", benchBytes), ("events", benchEvents), ("memory", benchMemory),
    ("latency", benchLatency), ("flood", benchFlood), ("stream", benchStream), ("idle", benchIdle),
]
let arguments = Array(CommandLine.arguments.dropFirst())
MainActor.assumeIsolated {
    if arguments.first == "memory-child", arguments.count == 3, let d = Int(arguments[1]), let e = Int(arguments[2]) {
        memoryChild(devices: d, events: e)
        return
    }
    print("bleexplr-bench \(BleexplrVersion.current) (build: \(_isDebugAssertConfiguration() ? "debug" : "release"))")
    let report = Report()
    for (name, run) in sections where arguments.isEmpty || arguments.contains(name) { run(report) }
    report.finish()
}
