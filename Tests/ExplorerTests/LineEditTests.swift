import Testing
@preconcurrency import Glibc
@testable import Explorer

/// The prompts' line editor: readline's keys, and the write line's history.
@Suite("Prompts that edit")
struct LineEditTests {
    static func line(_ text: String, _ edits: [LineEdit], history: [String] = []) -> InputLine {
        var l = InputLine(purpose: .filter, text: text, history: history)
        for e in edits { l.apply(e) }
        return l
    }

    @Test func movingInsertingAndDeletingInTheMiddle() {
        var l = Self.line("01 ff", [.left, .left, .insert("e")])
        #expect(l.text == "01 eff" && l.cursor == 4)
        l.apply(.home); l.apply(.insert("0x"))
        #expect(l.text == "0x01 eff" && l.cursor == 2)
        l.apply(.deleteForward)
        #expect(l.text == "0x1 eff" && l.cursor == 2)
        l.apply(.end); l.apply(.deleteBackward)
        #expect(l.text == "0x1 ef" && l.cursor == 6)
        l.apply(.right)                               // at the end: stays
        #expect(l.cursor == 6)
        l.apply(.home); l.apply(.left); l.apply(.deleteBackward)   // at the start: nothing
        #expect(l.text == "0x1 ef" && l.cursor == 0)
    }

    @Test func wordAndLineKills() {
        #expect(Self.line("exec ./on-press  ", [.deleteWordBackward]).text == "exec ")
        #expect(Self.line("exec ./on-press", [.deleteWordBackward, .deleteWordBackward]).text == "")
        var l = Self.line("post http://h/x", [.left, .left, .left, .left, .left, .left, .left, .left, .left, .left])
        #expect(l.cursor == 5)
        l.apply(.deleteToEnd)
        #expect(l.text == "post " && l.cursor == 5)
        l = Self.line("01 02 03", [.left, .left, .deleteToStart])
        #expect(l.text == "03" && l.cursor == 0)
        l = Self.line("01 02 03", [.left, .left, .left, .deleteWordBackward])
        #expect(l.text == "01  03" && l.cursor == 3)
        #expect(Self.line("abc", [.clear]) == InputLine(purpose: .filter))
    }

    @Test func insertKeepsTheLimitAndDropsControlCharacters() {
        var l = Self.line("", [.insert(String(repeating: "a", count: 600))])
        #expect(l.text.count == InputLine.limit && l.cursor == InputLine.limit)
        l.apply(.insert("b"))
        #expect(l.text.count == InputLine.limit && !l.text.contains("b"))
        #expect(Self.line("", [.insert("a\u{1B}[2Jb\u{202E}c")]).text == "a[2Jbc")
        // Characters, not bytes or scalars: é and a flag are one step each.
        l = Self.line("é🇫🇷x", [.left, .left, .deleteBackward])
        #expect(l.text == "🇫🇷x" && l.cursor == 0)
    }

    @Test func upAndDownGoThroughTheHistoryAndBackToTheDraft() {
        var l = Self.line("0", [], history: ["01", "02 03", "\"hi\""])
        l.apply(.recall(older: true))
        #expect(l.text == "\"hi\"" && l.cursor == 4 && l.recalled == 2)
        l.apply(.recall(older: true)); l.apply(.recall(older: true)); l.apply(.recall(older: true))
        #expect(l.text == "01" && l.recalled == 0)    // the oldest, and no further
        l.apply(.recall(older: false))
        #expect(l.text == "02 03")
        l.apply(.recall(older: false)); l.apply(.recall(older: false))
        #expect(l.text == "0" && l.recalled == nil)   // below the newest: the line typed before
        l.apply(.recall(older: false))
        #expect(l.text == "0")
        // Editing a recalled value makes it the line's own.
        l.apply(.recall(older: true)); l.apply(.insert(" 04")); l.apply(.recall(older: false))
        #expect(l.text == "\"hi\" 04")
        #expect(Self.line("x", [.recall(older: true)]).text == "x")   // no history: nothing
    }

    @Test func theKeysOfAPrompt() {
        var s = AppState(now: Timestamp(0))
        s.input = InputLine(purpose: .filter, text: "x")
        let keys: [(Key, LineEdit)] = [
            (.left, .left), (.ctrl("b"), .left), (.right, .right), (.ctrl("f"), .right),
            (.home, .home), (.ctrl("a"), .home), (.end, .end), (.ctrl("e"), .end),
            (.backspace, .deleteBackward), (.delete, .deleteForward), (.ctrl("d"), .deleteForward),
            (.ctrl("w"), .deleteWordBackward), (.ctrl("u"), .deleteToStart), (.ctrl("k"), .deleteToEnd),
            (.up, .recall(older: true)), (.down, .recall(older: false)), (.char("j"), .insert("j")),
        ]
        for (key, edit) in keys { #expect(Keymap.action(for: key, in: s) == .inputEdited(edit), "\(key)") }
    }

    @Test func theFilterFollowsTheEditedLine() {
        var s = Fixture.scanning()
        _ = Reducer.reduce(&s, .filterStarted)
        for e: LineEdit in [.insert("itxg"), .left, .deleteBackward, .insert("a")] { _ = Reducer.reduce(&s, .inputEdited(e)) }
        #expect(s.scan.filter == "itag" && s.input?.cursor == 3)
        #expect(s.peripherals.shown.ids == [Fixture.itag])
    }
}

@Suite("Write history")
struct WriteHistoryTests {
    static func open() -> AppState {
        var s = Fixture.connectedHRM()
        s.peripherals[Fixture.hrm]!.services![0].characteristics[1].properties = [.read, .write]
        s.route = .characteristic(Fixture.hrm, Fixture.bslChar)
        return s
    }
    static let key = "E41C225D9011-2a38"

    @Test func keysAreSafeFileNames() {
        #expect(WriteHistory.key(address: "FC:58:FA:1A:2B:3C", uuid: "FFE1") == "FC58FA1A2B3C-ffe1")
        #expect(WriteHistory.key(address: "AA:BB:CC:DD:EE:FF", uuid: BLEUUID("B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE"))
                == "AABBCCDDEEFF-b1e5e1a0-0002-4c7a-9e3b-2d8f00c0ffee")
        #expect(WriteHistory.key(address: "../../etc/passwd\u{0}x", uuid: "180D") == "etcpasswdx-180d")
    }

    @Test func theLineOpensWithTheLoadedHistoryAndAWriteJoinsIt() {
        var s = Self.open()
        #expect(Reducer.reduce(&s, .writeStarted) == [.loadWriteHistory(key: Self.key)])
        _ = Reducer.reduce(&s, .writeHistoryLoaded(key: Self.key, ["01", "02", "\u{1B}[2J", "zz", "01"]))
        // Sanitized: the escape sequence and what is not a value are dropped, a repeat is kept once, newest.
        #expect(s.input?.history == ["02", "01"])
        _ = Reducer.reduce(&s, .inputEdited(.recall(older: true)))
        #expect(s.input?.text == "01")
        _ = Reducer.reduce(&s, .inputEdited(.recall(older: true)))
        _ = Reducer.reduce(&s, .inputEdited(.insert(" ff")))
        #expect(Reducer.reduce(&s, .inputSubmitted) == [.backend(.write(Fixture.hrm, Fixture.bslChar, [0x02, 0xFF], .request)),
                                                        .saveWriteHistory(key: Self.key, ["02", "01", "02 ff"])])
        // Loaded once a session; the next line starts with it.
        #expect(Reducer.reduce(&s, .writeStarted) == [])
        #expect(s.input?.history == ["02", "01", "02 ff"])
        // A value typed with a leading space is written but not kept.
        _ = Reducer.reduce(&s, .inputEdited(.insert(" 07")))
        #expect(Reducer.reduce(&s, .inputSubmitted) == [.backend(.write(Fixture.hrm, Fixture.bslChar, [0x07], .request))])
        #expect(s.writeHistory[Self.key].count == 3)
    }

    @Test func itIsBoundedAndAReplayKeepsNothing() {
        var h = WriteHistory()
        for i in 0..<80 { h.wrote("k", Self.format2(i)) }
        #expect(h["k"].count == WriteHistory.capacity && h["k"].last == Self.format2(79) && h["k"].first == Self.format2(30))
        var s = Self.open()
        s.replay = ReplayStatus(start: Fixture.t0, end: Fixture.t0 + 9, position: Fixture.t0, speed: .one, paused: false,
                                finished: false, skipped: 0)
        #expect(Reducer.reduce(&s, .writeStarted) == [])
        _ = Reducer.reduce(&s, .inputEdited(.insert("01")))
        #expect(Reducer.reduce(&s, .inputSubmitted) == [.backend(.write(Fixture.hrm, Fixture.bslChar, [0x01], .request))])
    }

    static func format2(_ i: Int) -> String { let h = String(i, radix: 16); return h.count == 1 ? "0" + h : h }

    /// The file: a value a line, read as hostile (bounded, sanitized), replaced whole.
    @Test func theFileRoundTripsAndSurvivesAHostileOne() throws {
        let dir = "/tmp/bx-writes-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(mkdir(dir, 0o700) == 0)
        defer {
            for f in ["k", "h", "f", "target", "s"] { unlink(dir + "/" + f) }
            rmdir(dir)
        }
        #expect(WriteHistoryFile.save("k", ["01", "\"hi there\""], folder: dir))
        #expect(WriteHistoryFile.load("k", folder: dir) == ["01", "\"hi there\""])
        var st = stat()
        #expect(stat(dir + "/k", &st) == 0 && st.st_mode & 0o777 == 0o600)
        // Hostile: invalid UTF-8, control characters, CRLF, an endless line, 200 KiB in all.
        var bytes: Bytes = Array("01\r\n".utf8) + [0xFF, 0xFE, 0x0A] + Array("02\u{7}\n".utf8)
        bytes += Array(repeating: 0x41, count: 100_000) + [0x0A]
        for i in 0..<20_000 { bytes += Array("\(Self.format2(i % 256))\n".utf8) }
        bytes += Array("0a\n".utf8)
        let fd = Glibc.open(dir + "/h", O_WRONLY | O_CREAT, 0o600)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let loaded = WriteHistoryFile.load("h", folder: dir)
        #expect(loaded.count == WriteHistory.capacity && loaded.last == "0a" && !loaded.contains { $0.count > 4 })
        // Neither a FIFO nor a missing file blocks or fails.
        #expect(mkfifo(dir + "/f", 0o600) == 0)
        #expect(WriteHistoryFile.load("f", folder: dir) == [])
        #expect(WriteHistoryFile.load("none", folder: dir) == [])
        // A symlink in its place is replaced, and what it pointed at stays as it was.
        let target = dir + "/target"
        _ = WriteHistoryFile.save("target", ["01"], folder: dir)
        #expect(symlink(target, dir + "/s") == 0)
        #expect(WriteHistoryFile.load("s", folder: dir) == [])   // not followed
        #expect(WriteHistoryFile.save("s", ["02"], folder: dir))
        #expect(WriteHistoryFile.load("target", folder: dir) == ["01"])
        #expect(WriteHistoryFile.load("s", folder: dir) == ["02"])
    }
}
