import Foundation
import Testing
@testable import Explorer

/// Recordings from anywhere (issue 20, item 5): cut at every byte, every line twice,
/// lines in reverse, lines from a newer format, numbers out of range, a file of 1 GiB.
/// Each opens (or is refused) at once, says what it skipped, and never yields a value
/// the screens cannot hold.
@Suite("Recordings from anywhere")
struct HostileRecordingTests {
    static let t0 = Timestamp(1_700_000_000)
    static let id = PeripheralID("E4:1C:22:5D:90:11")
    static let cid = AttributeID("/org/bluez/hci0/dev_E4_1C_22_5D_90_11/service000a/char000b")

    /// A short session as the recorder writes it: header, adapter, advertisements,
    /// a connection, services, a read, notifications, an error, a disconnection.
    static var session: [String] {
        var s = AppState(now: t0)
        let events: [BackendEvent] = [
            .adapterChanged(AdapterStatus(name: "hci0", power: .on, discovering: true)),
            .advertisementReceived(AdvertisementReport(id: id, address: id.rawValue, name: "HRM \u{1B}[2J", rssi: -57, connectable: true,
                                                       advertisement: Advertisement(localName: "HRM", serviceUUIDs: ["180D"],
                                                                                    manufacturerData: [0x0059: [1, 2, 3]], txPower: 4))),
            .connecting(id, attempt: 1),
            .connected(id),
            .servicesResolved(id, [GATTService(id: AttributeID("/org/bluez/hci0/dev_E4_1C_22_5D_90_11/service000a"), uuid: "180D",
                                               characteristics: [GATTCharacteristic(id: cid, uuid: "2A37",
                                                                                    properties: CharacteristicProperties(flags: ["notify", "read"]))])],
                              mtu: 247),
            .readCompleted(cid, .success([0x00, 0x48])),
            .valueNotified(cid, [0x00, 0x49]),
            .valueNotified(cid, [0x00, 0x4A]),
            .failure(BackendError(name: "org.bluez.Error.Failed", message: "boom")),
            .disconnected(id, .remote),
        ]
        var lines = [RecordingFormat.headerLine(.init(started: t0, backend: "bluez", adapter: "hci0", seed: nil))]
        for (i, e) in events.enumerated() {
            let action = Action.backend(e, at: Timestamp(t0.seconds + Double(i)))
            lines += RecordingFormat.lines(for: action, state: s)
            _ = Reducer.reduce(&s, action)
        }
        return lines
    }

    static func text(_ lines: [String]) -> String { lines.joined(separator: "\n") + "\n" }

    @Test func theSessionReadsBackWhole() throws {
        let r = try Recording.parse(Self.text(Self.session))
        #expect(r.skipped == 0)
        #expect(r.events.count == Self.session.count - 1)
    }

    /// Cut at every byte offset: refused only while the header is incomplete; after
    /// that, every complete line is an event and a cut line is one skipped line at most.
    @Test func truncatedAtEveryByte() throws {
        let whole = Array(Self.text(Self.session).utf8)
        let headerEnd = whole.firstIndex(of: 10)!
        let full = try Recording.parse(Self.text(Self.session)).events.count
        for n in 0...whole.count {
            let cut = String(decoding: whole.prefix(n), as: UTF8.self)
            do {
                let r = try Recording.parse(cut)
                let complete = whole.prefix(n).filter { $0 == 10 }.count - 1   // lines after the header, ended
                #expect(r.events.count >= max(0, complete) && r.events.count <= full, "cut at \(n)")
                #expect(r.skipped <= 1, "cut at \(n): \(r.skipped) skipped")
            } catch {
                #expect(n <= headerEnd, "cut at \(n) after the header was refused: \(error)")
            }
        }
    }

    /// Every line twice (a recording appended to itself, minus the second header): twice
    /// the events, nothing skipped, times never running backwards.
    @Test func everyLineDuplicated() throws {
        let lines = Self.session
        let doubled = [lines[0]] + lines.dropFirst().flatMap { [$0, $0] }
        let r = try Recording.parse(Self.text(doubled))
        #expect(r.skipped == 0 && r.events.count == 2 * (lines.count - 1))
        #expect(zip(r.events, r.events.dropFirst()).allSatisfy { $0.at <= $1.at })
        // And a second header in the middle (two recordings concatenated): skipped, said.
        let concatenated = try Recording.parse(Self.text(lines + lines))
        #expect(concatenated.events.count == 2 * (lines.count - 1))
        #expect(concatenated.skipped == 1)
    }

    /// Lines in reverse: every event is still read, and plays in file order with time
    /// held where the file went back (no negative waits).
    @Test func linesReordered() throws {
        let lines = Self.session
        let r = try Recording.parse(Self.text([lines[0]] + lines.dropFirst().reversed()))
        #expect(r.skipped == 0 && r.events.count == lines.count - 1)
        #expect(zip(r.events, r.events.dropFirst()).allSatisfy { $0.at <= $1.at })
        #expect(r.start == r.end)   // the first line is the latest time: all of it at once
    }

    /// A newer format's header is refused with what it is; a newer format's lines in a
    /// file of this one are skipped and counted.
    @Test func newerFormats() throws {
        #expect(throws: Recording.ReadError.self) {
            try Recording.parse(#"{"type":"header","format":2,"backend":"bluez"}"# + "\n")
        }
        do {
            _ = try Recording.parse(#"{"type":"header","format":2}"# + "\n", name: "new.jsonl")
        } catch {
            #expect(error.description == "new.jsonl was recorded in format 2; this bleexplr reads format 1")
        }
        let lines = Self.session
        let future = [lines[0], #"{"type":"hologram","t":"2023-11-14T22:13:20Z","address":"E4:1C:22:5D:90:11"}"#]
            + lines.dropFirst()
            + [#"{"type":"advertisement","t":"2023-11-14T22:13:30Z","address":"E4:1C:22:5D:90:11","rssi":-40,"newField":{"x":[1,2]}}"#]
        let r = try Recording.parse(Self.text(future))
        #expect(r.skipped == 1)
        #expect(r.events.count == lines.count)
    }

    /// Numbers out of any range the app draws (what crashed the full-screen app when BlueZ
    /// sent them): read as absent, or bounded.
    @Test func numbersOutOfRange() throws {
        let lines = [Self.session[0],
                     #"{"type":"advertisement","t":"2023-11-14T22:13:20Z","address":"E4:1C:22:5D:90:11","rssi":8999999999999999,"#
                     + #""txPower":-8999999999999999}"#,
                     #"{"type":"connection","t":"2023-11-14T22:13:21Z","address":"E4:1C:22:5D:90:11","state":"connecting","attempt":-5}"#,
                     #"{"type":"services","t":"2023-11-14T22:13:22Z","address":"E4:1C:22:5D:90:11","services":[],"mtu":99999999}"#,
                     #"{"type":"advertisement","t":"2023-11-14T22:13:23Z","address":"E4:1C:22:5D:90:11","name":""# + String(repeating: "n", count: 65536) + #""}"#]
        let r = try Recording.parse(Self.text(lines))
        #expect(r.skipped == 0 && r.events.count == 4)
        guard case let .advertisementReceived(a) = r.events[0].event else { Issue.record("\(r.events[0])"); return }
        #expect(a.rssi == nil && a.advertisement.txPower == nil)
        #expect(r.events[1].event == .connecting(Self.id, attempt: 1))
        #expect(r.events[2].event == .servicesResolved(Self.id, [], mtu: nil))
        guard case let .advertisementReceived(b) = r.events[3].event else { Issue.record("\(r.events[3])"); return }
        #expect(b.name?.utf8.count == ReportBounds.nameBytes)
    }

    /// A time with more fractional digits than an Int holds (found by reading the parser
    /// for the fuzz target): no time, so the line is skipped, not a trap.
    @Test func aTimeWithTwentyDigitsIsNoTime() throws {
        #expect(Timestamp(iso8601: "2023-11-14T22:13:20.9999999999999999999Z") == nil)
        #expect(Timestamp(iso8601: "2023-11-14T22:13:20.123456789Z") != nil)
        let r = try Recording.parse(Self.text([Self.session[0],
                                               #"{"type":"rssi-lost","t":"2023-11-14T22:13:20.9999999999999999999Z","address":"E4:1C:22:5D:90:11"}"#]))
        #expect(r.skipped == 1 && r.events.isEmpty)
    }

    /// A name with a bidi override and a C1 CSI, replayed and printed by `scan --json`: the
    /// JSON line escapes both (found by the recording fuzz target: U+202E went out raw, and
    /// reordered the terminal's line), and reads back as the same name.
    @Test func jsonLinesEscapeWhatATerminalWouldObey() throws {
        var j = JSONLine()
        j.string("name", "a\u{202E}b\u{9B}2Jc\u{2066}d")
        let line = j.finish()
        #expect(!line.unicodeScalars.contains(where: TerminalSafe.isUnsafe), "\(line.debugDescription)")
        #expect(line.contains("\\u202e") && line.contains("\\u009b") && line.contains("\\u2066"))
        #expect(try JSONValue.parse(line)["name"]?.string == "a\u{202E}b\u{9B}2Jc\u{2066}d")
    }

    /// A 1 GiB file (sparse: no disk used) is refused at once, before anything is read.
    @Test func aHugeFileIsRefusedAtOnce() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bx-huge-\(getpid()).jsonl").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        defer { unlink(path) }
        #expect(ftruncate(fd, 1 << 30) == 0)
        close(fd)
        #expect(throws: Recording.ReadError.self) { try Recording.load(path: path) }
        do { _ = try Recording.load(path: path) } catch {
            // Its size, which only the check before reading knows.
            #expect(error.description.contains("larger than 512 MB (1024 MB)"), "\(error)")
        }
    }
}
