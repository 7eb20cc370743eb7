/// `write --file` in the job reducer: asks for a socket, keeps a window of writes handed
/// over, flushes, reads the closing fence, reports (`WriteStream`). Pure, as JobReducer.
enum WriteStreamReducer {
    /// The device is ready and `c` is the characteristic: the stream begins.
    static func start(_ s: inout AppState, _ job: inout JobState, _ p: Peripheral, _ c: GATTCharacteristic) -> [Effect] {
        guard case let .writeStream(_, uuid, data, asked, framing) = job.job else { return [] }
        let type = asked ?? (c.properties.contains(.writeWithoutResponse) ? .command : .request)
        guard type != .reliable, type.isAllowed(by: c.properties) else {
            let has = [WriteType.command, .request].filter { $0.isAllowed(by: c.properties) }.map(\.rawValue)
            return JobReducer.fail(&s, &job, "\(uuid) on \(p.address) does not take a write of type \(type.rawValue) ("
                                   + (has.isEmpty ? "it is not writable" : "it takes --type \(has.joined(separator: " or "))") + ")")
        }
        var st = WriteStream(data: data, framing: framing, type: type, mtu: p.mtu)
        st.fence = WriteStream.fence(p, c)
        job.stream = st
        guard type == .command else {
            // Write requests: the device answers each, and bluetoothd takes one at a time.
            job.stream?.chose(.writeValue, mtu: nil, reason: "write requests, each answered by the device")
            return [said(job.stream ?? st)] + pump(&job, p.id, c.id, at: s.now)
        }
        return [.backend(.acquireWrite(p.id, c.id)), .startTimer(.operation, after: JobReducer.operationTimeout)]
    }

    /// The stream's part of a backend event; nil when the event is not the stream's.
    static func event(_ s: inout AppState, _ job: inout JobState, _ event: BackendEvent, at: Timestamp) -> [Effect]? {
        guard job.phase == .working, var st = job.stream, let cid = job.characteristic, let id = job.target else { return nil }
        switch event {
        case let .writeAcquired(c, mtu) where c == cid && st.path == nil:
            st.chose(.acquireWrite, mtu: mtu)
            job.stream = st
            return [said(st)] + pump(&job, id, cid, at: at)
        case let .writeNotAcquired(c, reason, mtu) where c == cid && st.path == nil:
            st.chose(.writeValue, mtu: mtu, reason: reason)
            job.stream = st
            return [said(st)] + pump(&job, id, cid, at: at)
        case let .writeCompleted(c, _, _, error) where c == cid && st.path != nil:
            if let error {
                let whole = st.offset == st.data.count ? "" : " (\(st.offset) of \(st.data.count) bytes handed over)"
                return JobReducer.fail(&s, &job, "write \(st.done + 1) of \(st.total) failed: \(error)\(whole)"
                                       + OnDemand.hint(s, id, error))
            }
            st.answered()
            job.stream = st
            guard st.allDone else { return pump(&job, id, cid, at: at) }
            job.stream?.handedOverAt = at
            // Requests were answered by the device: done. Commands are only in bluetoothd's hands.
            if st.type != .command { return report(&s, &job, at: at, confirmed: true) }
            job.stream?.flushing = true
            return [.backend(.flushWrites(id, cid)), .startTimer(.operation, after: JobReducer.operationTimeout)]
        case let .writesFlushed(c) where c == cid && st.flushing:
            st.flushing = false
            let wait = st.fenceTimeout(base: JobReducer.operationTimeout)
            switch st.fence {
            case let .characteristic(f)?:
                st.fencing = true
                job.stream = st
                return [.backend(.read(id, f, offset: 0)), .startTimer(.operation, after: wait)]
            case let .descriptor(d)?:
                st.fencing = true
                job.stream = st
                return [.backend(.readDescriptor(id, d)), .startTimer(.operation, after: wait)]
            case nil:
                job.stream = st
                return [.output(.warning("\(id) has nothing to read: the figures end when bluetoothd took the last write, "
                                         + "and closing the link now may cut what it still sends"))]
                    + report(&s, &job, at: at, confirmed: false)
            }
        case let .readCompleted(f, result) where st.fencing && st.fence == .characteristic(f):
            return fenced(&s, &job, result.failure, at: at)
        case let .descriptorRead(d, result) where st.fencing && st.fence == .descriptor(d):
            return fenced(&s, &job, result.failure, at: at)
        default:
            return nil
        }
    }

    /// The closing read answered: every write before it had gone. A read that failed
    /// leaves the figures at the hand-over.
    static func fenced(_ s: inout AppState, _ job: inout JobState, _ error: BackendError?, at: Timestamp) -> [Effect] {
        job.stream?.fencing = false
        guard let error else { return report(&s, &job, at: at, confirmed: true) }
        return [.output(.warning("the read after the last write failed (\(error)): the figures end when bluetoothd took the last write"))]
            + report(&s, &job, at: job.stream?.handedOverAt ?? at, confirmed: false)
    }

    /// Hands over writes until `window` are unanswered or the file is all out.
    static func pump(_ job: inout JobState, _ id: PeripheralID, _ cid: CharacteristicID, at: Timestamp) -> [Effect] {
        guard var st = job.stream else { return [] }
        var out: [Effect] = []
        let window = st.type == .command ? st.window : 1   // bluetoothd refuses a second request in flight
        while st.sent - st.done < window, let bytes = st.next() {
            st.started(at: at)
            out.append(.backend(.write(id, cid, bytes, st.type)))
        }
        job.stream = st
        if !out.isEmpty { out.append(.startTimer(.operation, after: JobReducer.operationTimeout)) }
        return out
    }

    /// "writes through a socket (AcquireWrite), MTU 517": which way the writes go (stderr).
    static func said(_ st: WriteStream) -> Effect {
        let mtu = st.mtu.map { "MTU \($0)" } ?? "MTU not known"
        switch st.path {
        case .acquireWrite?:
            return .output(.warning("writes through a socket (AcquireWrite), \(mtu), \(st.chunk) bytes a write"))
        case .writeValue?, nil:
            return .output(.warning("writes through WriteValue (type \(st.type.rawValue)), \(mtu), \(st.chunk) bytes a write"
                                    + (st.reason.map { ": \($0)" } ?? "")))
        }
    }

    static func report(_ s: inout AppState, _ job: inout JobState, at: Timestamp, confirmed: Bool) -> [Effect] {
        guard let st = job.stream, let path = st.path else { return [] }
        let start = st.startedAt ?? at
        let handed = st.handedOverAt ?? at
        let r = StreamWriteReport(address: job.job.address ?? "", uuid: job.job.uuid ?? "", bytes: st.data.count, chunks: st.sent,
                                  chunkSize: st.chunk, mtu: st.mtu, path: path, type: st.type, framing: st.framing,
                                  seconds: max(0, at - start), queuedSeconds: max(0, handed - start), confirmed: confirmed)
        return [.cancelTimer(.operation), .output(.streamWritten(r))] + JobReducer.leave(&s, &job, exitCode: 0)
    }
}

extension Result {
    /// The error, if this is one.
    var failure: Failure? {
        if case let .failure(e) = self { return e }
        return nil
    }
}
