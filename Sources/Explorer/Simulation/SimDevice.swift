/// A seeded pseudo-random generator (SplitMix64): the same seed gives the same world.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
        lo + (hi - lo) * Double(next() >> 11) / Double(1 << 53)
    }
    /// Roughly normal (sum of uniforms), for RSSI noise.
    public mutating func gaussian(_ sigma: Double) -> Double {
        var s = 0.0
        for _ in 0..<4 { s += uniform(-1, 1) }
        return s * sigma * 0.866
    }
}

/// How a simulated characteristic produces notifications once subscribed.
enum NotifyBehaviour: Equatable {
    case none
    /// A new value every `period` seconds (± jitter), from `SimulatedWorld.nextValue`.
    case periodic(period: Double, jitter: Double)
    /// `text` in 20-byte chunks every `chunkInterval`, then "EOM"; again after `pause`.
    case stream(text: String, chunkInterval: Double, pause: Double)
    /// Numbered 20-byte values at the characteristic's `floodRate` a second: at each
    /// connection event (every `connectionInterval`) as many as the rate owes by then
    /// (SimulatedFlood.swift).
    case flood(connectionInterval: Double)
}

final class SimCharacteristic {
    let id: CharacteristicID
    let uuid: BLEUUID
    let properties: CharacteristicProperties
    var value: Bytes
    let notify: NotifyBehaviour
    var descriptors: [GATTDescriptor]
    var descriptorValues: [AttributeID: Bytes] = [:]
    var notifying = false
    /// Readable, writable and subscribable only once the device is paired (ATT's
    /// Insufficient Encryption, which BlueZ answers `NotPermitted: Not paired`).
    var encrypted = false
    var generation = 0   // bumps on every subscribe/unsubscribe: stale timers check it
    /// A `.flood` characteristic's notifications a second (the demo control sets it), and
    /// how many it has sent: the next value carries `floodSent + 1`.
    var floodRate = 0.0
    var floodSent = 0
    /// A sink (the demo's "Data in"): writes are counted, not kept; a read says the count.
    var counts = false
    var receivedBytes = 0, receivedWrites = 0

    init(_ id: CharacteristicID, _ uuid: BLEUUID, _ properties: CharacteristicProperties, value: Bytes,
         notify: NotifyBehaviour = .none, descriptors: [GATTDescriptor]) {
        self.id = id; self.uuid = uuid; self.properties = properties; self.value = value
        self.notify = notify; self.descriptors = descriptors
    }
}

final class SimService {
    let id: AttributeID
    let uuid: BLEUUID
    let characteristics: [SimCharacteristic]
    init(_ id: AttributeID, _ uuid: BLEUUID, _ characteristics: [SimCharacteristic]) {
        self.id = id; self.uuid = uuid; self.characteristics = characteristics
    }
}

/// How a simulated link behaves.
struct LinkBehaviour: Equatable {
    /// The first attempt fails like BlueZ's `le-connection-abort-by-local`, then a retry.
    var abortFirstAttempt = false
    /// The peripheral drops the link this many seconds after services are resolved.
    var dropAfter: Double? = nil
    /// How it pairs (its input and output, as SMP sees them).
    var pairing: SimPairing = .justWorks
}

/// A device's side of pairing: its IO capability, and what it shows. With ours (the agent's
/// capability) it decides the method, as LE Secure Connections does (Core Vol 3, Part H,
/// 2.3.5.1).
enum SimPairing: Equatable {
    /// No input, no output: Just Works.
    case justWorks
    /// A display only (Demo Lock): it shows this passkey for us to type.
    case showsPasskey(UInt32)
    /// A keypad and a display (Demo Keypad): it compares `number` with ours, types the passkey
    /// we show, or shows `passkey` for us to type, as our capability allows.
    case keyboardDisplay(number: UInt32, passkey: UInt32)

    var asksAnything: Bool { self != .justWorks }

    /// The method with an agent of `ours` (nil: none registered, which the demo treats as
    /// the default keyboard-display).
    func method(with ours: AgentCapability?) -> SimPairingMethod {
        let ours = ours ?? .keyboardDisplay
        switch (self, ours) {
        case (.justWorks, _), (_, .noInputNoOutput): return .justWorks
        case let (.showsPasskey(p), .keyboardDisplay), let (.showsPasskey(p), .keyboardOnly): return .enter(p)
        case (.showsPasskey, .displayYesNo), (.showsPasskey, .displayOnly): return .justWorks
        case let (.keyboardDisplay(n, _), .keyboardDisplay), let (.keyboardDisplay(n, _), .displayYesNo): return .confirm(n)
        case let (.keyboardDisplay(_, p), .displayOnly): return .display(p)
        case let (.keyboardDisplay(_, p), .keyboardOnly): return .enter(p)
        }
    }
}

enum SimPairingMethod: Equatable {
    case justWorks
    /// RequestPasskey: we type what the device shows.
    case enter(UInt32)
    /// RequestConfirmation: do both show this number?
    case confirm(UInt32)
    /// DisplayPasskey: we show it, the device's user types it.
    case display(UInt32)
}

final class SimDevice {
    let id: PeripheralID
    let name: String?
    let connectable: Bool
    let advertisement: Advertisement
    let advInterval: Double
    var baseRSSI: Double
    let phase: Double
    var services: [SimService]
    let link: LinkBehaviour
    var connected = false
    var linkGeneration = 0
    var bond = Bond(addressType: "public")
    /// Scripted base RSSI by world time (nil: out of range), for beacons that move.
    var rssiScript: ((Double) -> Double?)?
    /// Its own randomness (the pairing devices, added last): the other devices' runs stay as
    /// they were. nil: the world's.
    var random: SeededRandom?

    init(address: String, name: String?, connectable: Bool, advertisement: Advertisement,
         advInterval: Double, baseRSSI: Double, phase: Double, services: [SimService],
         link: LinkBehaviour = LinkBehaviour()) {
        id = PeripheralID(address)
        self.name = name; self.connectable = connectable; self.advertisement = advertisement
        self.advInterval = advInterval; self.baseRSSI = baseRSSI; self.phase = phase
        self.services = services; self.link = link
    }

    var gatt: [GATTService] {
        services.map { s in
            GATTService(id: s.id, uuid: s.uuid, characteristics: s.characteristics.map {
                GATTCharacteristic(id: $0.id, uuid: $0.uuid, properties: $0.properties, descriptors: $0.descriptors)
            })
        }
    }

    func characteristic(_ id: CharacteristicID) -> SimCharacteristic? {
        for s in services { if let c = s.characteristics.first(where: { $0.id == id }) { return c } }
        return nil
    }
}
