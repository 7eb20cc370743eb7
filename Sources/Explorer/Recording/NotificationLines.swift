/// The recorded lines of one characteristic's notifications. They differ only in their
/// time, their value and what it decodes to, so the rest (the characteristic's address,
/// UUID, name and path) is found and written once, and each line goes straight into the
/// recorder's bytes. A recorder keeps them from one batch (a read of the socket) to the
/// next while nothing but notifications happened between (`RecordingFormat.appendLines`).
/// A line is what JSONLine makes of the same fields in the same order:
/// `{"t":…,"type":"notification","address":…,"uuid":…,"name":…,"path":…,"hex":…,"decoded":…}`
/// Field by field through JSONLine a line was 2,600 instructions, now about 1,100, and
/// finding and naming the characteristic about 9,500 (callgrind, 2026-12-06).
struct NotificationLines {
    let characteristic: CharacteristicID
    /// nil when no device of the state has the characteristic (its path alone is written).
    private let decoding: ValueDecoding?
    /// From the time's closing quote to the value's opening one.
    private let middle: Bytes

    private var times = ISO8601Writer()

    init(_ cid: CharacteristicID, _ state: borrowing AppState) {
        characteristic = cid
        var j = JSONLine()
        j.string("type", "notification")
        // Not `.map(state.decoding)`: a method of the state as a closure copies the whole state.
        if let c = RecordingFormat.characteristic(&j, cid, state) { decoding = state.decoding(c) } else { decoding = nil }
        var m = Bytes(#"","#.utf8)
        j.appendFields(to: &m)
        m.append(contentsOf: #","hex":""#.utf8)
        middle = m
    }

    mutating func append(_ bytes: Bytes, at t: Timestamp, to buffer: inout Bytes) {
        Self.add(#"{"t":""#, to: &buffer)
        times.append(t, to: &buffer)
        buffer.append(contentsOf: middle)
        JSONLine.appendHex(bytes, to: &buffer)
        buffer.append(0x22)   // "
        if let text = decoding?.value(bytes)?.text {
            Self.add(#","decoded":""#, to: &buffer)
            JSONLine.escape(text, into: &buffer)
            buffer.append(0x22)
        }
        buffer.append(0x7D)   // }
        buffer.append(0x0A)   // newline
    }

    private static func add(_ s: StaticString, to buffer: inout Bytes) {
        s.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }
}
