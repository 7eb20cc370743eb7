@preconcurrency import Glibc
import Explorer

/// The real binary on a pty, recording, subscribed to Demo Stream's flood (5,000 numbered
/// notifications a second: SimulatedFlood.swift): what a notification costs it, a key to
/// the frame that answers it and `q` to its exit under the flood, and whether the recording
/// holds every notification the demo says it sent (the values carry their numbers).
@MainActor func benchFlood(_ report: Report) {
    let binary = CommandLine.arguments[0].replacingSuffix("bleexplr-bench", with: "bleexplr")
    guard access(binary, X_OK) == 0 else { print("flood skipped: needs \(binary)"); return }
    var template = Array("/tmp/bleexplr-flood-XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else { print("flood skipped: no temporary folder"); return }
    let folder = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let recording = folder + "/flood.jsonl"
    defer { unlink(recording); rmdir(folder) }
    guard let app = PtyApp(binary, ["--demo", "--record", recording]) else { print("flood skipped: no pty"); return }
    defer { app.kill() }
    let name = "5,000 notifications/s, recording"
    func failed(_ why: String) { report.text("\(name): key to its frame, q to exit, lost", "failed: \(why)") }

    // Demo Stream: the list filtered to it, connected, its flood characteristic opened.
    guard app.waitFor("Demo Stream") != nil else { return failed("no Demo Stream in the list") }
    app.type("/Demo Stream\r")
    app.drain(for: 0.5)
    app.type("\r")
    guard app.waitFor("Flood (numbered", timeout: 10) != nil else { return failed("Demo Stream did not connect") }
    app.drain(for: 0.3)
    app.type("jjjj\r")   // Data, Data in, the Flood service, Flood
    guard app.waitFor("Client Characteristic Configuration", timeout: 3) != nil else { return failed("no flood characteristic") }
    // The app's own load before the flood (the demo's devices advertising, the clock), to
    // take from the load under it.
    app.drain(for: 0.5)
    let idle = cpuOf(app.pid, over: 3) { app.drain(for: $0) }.load
    app.type("n")
    guard app.waitFor("Notifications on", timeout: 3) != nil else { return failed("notifications did not start") }
    app.drain(for: 1)

    let before = lastSequence(recording)
    let (load, window) = cpuOf(app.pid, over: 5) { app.drain(for: $0) }
    let heard = lastSequence(recording) - before
    let keys = keyToFrame(app, times: 5)
    app.type("q")
    let quit = app.waitForExit()
    let sent = sentByDemo(app.output)
    let numbers = floodNumbers(recording)

    if heard > 0 {
        report.figure("CPU per notification, \(name) (µs)", (load - idle) * window / Double(heard) * 1e6)
        report.figure("  CPU load under the flood, scanning as well (%)", load * 100, digits: 1)
        report.text("  notifications a second in the recording", formatFixed(Double(heard) / window, 0), "5000")
    } else {
        report.text("CPU per notification, \(name) (µs)", "failed: no notification recorded")
    }
    if keys.count == 5 {
        report.figure("key to the frame that answers it, \(name) (ms)", keys.sorted()[2] * 1000, digits: 1, atMost: 100)
    } else {
        report.text("key to the frame that answers it, \(name) (ms)", "failed (\(keys.count) of 5)")
    }
    if let quit {
        report.figure("q to exit, \(name) (ms)", quit * 1000, digits: 1, atMost: 100)
    } else {
        report.text("q to exit, \(name) (ms)", "did not exit in 5 s")
    }
    guard let sent else { return report.text("notifications lost by the recording, 5,000/s", "failed: the demo did not say") }
    let recorded = numbers.distinct.filter { $0 >= 1 && $0 <= sent }.count
    report.figure("notifications lost by the recording, 5,000/s", Double(sent - recorded), digits: 0, atMost: 0)
    var note = "\(sent.formatted) / \(recorded.formatted)"
    let beyond = numbers.distinct.count - recorded
    if numbers.repeated > 0 || beyond > 0 { note += ", \(numbers.repeated) twice, \(beyond) never sent" }
    report.text("  sent by the demo / numbers in the recording", note, "equal")
}

/// A key (`?`, the help) to the frame that shows it, `times` times, in seconds.
@MainActor private func keyToFrame(_ app: PtyApp, times: Int) -> [Double] {
    var keys: [Double] = []
    for _ in 0..<times {
        app.type("?")
        if let t = app.waitFor(" Keys ", timeout: 3) { keys.append(t) }
        app.type("\u{1B}")
        app.drain(for: 0.5)
    }
    return keys
}

/// The share of a core `pid` used while `wait` runs for `seconds`, and the seconds it took.
@MainActor private func cpuOf(_ pid: pid_t, over seconds: Double, _ wait: (Double) -> Void) -> (load: Double, seconds: Double) {
    let c0 = cpuTicks(pid), t0 = monotonicSeconds()
    wait(seconds)
    let elapsed = monotonicSeconds() - t0
    return ((cpuTicks(pid) - c0) / Double(sysconf(Int32(_SC_CLK_TCK))) / elapsed, elapsed)
}

/// utime + stime of a process, in clock ticks.
func cpuTicks(_ pid: pid_t) -> Double {
    guard let f = fopen("/proc/\(pid)/stat", "r") else { return 0 }
    defer { fclose(f) }
    var buf = [CChar](repeating: 0, count: 1024)
    guard fgets(&buf, 1024, f) != nil else { return 0 }
    let s = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let close = s.lastIndex(of: ")") else { return 0 }
    let fields = s[s.index(after: close)...].split(separator: " ")
    return (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
}

/// "bleexplr demo: Demo Stream's flood sent N notifications, ..." on the app's way out.
private func sentByDemo(_ output: String) -> Int? {
    guard let r = output.firstRange(of: "flood sent ") else { return nil }
    return Int(output[r.upperBound...].prefix { $0.isNumber })
}

/// The flood's number in a recording line, nil for any other line.
private func floodNumber(_ line: Substring) -> Int? {
    guard line.contains("\"type\":\"notification\""),
          line.contains(SimulatedWorld.floodCharacteristic.canonical.lowercased()),
          let r = line.firstRange(of: "\"hex\":\"") else { return nil }
    let hex = line[r.upperBound...].prefix { $0 != "\"" }
    guard let bytes = parseHex(String(hex)) else { return nil }
    return SimulatedWorld.floodSequence(bytes)
}

/// The number of the newest flood notification in the recording (the app flushes it before
/// every wait, so it is at most one turn of the loop behind).
private func lastSequence(_ path: String) -> Int {
    guard let f = fopen(path, "r") else { return 0 }
    defer { fclose(f) }
    fseek(f, 0, SEEK_END)
    let size = ftell(f)
    fseek(f, max(0, size - 65536), SEEK_SET)
    var bytes = [UInt8](repeating: 0, count: 65536)
    let n = fread(&bytes, 1, bytes.count, f)
    let text = String(decoding: bytes[..<n], as: UTF8.self)
    for line in text.split(separator: "\n").reversed() { if let seq = floodNumber(line) { return seq } }
    return 0
}

/// The numbers of the flood's notifications in the recording, and how many came twice.
private func floodNumbers(_ path: String) -> (distinct: Set<Int>, repeated: Int) {
    guard let f = fopen(path, "r") else { return ([], 0) }
    defer { fclose(f) }
    var seen = Set<Int>(), repeated = 0
    var line: UnsafeMutablePointer<CChar>? = nil
    var capacity = 0
    defer { free(line) }
    while getline(&line, &capacity, f) > 0, let line {
        guard let seq = floodNumber(Substring(String(cString: line))) else { continue }
        if !seen.insert(seq).inserted { repeated += 1 }
    }
    return (seen, repeated)
}
