/// Notifications in the job reducer: `notify`'s values, and `--until`'s stream of chunks put
/// back together (framing, reordering, the end marker). Pure, as JobReducer.
extension JobReducer {
    static func notified(_ s: inout AppState, _ job: inout JobState, _ bytes: Bytes, at: Timestamp) -> [Effect] {
        // A chunk of --until's message, asked before the switch below, which copies the whole
        // job to bind its cases (300 instructions a chunk, callgrind 2026-12-06).
        if case .notify(_, _, _, _, .some) = job.job { return chunk(&s, &job, bytes, at: at) }
        switch job.job {
        case let .notify(_, _, count, _, nil):
            job.notifications += 1
            var report = valueReport(s, job, bytes, at: at, origin: .notify)
            report?.mtu = linkMTU(s, job)
            var effects = report.map { [Effect.output(.value($0))] } ?? []
            if let count, job.notifications >= count { effects += leave(&s, &job, exitCode: 0) }
            return effects
        case let .watch(address, _, debounce):
            // A wall clock that stepped back (NTP) does not hold the hook back.
            if debounce > 0, let last = job.lastFired, at - last >= 0, at - last < debounce { return [] }
            job.lastFired = at
            guard let cid = job.characteristic, let id = job.target, let (_, c) = s.peripherals[id]?.characteristic(cid) else { return [] }
            return [.fireHook(cid, s.firedEvent(at: at, address: address, c, bytes))]
        default:
            return []
        }
    }

    /// A chunk of `notify --until`'s message. A seq stream is whole when its last frame and
    /// every one before it came; a plain one when its marker came, and then it waits a moment
    /// (`settleTime`): a chunk after the marker, or a short chunk before the end, means the
    /// chunks came out of order and the message is wrong: it is not written.
    static func chunk(_ s: inout AppState, _ job: inout JobState, _ bytes: Bytes, at: Timestamp) -> [Effect] {
        if job.settling != nil {
            job.late += 1
            return []
        }
        if job.assembly == nil {
            guard case let .notify(_, _, _, _, end?) = job.job else { return [] }
            let c = job.target.flatMap { id in job.characteristic.flatMap { s.peripherals[id]?.characteristic($0)?.1 } }
            let framing = end.framing ?? StreamFraming.announced(in: c.flatMap(s.userDescription)) ?? .plain
            job.assembly = StreamAssembly(marker: end.marker, framing: framing, maxMessage: messageLimit)
        }
        // In place, and read field by field: the job alone holds the assembly (JobReducer.reduce),
        // and a copy of it was 480 instructions a chunk (callgrind, 2026-12-06).
        let done = job.assembly?.add(bytes, at: at) ?? nil
        guard let overflowed = job.assembly?.overflowed, let framing = job.assembly?.framing else { return [] }
        job.notifications += 1
        if overflowed > 0 { return fail(&s, &job, "no \(hex(job.assembly?.marker ?? [], separator: "")) marker after 256 MB") }
        guard let m = done else { return [] }
        if framing == .plain {
            if job.eatt == true {
                return outOfOrder(&s, &job, "EATT is on for this link (our bluetoothd told the peer so in its Client "
                                  + "Supported Features), and over EATT bearers plain chunks can arrive out of place without a sign")
            }
            if m.outOfPlace > 0 { return outOfOrder(&s, &job, "\(m.outOfPlace) chunk(s) shorter than the others came before the end") }
            job.settling = m
            return [.startTimer(.settle, after: settleTime)]
        }
        return report(&s, &job, m)
    }

    /// Client Supported Features (0x2B29): what our bluetoothd told the peer's GATT server it
    /// does; bit 1 is EATT. BlueZ sets it when its own EATT is on (5.66 in the lab: 0x07 with
    /// `Channels = 3`, 0x05 with `Channels = 1`), and opens the extra bearers if the peer
    /// has EATT too. Over those bearers a plain stream came with chunks swapped among
    /// equal-sized ones, which no check on the data can see, so notify --until writes no plain
    /// file where the bit is set; a peer without EATT is refused all the same (the bit cannot
    /// tell), and `--framing seq` is the way out.
    static let clientFeaturesUUID: BLEUUID = "2B29"
    static let eattBit: UInt8 = 0x02

    /// How long a plain message waits after its marker for chunks that would show it was
    /// reordered. EATT's bearers reorder by a few notifications, milliseconds apart.
    static let settleTime = 0.5

    static func settled(_ s: inout AppState, _ job: inout JobState) -> [Effect] {
        guard let m = job.settling else { return [] }
        if job.late > 0 { return outOfOrder(&s, &job, "\(job.late) chunk(s) came after the end marker") }
        return report(&s, &job, m)
    }

    static func outOfOrder(_ s: inout AppState, _ job: inout JobState, _ what: String) -> [Effect] {
        fail(&s, &job, "the stream came out of order (\(what)): the message is not whole and was not written. "
             + "Plain chunks are safe on one ATT bearer only; with EATT use --framing seq on both ends (docs/serve.md)")
    }

    static func report(_ s: inout AppState, _ job: inout JobState, _ m: StreamAssembly.Message) -> [Effect] {
        guard case let .notify(address, uuid, _, _, _) = job.job, let framing = job.assembly?.framing else { return [] }
        var report = MessageReport(address: address, uuid: uuid, bytes: m.bytes, chunks: m.chunks,
                                   seconds: max(0.001, m.at - (m.startedAt ?? m.at)), framing: framing, reordered: m.reordered)
        report.mtu = linkMTU(s, job)
        return [.cancelTimer(.settle), .output(.message(report))] + leave(&s, &job, exitCode: 0)
    }
}
