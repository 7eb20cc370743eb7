import Testing
@testable import Explorer

/// What bluetoothd sent that could not be read (issue 20, "says what it cannot"): one
/// event, reduced to a warning on the message line and in the log, a warning line for a
/// headless command, a recording line that reads back as the same event.
@Suite("A property bluetoothd sent that could not be read")
struct UnreadablePropertyTests {
    static let rssi = UnreadableProperty(object: "E4:1C:22:5D:90:11", property: "RSSI", problem: .wrongType(sent: "x", expected: "n"))
    static let noAddress = UnreadableProperty(object: "/org/bluez/hci0/dev_X", property: "Address", problem: .missing)

    @Test func saidInWords() {
        #expect(Self.rssi.description == "E4:1C:22:5D:90:11: bluetoothd sent RSSI as int64 (x), not int16 (n); ignored")
        #expect(Self.noAddress.description == "/org/bluez/hci0/dev_X: bluetoothd sent no Address; the object is ignored")
        #expect(UnreadableProperty.typeName("as") == "array (as)")
        #expect(UnreadableProperty.typeName("a{qv}") == "dictionary (a{qv})")
        #expect(UnreadableProperty.typeName("(ii)") == "struct ((ii))")
    }

    /// Everything in it came from the bus: no control character survives, and it is bounded.
    @Test func hostileTextIsMadeSafe() {
        let p = UnreadableProperty(object: "\u{1B}]0;pwned\u{07}" + String(repeating: "A", count: 10_000), property: "RSSI\u{1B}[2J",
                                   problem: .wrongType(sent: "\u{9B}x", expected: "n"))
        #expect(!p.description.unicodeScalars.contains(where: TerminalSafe.isUnsafe))
        #expect(p.object.utf8.count <= 255 * 3 && p.description.contains("pwned"))
    }

    /// The app: a warning on the message line, and the log keeps it as a problem.
    @Test func theAppWarnsAndLogsIt() {
        var s = Fixture.scanning()
        let effects = Fixture.apply(&s, .propertyUnreadable(Self.rssi), after: 1)
        #expect(effects.isEmpty)
        #expect(s.alert == Alert(.warning, Self.rssi.description, at: Fixture.t0 + 1))
        #expect(s.lastError == nil)   // a warning, not a failure
        #expect(s.log.entries.last?.text == Self.rssi.description && s.log.entries.last?.problem == true)
        // The device itself is still there, as it was.
        #expect(s.peripherals[Fixture.hrm]?.rssi == -50)
    }

    /// A headless command: a warning line (stderr), and it goes on.
    @Test func aCommandPrintsAWarningLine() {
        var s = Fixture.scanning()
        s.job = JobState(job: .scan(duration: 3))
        let effects = Fixture.apply(&s, .propertyUnreadable(Self.noAddress))
        #expect(effects == [.output(.warning(Self.noAddress.description))])
        #expect(s.job?.exitCode == nil)
        let lines = CommandPrinter(json: true).lines(.warning(Self.noAddress.description), now: Fixture.t0)
        #expect(lines == [CommandPrinter.Line(stream: .stderr, text: "bleexplr: " + Self.noAddress.description)])
    }

    /// Recorded as an `unreadable` line, read back as the same event.
    @Test func recordedAndReadBack() throws {
        let s = Fixture.scanning()
        for p in [Self.rssi, Self.noAddress] {
            let line = try #require(RecordingFormat.line(for: .backend(.propertyUnreadable(p), at: Fixture.t0), state: s))
            #expect(line.contains("\"type\":\"unreadable\""))
            let v = try JSONValue.parse(line)
            #expect(RecordedEvent.event("unreadable", v) == .propertyUnreadable(p))
        }
        let line = RecordingFormat.line(for: .backend(.propertyUnreadable(Self.rssi), at: Fixture.t0), state: s)
        #expect(line == "{\"t\":\"\(Fixture.t0.iso8601)\",\"type\":\"unreadable\",\"object\":\"E4:1C:22:5D:90:11\",\"property\":\"RSSI\","
                + "\"problem\":\"wrong-type\",\"sent\":\"x\",\"expected\":\"n\"}")
        // A line without what its problem needs is skipped, as any other.
        #expect(RecordedEvent.event("unreadable", try JSONValue.parse("{\"object\":\"a\",\"property\":\"RSSI\",\"problem\":\"wrong-type\"}")) == nil)
        #expect(RecordedEvent.event("unreadable", try JSONValue.parse("{\"object\":\"a\",\"property\":\"RSSI\",\"problem\":\"lied\"}")) == nil)
    }
}
