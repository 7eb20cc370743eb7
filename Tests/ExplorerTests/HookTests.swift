#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Testing
@testable import Explorer

@Suite struct HookTemplateTests {
    let e = FiredEvent(seq: 3, time: "2026-11-30T10:00:00.000Z", address: "FC:58:FA:1A:2B:3C",
                       uuid: "0000ffe1-0000-1000-8000-00805f9b34fb", name: nil, hex: "01", text: "say \"hi\"\n", decoded: nil)

    @Test func placeholdersAreFilledAndEscapedInJSON() {
        let t = #"{"v": "{{text}}", "n": {{seq}}, "h": "{{ hex }}", "品目": "マーカー"}"#
        #expect(HookTemplate.render(t, e, json: true) == #"{"v": "say \"hi\"\n", "n": 3, "h": "01", "品目": "マーカー"}"#)
        #expect(HookTemplate.render("{{address}}/{{uuid}}", e, json: false) == "FC:58:FA:1A:2B:3C/0000ffe1-0000-1000-8000-00805f9b34fb")
        #expect(HookTemplate.unknownPlaceholder("{{hex}} {{bogus}}") == "bogus")
        #expect(HookTemplate.unknownPlaceholder(#"{"a": {"b": 1}}"#) == nil)
    }

    @Test func deliveryReportsAsRecordingLines() {
        let at = Timestamp(1_764_547_200)
        #expect(RecordingFormat.hookLine(.queued(seq: 1, pending: 2), at: at)
                == #"{"t":"2025-12-01T00:00:00.000Z","type":"hook","seq":1,"outcome":"queued","pending":2}"#)
        #expect(RecordingFormat.hookLine(.gaveUp(seq: 3, attempts: 5, reason: "exit 1"), at: at)
                == #"{"t":"2025-12-01T00:00:00.000Z","type":"hook","seq":3,"outcome":"given-up","attempt":5,"detail":"exit 1"}"#)
        #expect(RecordingFormat.hookLine(.failed("disk full"), at: at)
                == #"{"t":"2025-12-01T00:00:00.000Z","type":"hook","outcome":"failed","detail":"disk full"}"#)
        #expect(DeliveryReport.retrying(seq: 4, attempt: 2, after: 2, reason: "HTTP 500").seq == 4)
        #expect(DeliveryReport.failed("x").seq == nil)
    }

    @Test func secretsResolveOnlyWhenKnown() throws {
        let lookup: (String) -> String? = { $0 == "TOKEN" ? "t0k" : nil }
        #expect(try HookTemplate.resolveSecrets("Bearer ${TOKEN}", lookup).get() == "Bearer t0k")
        #expect(throws: HookSpecError.self) { try HookTemplate.resolveSecrets("${MISSING}", lookup).get() }
        #expect(HookTemplate.secretNames("${A}x${B}") == ["A", "B"])
    }

    @Test func headersHideSecrets() throws {
        let h = try HTTPHeader.parse("X-Cybozu-API-Token: abc").get()
        #expect(h.isSecret && h.shown == "X-Cybozu-API-Token: ***")
        #expect(try HTTPHeader.parse("Authorization: Bearer ${TOKEN}").get().shown == "Authorization: Bearer ${TOKEN}")
        #expect(try HTTPHeader.parse("Accept: text/plain").get().shown == "Accept: text/plain")
        #expect(throws: HookSpecError.self) { try HTTPHeader.parse("no colon").get() }
        #expect(throws: HookSpecError.self) { try HTTPHeader.parse("X: a\r\nInjected: b").get() }
    }

    @Test func theAppsActionLineParses() throws {
        #expect(try HookTarget.parse("exec echo $BLE_HEX").get() == .exec(command: "echo $BLE_HEX"))
        guard case let .post(h) = try? HookTarget.parse(" post https://example.com/hook").get() else { Issue.record("no post"); return }
        #expect(h.url == "https://example.com/hook" && h.method == "POST")
        #expect(throws: HookSpecError.self) { try HookTarget.parse("post ftp://x").get() }
        #expect(throws: HookSpecError.self) { try HookTarget.parse("rm -rf").get() }
    }

    @Test func backoffDoublesUpToItsLimit() {
        let b = Backoff(initial: 1, limit: 60)
        #expect((1...8).map { b.delay(afterAttempt: $0) } == [1, 2, 4, 8, 16, 32, 60, 60])
    }
}

@Suite struct HookQueueTests {
    func path() -> String { "/tmp/bleexplr-queue-test-\(getpid())-\(Int.random(in: 0..<1_000_000)).jsonl" }
    func draft(_ hex: String) -> FiredEvent {
        FiredEvent(seq: 0, time: "2026-11-30T10:00:00.000Z", address: "A", uuid: "u", name: nil, hex: hex, text: "", decoded: nil)
    }

    @Test func eventsSurviveARestartUntilDone() throws {
        let p = path()
        defer { unlink(p) }
        do {
            let q = try HookQueue(path: p)
            #expect(try q.enqueue(draft("01")).queued.seq == 1)
            #expect(try q.enqueue(draft("02")).queued.seq == 2)
            try q.complete(1, outcome: "delivered")
        }
        let again = try HookQueue(path: p)
        #expect(again.pending.map(\.hex) == ["02"])
        #expect(try again.enqueue(draft("03")).queued.seq == 3)
    }

    /// Numbers go on across runs even when the queue was empty in between: a receiver
    /// that keys on `{{seq}}` never sees a number twice.
    @Test func numbersGoOnAfterTheQueueEmpties() throws {
        let p = path()
        defer { unlink(p) }
        do {
            let q = try HookQueue(path: p)
            _ = try q.enqueue(draft("01")); _ = try q.enqueue(draft("02"))
            try q.complete(1, outcome: "delivered"); try q.complete(2, outcome: "delivered")
        }
        // Emptied, the file keeps one line: the next number.
        #expect(contents(p) == "{\"next\":3}\n")
        do {
            let q = try HookQueue(path: p)
            #expect(q.pending.isEmpty && q.skippedLines == 0)
            #expect(try q.enqueue(draft("03")).queued.seq == 3)
        }
        // A run that queues nothing passes the number on too.
        do { _ = try HookQueue(path: p) }
        let q = try HookQueue(path: p)
        #expect(q.pending.map(\.seq) == [3])
        try q.complete(3, outcome: "rejected")
        #expect(contents(p) == "{\"next\":4}\n")
    }

    func contents(_ p: String) -> String {
        let fd = open(p, O_RDONLY)
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &buf, buf.count)
        return String(decoding: buf.prefix(max(n, 0)), as: UTF8.self)
    }

    @Test func aLineCutByACrashIsSkippedAndCounted() throws {
        let p = path()
        defer { unlink(p) }
        do { let q = try HookQueue(path: p); _ = try q.enqueue(draft("01")) }
        let fd = open(p, O_WRONLY | O_APPEND)
        _ = "{\"seq\":2,\"time\":\"2026-".withCString { write(fd, $0, strlen($0)) }
        close(fd)
        let q = try HookQueue(path: p)
        #expect(q.pending.map(\.seq) == [1])
        #expect(q.skippedLines == 1)
    }

    @Test func aFullQueueDropsTheOldestAndSaysSo() throws {
        let q = try HookQueue(path: nil, capacity: 2)
        _ = try q.enqueue(draft("01")); _ = try q.enqueue(draft("02"))
        let (e, dropped) = try q.enqueue(draft("03"))
        #expect(e.seq == 3 && dropped?.seq == 1)
        #expect(q.pending.map(\.seq) == [2, 3])
    }

    @Test func oneProcessPerQueueFile() throws {
        let p = path()
        defer { unlink(p) }
        let first = try HookQueue(path: p)
        // flock locks are per open file description: a second open in this process conflicts too.
        #expect(throws: HookQueue.Failure.self) { _ = try HookQueue(path: p) }
        _ = first
    }
}

/// A sender whose answers the test scripts.
@MainActor
final class ScriptedSender: HookSender {
    var answers: [SendOutcome]
    var sent: [Int] = []
    let maxAttempts: Int?
    init(_ answers: [SendOutcome], maxAttempts: Int? = nil) { self.answers = answers; self.maxAttempts = maxAttempts }
    func send(_ event: FiredEvent, _ done: @escaping @MainActor (SendOutcome) -> Void) {
        sent.append(event.seq)
        let a = answers.isEmpty ? .delivered("ok") : answers.removeFirst()
        done(a)
    }
}

@MainActor
@Suite struct ActionDeliveryTests {
    func draft() -> FiredEvent {
        FiredEvent(seq: 0, time: "2026-11-30T10:00:00.000Z", address: "A", uuid: "u", name: nil, hex: "01", text: "", decoded: nil)
    }

    @Test func deliversInOrderRetryingTheHeadFirst() throws {
        let loop = EventLoop()
        let sender = ScriptedSender([.retry("HTTP 500"), .retry("HTTP 500"), .delivered("HTTP 201")])
        let d = HookDelivery(queue: try HookQueue(path: nil), sender: sender, loop: loop, backoff: Backoff(initial: 0.01, limit: 0.02))
        var reports: [DeliveryReport] = []
        d.onReport = { reports.append($0) }
        d.fire(draft()); d.fire(draft()); d.fire(draft())
        #expect(loop.run(until: { d.pendingCount == 0 }, timeout: 5))
        #expect(sender.sent == [1, 1, 1, 2, 3])
        #expect(reports.compactMap { if case let .delivered(seq, attempt, _) = $0 { return "\(seq)@\(attempt)" }; return nil } == ["1@3", "2@1", "3@1"])
        #expect(reports.filter { if case .retrying = $0 { return true }; return false }.count == 2)
    }

    @Test func rejectedEventsAreNotRetriedAndCommandsGiveUp() throws {
        let loop = EventLoop()
        let http = ScriptedSender([.rejected("HTTP 400"), .delivered("HTTP 201")])
        let d = HookDelivery(queue: try HookQueue(path: nil), sender: http, loop: loop, backoff: Backoff(initial: 0.01, limit: 0.01))
        d.fire(draft()); d.fire(draft())
        #expect(loop.run(until: { d.pendingCount == 0 }, timeout: 5))
        #expect(http.sent == [1, 2])

        let cmd = ScriptedSender(Array(repeating: .retry("exit 1"), count: 10), maxAttempts: 3)
        let c = HookDelivery(queue: try HookQueue(path: nil), sender: cmd, loop: loop, backoff: Backoff(initial: 0.01, limit: 0.01))
        var last: DeliveryReport?
        c.onReport = { last = $0 }
        c.fire(draft())
        #expect(loop.run(until: { c.pendingCount == 0 }, timeout: 5))
        #expect(last == .gaveUp(seq: 1, attempts: 3, reason: "exit 1"))
    }

    @Test func aCommandGetsTheEventInItsEnvironment() throws {
        let loop = EventLoop()
        let out = "/tmp/bleexplr-cmd-test-\(getpid())"
        defer { unlink(out) }
        let sender = CommandSender(command: "printf '%s|%s|%s' \"$BLE_HEX\" \"$BLE_ADDRESS\" \"$BLE_TEXT\" > \(out); echo done", loop: loop)
        let d = HookDelivery(queue: try HookQueue(path: nil), sender: sender, loop: loop)
        var last: DeliveryReport?
        d.onReport = { last = $0 }
        d.fire(FiredEvent(at: Fixture.t0, address: "FC:58:FA:1A:2B:3C", uuid: "FFE1", bytes: Array("hé".utf8)))
        #expect(loop.run(until: { d.pendingCount == 0 }, timeout: 10))
        #expect(last == .delivered(seq: 1, attempt: 1, detail: "exit 0: done"))
        let f = fopen(out, "r")
        var buf = [CChar](repeating: 0, count: 256)
        _ = fgets(&buf, 256, f); fclose(f)
        #expect(String(cString: buf) == "68c3a9|FC:58:FA:1A:2B:3C|hé")
    }
}

@Suite struct JSONValueTests {
    @Test func readsWhatJSONLineWrites() throws {
        var j = JSONLine()
        j.string("name", "a \"q\" \u{1B}[2J 名前 😀"); j.int("n", -42); j.bool("b", true); j.strings("l", ["x", ""])
        let v = try JSONValue.parse(j.finish())
        #expect(v["name"]?.string == "a \"q\" \u{1B}[2J 名前 😀")
        #expect(v["n"]?.int == -42 && v["b"]?.bool == true && v["l"]?.array?.count == 2)
        #expect(try JSONValue.parse(#""\ud83d\ude00""#) == .string("😀"))
    }

    @Test func badInputIsAnErrorNeverATrap() {
        for bad in ["", "{", "[1,", "{\"a\" 1}", "\"abc", "tru", "1e999", "{\"a\":1} x", "\"\u{01}\"", "[\"\\x\"]",
                    String(repeating: "[", count: 10_000)] {
            #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(bad) }
        }
    }
}
