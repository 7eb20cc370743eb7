import TestSupport
import Foundation
import Testing

/// A process running in the background (posix_spawn), its output in a file.
final class Background {
    let pid: pid_t
    let outPath: String

    /// `blocked`: signals the child starts with blocked (none by default).
    init(_ path: String, _ args: [String], env: [String: String] = [:], blocked: [Int32] = []) throws {
        outPath = tempPath("bg-out")
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in env { environment[k] = v }
        pid = try startProcess(path, args, output: outPath, env: environment.map { "\($0.key)=\($0.value)" }, blocked: blocked)
    }

    var output: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }

    /// Waits until the output satisfies `condition`.
    func waitFor(_ what: String, timeout: Double = 20, _ condition: (String) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(output) { return }
            usleep(100_000)
        }
        throw E2EError("timed out waiting for \(what); output:\n\(output)")
    }

    private var exitCode: Int32?

    /// Sends `sig` and reaps the process; SIGKILL after 10 s if it has not gone.
    @discardableResult
    func stop(_ sig: Int32 = SIGTERM) -> Int32 {
        if let exitCode { return exitCode }
        kill(pid, sig)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(10)
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno != EINTR) { break }
            if Date() > deadline { kill(pid, SIGKILL) }
            usleep(20_000)
        }
        let code = shellExitCode(status)
        exitCode = code
        return code
    }

    /// A failed test never leaves its child running (it would hold the runner's pipes open).
    deinit { stop(SIGKILL); unlink(outPath) }
}

/// The local HTTP server the hook tests post to (Tests/tools/http_sink.py).
final class HTTPSink {
    let process: Background
    let log = tempPath("sink-log")
    let port: Int

    init(failFirst: Int = 0) throws {
        let portFile = tempPath("sink-port")
        let script = Tmux.packageRoot.appendingPathComponent("Tests/tools/http_sink.py").path
        process = try Background("/usr/bin/python3", [script, "--log", log, "--port-file", portFile, "--fail-first", String(failFirst)])
        let deadline = Date().addingTimeInterval(10)
        var p: Int?
        while p == nil, Date() < deadline {
            p = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            if p == nil { usleep(50_000) }
        }
        unlink(portFile)
        guard let p else { throw E2EError("the HTTP sink did not start: \(process.output)") }
        port = p
    }

    var requests: [[String: Any]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    deinit { process.stop(); unlink(log) }
}

@Suite("Hooks and regions, end to end", .serialized)
struct HooksEndToEndTests {
    static let itag = "FC:58:FA:1A:2B:3C"
    static let body = #"{"app": 7, "record": {"アイテム": {"value": "会議室A：ホワイトボードマーカー（黒）"}, "数量": {"value": "2"}, "押下": {"value": "{{hex}}"}, "seq": {"value": "{{seq}}"}}}"#

    func seqs(_ requests: [[String: Any]], status: Int) -> [Int] {
        requests.filter { $0["status"] as? Int == status }.compactMap { r -> Int? in
            guard let body = r["body"] as? String,
                  let o = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                  let rec = o["record"] as? [String: Any], let s = rec["seq"] as? [String: Any] else { return nil }
            return Int(s["value"] as? String ?? "")
        }
    }

    /// Every notification the watcher received reaches the server, in order, across two
    /// answers of 500 and a dropped link; the kintone body's Japanese goes through
    /// untouched; the token is sent but never printed or recorded.
    @Test func watchPostsEveryPressAcrossRetriesAndALinkDrop() throws {
        let sink = try HTTPSink(failFirst: 2)
        let fifo = tempPath("ctl"), queue = tempPath("queue"), record = tempPath("rec")
        defer { unlink(fifo); unlink(queue); unlink(record) }
        let token = "tok-\(getpid())-secret"
        let watch = try Background(Tmux.binary, [
            "--demo", "--demo-control", fifo, "--record", record,
            "watch", Self.itag, "FFE1", "--post", "http://127.0.0.1:\(sink.port)/k/v1/record.json",
            "--header", "X-Cybozu-API-Token: ${KINTONE_TOKEN}", "--body", Self.body, "--queue", queue,
        ], env: ["KINTONE_TOKEN": token])
        try watch.waitFor("the subscription") { $0.contains("subscribed to FFE1") }
        let control = fopen(fifo, "w")
        defer { fclose(control) }
        func send(_ line: String) { fputs(line + "\n", control); fflush(control) }
        send("press"); usleep(300_000); send("press")
        usleep(500_000)
        send("drop")
        try watch.waitFor("the reconnection") { $0.components(separatedBy: "subscribed to FFE1").count >= 3 }
        send("press")
        try watch.waitFor("delivery of every event", timeout: 30) { out in
            let queued = out.components(separatedBy: " queued ").count - 1
            return queued >= 3 && out.components(separatedBy: " delivered: HTTP 201").count - 1 == queued
        }
        #expect(watch.stop() == 0)
        let out = watch.output
        #expect(out.contains("link lost: remote device ended the connection"))
        #expect(out.contains("attempt 1 failed: HTTP 500; retrying in 1 s"))

        // What the watcher heard (the recording) is exactly what the server accepted, in order.
        let rec = try String(contentsOfFile: record, encoding: .utf8)
        let heard = rec.split(separator: "\n").filter { $0.contains("\"type\":\"notification\"") && $0.contains("0000ffe1") }.count
        let accepted = seqs(sink.requests, status: 201)
        #expect(heard >= 3)
        #expect(accepted == Array(1...heard))
        #expect(seqs(sink.requests, status: 500) == [1, 1])
        let first = try #require(sink.requests.first)
        let headers = try #require(first["headers"] as? [String: String])
        #expect(headers.first { $0.key.lowercased() == "x-cybozu-api-token" }?.value == token)
        #expect((first["body"] as? String)?.contains("会議室A：ホワイトボードマーカー（黒）") == true)
        #expect(!out.contains(token) && !rec.contains(token))
        #expect(rec.contains("\"type\":\"hook\""))
    }

    /// Killed while the server is down, restarted with the server up: the events kept on
    /// disk are delivered, once each, numbered on from where the first run stopped.
    @Test func watchKilledAndRestartedLosesNothing() throws {
        let fifo = tempPath("ctl"), queue = tempPath("queue")
        defer { unlink(fifo); unlink(queue) }
        let down = try HTTPSink(failFirst: 1000)
        var watch = try Background(Tmux.binary, ["--demo", "--demo-control", fifo, "watch", Self.itag, "FFE1",
                                                 "--post", "http://127.0.0.1:\(down.port)/", "--body", Self.body, "--queue", queue])
        try watch.waitFor("the subscription") { $0.contains("subscribed to FFE1") }
        let control = fopen(fifo, "w")
        defer { fclose(control) }
        for _ in 0..<3 { fputs("press\n", control); fflush(control); usleep(200_000) }
        try watch.waitFor("three queued events") { $0.contains("#3 queued") }
        watch.stop(SIGKILL)

        let up = try HTTPSink()
        // This time the token comes from a secrets file (mode 600), CRLF line ends and all.
        let secrets = tempPath("secrets")
        defer { unlink(secrets) }
        FileManager.default.createFile(atPath: secrets, contents: Data("# kintone\nTOK=from-file\r\n".utf8), attributes: [.posixPermissions: 0o600])
        watch = try Background(Tmux.binary, ["--demo", "--secrets", secrets, "watch", Self.itag, "FFE1", "--header", "X-Token: ${TOK}",
                                             "--post", "http://127.0.0.1:\(up.port)/", "--body", Self.body, "--queue", queue])
        try watch.waitFor("the backlog", timeout: 20) { $0.contains("#3 delivered") }
        #expect(watch.output.contains("events from an earlier run to deliver"))
        usleep(300_000)
        #expect(watch.stop() == 0)
        let delivered = seqs(up.requests, status: 201)
        let headers = up.requests.first?["headers"] as? [String: String] ?? [:]
        #expect(headers.first { $0.key.lowercased() == "x-token" }?.value == "from-file")
        #expect(Array(delivered.prefix(while: { $0 <= 3 })) == [1, 2, 3] || delivered.starts(with: [1, 2, 3]))
        #expect(Set(delivered).count == delivered.count)
        #expect(delivered.sorted() == delivered)
    }

    @Test func watchRunsACommandWithTheValueInItsEnvironment() throws {
        let fifo = tempPath("ctl"), queue = tempPath("queue"), out = tempPath("cmd-out")
        defer { unlink(fifo); unlink(queue); unlink(out) }
        let watch = try Background(Tmux.binary, ["--demo", "--demo-control", fifo, "watch", Self.itag, "FFE1",
                                                 "--exec", "echo \"$BLE_SEQ $BLE_HEX $BLE_ADDRESS\" >> \(out)", "--queue", queue, "--json"])
        try watch.waitFor("the subscription") { $0.contains("subscribed to FFE1") }
        let control = fopen(fifo, "w")
        fputs("press\n", control); fclose(control)
        try watch.waitFor("the command") { $0.contains("\"event\":\"hook\",\"seq\":1,\"message\":\"#1 delivered: exit 0\"") }
        watch.stop()
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "1 01 \(Self.itag)")
    }

    /// The demo's porch beacon lingers at the region's edge for 16 s: one enter, one exit.
    @Test func monitorEntersOnceAndLeavesOnceAtTheEdge() throws {
        let marks = tempPath("marks"), record = tempPath("rec")
        defer { unlink(marks); unlink(record) }
        let (code, text) = try spawn(Tmux.binary, [
            "--demo", "--record", record, "monitor", "--exit-after", "3", "--duration", "34", "--json",
            "--on-enter", "echo \"$BLE_EVENT $BLE_REGION $BLE_MAJOR\" >> \(marks)",
            "--on-exit", "echo \"$BLE_EVENT $BLE_REGION\" >> \(marks)",
        ])
        #expect(code == 0)
        let events = text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(events.map { $0["event"] as? String } == ["enter", "exit"])
        #expect(events.allSatisfy { $0["region"] as? String == "Porch" })
        #expect(try String(contentsOfFile: marks, encoding: .utf8) == "enter Porch 7\nexit Porch\n")
        let rec = try String(contentsOfFile: record, encoding: .utf8)
        #expect(rec.components(separatedBy: "\"type\":\"region\"").count - 1 == 2)
    }

    /// In the app: `b` shows the demo's Porch region going inside; `a` on the iTag's
    /// button characteristic runs a command on each press, and the screen counts it.
    @Test func theAppShowsRegionsAndRunsAnAttachedHook() throws {
        let fifo = tempPath("ctl"), marks = tempPath("marks")
        defer { unlink(fifo); unlink(marks) }
        let t = try Tmux("action", command: wrapped("--demo --demo-control \(fifo)"))
        try t.waitFor(text: "Demo iTag")
        try t.keys("b")
        try t.waitFor(text: "Scan › Regions")
        let inside = try t.waitFor("the porch region inside", timeout: 15) { $0.contains("● Porch  INSIDE since") }
        #expect(inside.contains("7C:9E:BD:4F:10:77"))
        #expect(inside.contains("⌂ Porch"))
        try t.keys("b")
        try t.filterScanList("iTag", "only the iTag") { !$0.contains("Demo HRM") }
        try t.keys("Enter")
        try t.waitFor(text: "iTag Button Press", timeout: 10)
        try t.keys("j", "Enter")
        try t.waitFor(text: "Scan › Demo iTag › iTag Button Press")
        try t.keys("a")
        try t.literal("exec echo \"$BLE_SEQ $BLE_HEX\" >> \(marks)")
        try t.keys("Enter")
        try t.waitFor(text: "Notify on")
        try t.waitFor(text: "fired, ")
        let control = fopen(fifo, "w")
        defer { fclose(control) }
        for _ in 0..<2 { fputs("press\n", control); fflush(control); usleep(400_000) }
        // The demo tag is also pressed now and then by itself: count what the screen says.
        func counts(_ screen: String) -> (fired: Int, delivered: Int)? {
            guard let line = screen.split(separator: "\n").first(where: { $0.contains(" Hook ") }),
                  let r = line.firstMatch(of: /(\d+) fired, (\d+) delivered/) else { return nil }
            return (Int(r.1)!, Int(r.2)!)
        }
        func lines() -> [String] {
            ((try? String(contentsOfFile: marks, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        let screen = try t.waitFor("two presses delivered", timeout: 10) { s in
            guard let c = counts(s) else { return false }
            return c.fired >= 2 && c.fired == c.delivered && lines().count == c.delivered
        }
        let n = try #require(counts(screen)).fired
        #expect(screen.contains("↯\(n) fired"))
        #expect(lines() == (1...n).map { "\($0) 01" })
        // `a` again, "off": detached; presses no longer run anything.
        try t.keys("a", "C-u")
        try t.literal("off")
        try t.keys("Enter")
        try t.waitFor(text: "Hook detached")
        func values(_ s: String) -> Int { s.firstMatch(of: /HISTORY (\d+) value/).map { Int($0.1)! } ?? 0 }
        let before = values(try t.screen())
        fputs("press\n", control); fflush(control)
        try t.waitFor("the press after detaching") { values($0) > before }
        usleep(500_000)
        #expect(lines().count == n)
        // A server that is not there: the event waits, and quitting says it was not delivered.
        try t.keys("a", "C-u")
        try t.literal("post http://127.0.0.1:9/press")
        try t.keys("Enter")
        try t.waitFor(text: "Hook     ↯ POST http://127.0.0.1:9/press")
        fputs("press\n", control); fflush(control)
        try t.waitFor(text: "cannot connect to the server; retrying")
        try t.keys("q")
        try DemoEndToEndTests.expectRestored(t, exit: 0)
        #expect(try t.screen().contains("hook event(s) were not delivered before quitting"))
    }

    /// Started with SIGTERM blocked (the mask survives exec), it still hears SIGTERM.
    @Test func aBlockedTerminationSignalIsUnblocked() throws {
        let queue = tempPath("queue")
        defer { unlink(queue) }
        let p = try Background(Tmux.binary, ["--demo", "watch", Self.itag, "FFE1", "--exec", "true", "--queue", queue],
                               blocked: [SIGTERM, SIGINT, SIGHUP])
        try p.waitFor("the subscription") { $0.contains("subscribed to FFE1") }
        let started = Date()
        let code = p.stop()
        #expect(code != 128 + SIGKILL, "it ignored SIGTERM until killed")
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test func badActionArgumentsGetOneClearLine() throws {
        var (code, out) = try spawn(Tmux.binary, ["--demo", "watch", Self.itag, "FFE1"])
        #expect(code == 2 && out.hasPrefix("bleexplr: watch takes one of --exec CMD or --post URL"))
        (code, out) = try spawn(Tmux.binary, ["--demo", "watch", Self.itag, "FFE1", "--post", "http://x/", "--body", "{{nope}}"])
        #expect(code == 2 && out.contains("unknown placeholder {{nope}}"))
        (code, out) = try spawn(Tmux.binary, ["--demo", "watch", Self.itag, "FFE1", "--post", "http://x/", "--header", "Authorization: Bearer ${UNSET_\(getpid())}"])
        #expect(code == 2 && out.contains("no value for ${UNSET_"))
        (code, out) = try spawn(Tmux.binary, ["--demo", "watch", Self.itag, "2A06", "--exec", "true", "--queue", tempPath("q")])
        #expect(code == 1 && out.contains("2A06 on FC:58:FA:1A:2B:3C neither notifies nor indicates"))
        (code, out) = try spawn(Tmux.binary, ["--demo", "--eom", "", "scan"])
        #expect(code == 2 && out.contains("--eom takes"))
        (code, out) = try spawn(Tmux.binary, ["monitor", "--region", "Home=180D"])
        #expect(code == 2 && out.contains("--region takes NAME=UUID"))
        (code, out) = try spawn(Tmux.binary, ["--demo", "monitor", "--enter-rssi", "-90", "--exit-rssi", "-80"])
        #expect(code == 2 && out.contains("must be at or below --enter-rssi"))
        let secrets = tempPath("secrets")
        defer { unlink(secrets) }
        FileManager.default.createFile(atPath: secrets, contents: Data("T=1\n".utf8), attributes: [.posixPermissions: 0o644])
        (code, out) = try spawn(Tmux.binary, ["--demo", "--secrets", secrets, "scan", "--duration", "1"])
        #expect(code == 2 && out.contains("can be read by others; run: chmod 600"))
    }
}
