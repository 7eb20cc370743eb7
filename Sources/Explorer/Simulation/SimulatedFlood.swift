/// Demo Stream's flood: notifications as fast as a benchmark wants them (5,000 a second by
/// default; the demo control's `flood RATE` changes it), each numbered so that whoever
/// records them can tell whether one is missing. The world's clock stays event-driven: one
/// job per connection event while subscribed and the rate is above 0, none otherwise.
extension SimulatedWorld {
    /// Demo Stream's flood characteristic, for those that count its notifications.
    public static let floodCharacteristic = DemoCatalog.floodCharacteristic

    /// Every numbered notification the flood characteristics have sent.
    public var floodSent: Int {
        devices.reduce(0) { n, d in n + d.services.flatMap(\.characteristics).reduce(0) { $0 + $1.floodSent } }
    }

    /// Sets every flood characteristic's rate (notifications a second, 0 pauses it); one
    /// that is subscribed goes on at the new rate from now.
    public func setFloodRate(_ rate: Double, at t: Double) {
        advanceClock(to: t)
        for d in devices {
            for c in d.services.flatMap(\.characteristics) {
                guard case .flood = c.notify else { continue }
                c.floodRate = max(0, rate)
                guard c.notifying, d.connected else { continue }
                c.generation += 1   // ends the connection events at the old rate
                startNotifying(d, c, t)
            }
        }
    }

    /// A value of the flood: the sequence number (uint32, little-endian), then 16 bytes
    /// of filler, as a sensor's 20-byte sample would be.
    static func floodValue(_ sequence: Int) -> Bytes {
        let n = UInt32(truncatingIfNeeded: sequence)
        return [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)]
            + Bytes(repeating: 0xA5, count: 16)
    }

    /// The sequence number of a flood value, nil for anything else.
    public static func floodSequence(_ value: Bytes) -> Int? {
        guard value.count == 20 else { return nil }
        return Int(value[0]) | Int(value[1]) << 8 | Int(value[2]) << 16 | Int(value[3]) << 24
    }

    func flood(_ d: SimDevice, _ c: SimCharacteristic, every interval: Double, from start: Double) {
        let gen = c.generation
        var owed = 0.0
        func connectionEvent(_ t: Double) {
            guard c.generation == gen, d.connected, c.floodRate > 0 else { return }
            owed += c.floodRate * interval
            let n = Int(owed)
            owed -= Double(n)
            for _ in 0..<n {
                c.floodSent += 1
                c.value = Self.floodValue(c.floodSent)
                emit(t, .valueNotified(c.id, c.value))
            }
            schedule(t + interval) { connectionEvent($0) }
        }
        guard c.floodRate > 0 else { return }
        schedule(start + interval) { connectionEvent($0) }
    }
}
