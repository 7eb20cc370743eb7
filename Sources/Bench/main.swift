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

func row(_ what: String, _ value: String, _ target: String) {
    func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
    print("| \(pad(what, 58)) | \(pad(value, 22)) | \(pad(target, 16)) |")
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

@MainActor func benchRender() {
    let now = Timestamp(1_780_000_000)
    let s = crowdedState(1000, now: now)
    let frames = 300
    var sink = 0
    let c0 = cpuSeconds()
    for _ in 0..<frames { sink &+= Router.render(s, width: 120, height: 40).cells.count }
    let perFrame = (cpuSeconds() - c0) / Double(frames) * 1000
    row("scan list render, 1,000 peripherals, 120x40 (ms/frame)", formatFixed(perFrame, 3), "<= 1 ms")
    let c1 = cpuSeconds()
    for _ in 0..<frames { sink &+= Router.render(s, width: 80, height: 24).cells.count }
    row("scan list render, 1,000 peripherals, 80x24 (ms/frame)", formatFixed((cpuSeconds() - c1) / Double(frames) * 1000, 3), "<= 1 ms")
    if sink == 42 { print("") }
}

/// Bytes ncurses writes for a frame where one RSSI changed, vs a full frame.
@MainActor func benchBytes() {
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
        row("bytes to the terminal: full first frame, 120x40", "\(full)", "")
        row("bytes to the terminal: one RSSI changed (cells written)", "\(delta) (\(cells) cells)", "~ the change")
        row("bytes to the terminal: nothing changed", "\(none)", "0")
    } catch {
        print("terminal benchmark skipped: \(error)")
    }
    fclose(out)
}

/// 10,000 advertisement/RSSI events through the store (reducer, observers) with frames
/// coalesced as the app's loop does: at most one every 1/30 s.
@MainActor func benchEvents() {
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
        row("10,000 adv events in a burst, 1,000 devices, reducer + frames (µs/event)",
            formatFixed(total / Double(n) * 1e6, 2), "<= 2 µs")
        row("  frames drawn during the burst (\(formatFixed(wall * 1000, 1)) ms)", "\(frames)", "<= 30/s")
    }

    // Sustained: 2,000 events a second for 5 s of event time, a frame every 1/30 s of it.
    do {
        let store = Store(state: crowdedState(1000, now: start))
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
        row("  sustained 2,000 events/s, 30 frames/s: CPU per event (µs)", formatFixed(total / Double(n) * 1e6, 2), "")
        row("  sustained: frames for 5 s of events", "\(frames) (\(formatFixed(Double(frames) / 5, 1))/s)", "<= 30/s")
        row("  sustained: CPU load of 2,000 events/s (%)", formatFixed(total / 5 * 100, 2), "")
    }
}

/// Resident memory with 1,000 peripherals and 100,000 events recorded to a file.
@MainActor func benchMemory() {
    let start = Timestamp(1_780_000_000)
    let store = Store(state: crowdedState(1000, now: start))
    let path = "/tmp/bleexplr-bench-\(getpid()).jsonl"
    defer { unlink(path) }
    guard let recorder = try? Recorder(path: path, header: .init(started: start, backend: "simulated", adapter: "sim0", seed: 1)) else {
        print("cannot record to \(path)"); return
    }
    store.observers.append { action, store in
        if let line = RecordingFormat.line(for: action, state: store.state) { recorder.append(line) }
    }
    let rows = Array(store.state.peripherals.keys)
    for i in 0..<100_000 {
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
    row("resident memory: 1,000 devices, 100,000 events recorded (MiB)",
        formatFixed(Double(statusKiB("VmRSS")) / 1024, 1) + " (peak " + formatFixed(Double(statusKiB("VmHWM")) / 1024, 1) + ")",
        "<= 25 MiB")
    row("  recording size for 100,000 events (MiB)", formatFixed(Double(st.st_size) / 1048576, 1), "")
}

/// CPU of the real binary idling in a terminal (tmux) for 10 s: scan off, and scan on
/// with the demo world's ten devices advertising.
@MainActor func benchIdle() {
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
    row("CPU, real binary in tmux, 10 s, scan off (idle)", formatFixed(idle, 2) + " %", "< 1 %")
    row("CPU, real binary in tmux, 10 s, scanning 10 demo devices", formatFixed(busy, 2) + " %", "")
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
print("bleexplr-bench \(BleexplrVersion.current) (build: \(_isDebugAssertConfiguration() ? "debug" : "release"))")
print("| figure | value | target |")
print("|---|---|---|")
MainActor.assumeIsolated {
    benchRender()
    benchBytes()
    benchEvents()
    benchMemory()
    benchIdle()
}
