import Explorer

/// `notify --until EOM`'s message put together through the real reducer, as the command
/// runs it: CPU per chunk of 20 bytes in a message of 3,000 chunks and in one of 30,000.
/// Until 2026-12-06 every chunk copied the message so far (the assembly was shared with the
/// state while a chunk was added): quadratic, 19 s for 100,000 chunks on the host. The
/// ratio of the two is the guard: a chunk costs the same however long the message.
@MainActor func benchStream(_ report: Report) {
    var perChunk: [Int: Double] = [:]
    for n in [3_000, 30_000] {
        let batches = (0..<3).map { _ in streamMicrosecondsPerChunk(chunks: n) }
        perChunk[n] = batches.sorted()[1]
        report.figure("notify --until, a message of \(n == 3_000 ? "3,000" : "30,000") chunks, reducer (µs/chunk)", perChunk[n]!)
    }
    report.ratio("  a chunk of the 30,000-chunk message / of the 3,000-chunk one", perChunk[30_000]! / perChunk[3_000]!, atMost: 1.5)
}

/// One message of `chunks` chunks and its marker into a `notify ADDRESS UUID --until EOM`
/// whose device is connected and subscribed; CPU µs per chunk. Checks that the reducer
/// took the marker as the end (a bench of a job that went elsewhere would measure nothing).
@MainActor func streamMicrosecondsPerChunk(chunks: Int) -> Double {
    let now = Timestamp(1_780_000_000)
    let id = PeripheralID("C0:FF:EE:00:00:01")
    let uuid: BLEUUID = "B1E5E1A0-0021-4C7A-9E3B-2D8F00C0FFEE"
    let char = CharacteristicID("/bench/dev/s/c")
    let services = [GATTService(id: AttributeID("/bench/dev/s"), uuid: "B1E5E1A0-0020-4C7A-9E3B-2D8F00C0FFEE",
                                characteristics: [GATTCharacteristic(id: char, uuid: uuid, properties: [.notify])])]
    var s = AppState(now: now)
    s.adapter = AdapterStatus(name: "sim0", power: .on, discovering: true)
    s.run(JobState(job: .notify(address: id.rawValue, uuid: uuid, count: nil, duration: nil, until: StreamEnd(marker: Array("EOM".utf8)))))
    _ = Reducer.reduce(&s, .appStarted(recordTo: nil))
    for e: BackendEvent in [
        .advertisementReceived(AdvertisementReport(id: id, address: id.rawValue, name: "Stream", rssi: -50, connectable: true,
                                                   advertisement: Advertisement())),
        .connected(id), .servicesResolved(id, services, mtu: 247), .notifyChanged(char, enabled: true, nil),
    ] { _ = Reducer.reduce(&s, .backend(e, at: now)) }
    let chunk = (0..<20).map { UInt8(0x41 + $0) }
    let c0 = cpuSeconds()
    for i in 0..<chunks {
        _ = Reducer.reduce(&s, .backend(.valueNotified(char, chunk), at: now + Double(i) / 1000))
    }
    let end = Reducer.reduce(&s, .backend(.valueNotified(char, Array("EOM".utf8)), at: now + Double(chunks) / 1000))
    let micros = (cpuSeconds() - c0) / Double(chunks) * 1e6
    if !end.contains(where: { if case .startTimer(.settle, _) = $0 { true } else { false } }) {
        print("bench stream: the marker did not end the message (\(end)): this figure measures nothing")
    }
    return micros
}
