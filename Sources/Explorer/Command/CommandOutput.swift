/// What a command says, as data: the job reducer decides it from the state, the
/// `CommandPrinter` turns it into text or JSON Lines (docs/output.md), the executable
/// writes it. The same value reads the same here as on the app's screens: the name is
/// the device's 0x2901 label or the SIG name, `decoded` follows its 0x2904 format.
public enum CommandOutput: Equatable, Sendable {
    /// `scan --duration`: the devices heard, in the scan list's order.
    case devices([Peripheral])
    /// `scan` without `--duration`: a device heard, changed or gone.
    case scanEvent(LiveScan.Event)
    /// `decode`: raw advertising bytes, parsed.
    case decoded(DecodeReport)
    case services(ServicesReport)
    /// A value read or notified.
    case value(ValueReport)
    case wrote(WriteReport)
    /// `notify --until`: the joined message.
    case message(MessageReport)
    /// `write --file`: the stream went, this fast, this way.
    case streamWritten(StreamWriteReport)
    /// `watch`'s running commentary: start, subscribed, link, error, hook.
    case watch(event: String, message: String, seq: Int?)
    /// `monitor`: a region entered or left.
    case region(RegionTransition)
    /// Why the command failed (stderr; exit status 1).
    case failure(String)
    /// Something the user should know that is not a result (stderr).
    case warning(String)
    /// `bench-ingest`: the marker device appeared.
    case benchEnd
    /// `serve`: what centrals did, and the stream's progress.
    case serve(ServeLine)
}

public struct ValueReport: Equatable, Sendable {
    public var at: Timestamp
    public var address: String
    public var uuid: BLEUUID
    /// The device's own label (0x2901), else the SIG name.
    public var name: String?
    public var origin: ValueOrigin
    /// Read from this offset on (a tail is not decoded).
    public var offset: UInt16
    public var bytes: Bytes
    /// The meaning, as the app shows it.
    public var decoded: DecodedValue?
    /// `read --descriptor`: the descriptor read (of the characteristic `uuid`) and its handle.
    public var descriptor: BLEUUID?
    public var handle: UInt16?
    /// One of several devices' (`notify A UUID B UUID`): a text line starts with the
    /// address and UUID (JSON lines always carry them).
    public var named = false
    /// `notify`: the link's ATT MTU, AcquireNotify's when the notifications come through its
    /// socket, else bluetoothd's GattCharacteristic1.MTU; nil when neither said one.
    public var mtu: Int?

    public init(at: Timestamp, address: String, uuid: BLEUUID, name: String?, origin: ValueOrigin, offset: UInt16 = 0,
                bytes: Bytes, decoded: DecodedValue?) {
        self.at = at; self.address = address; self.uuid = uuid; self.name = name; self.origin = origin
        self.offset = offset; self.bytes = bytes; self.decoded = decoded
    }
}

public struct WriteReport: Equatable, Sendable {
    public var at: Timestamp
    public var address: String
    public var uuid: BLEUUID
    public var bytes: Bytes
    public var type: WriteType
    /// A write request longer than one PDU: BlueZ wrote it long (Prepare and Execute Write).
    public var long = false
    /// `write --descriptor`: the descriptor written and its handle.
    public var descriptor: BLEUUID? = nil
    public var handle: UInt16? = nil
}

public struct MessageReport: Equatable, Sendable {
    public var address: String
    public var uuid: BLEUUID
    public var bytes: Bytes
    public var chunks: Int
    public var seconds: Double
    public var framing: StreamFraming = .plain
    /// `seq`: chunks that came out of order and were put back in place.
    public var reordered = 0
    /// The link's ATT MTU, as in `ValueReport.mtu`.
    public var mtu: Int?
    public var kbitPerSecond: Double { Double(bytes.count) * 8 / 1000 / max(0.001, seconds) }
}

/// A device's GATT database with what its descriptors said.
public struct ServicesReport: Equatable, Sendable {
    public struct Characteristic: Equatable, Sendable {
        public var characteristic: GATTCharacteristic
        /// 0x2901, else the SIG name.
        public var name: String?
        public var userDescription: String?
        public var presentationFormat: PresentationFormat?
        /// What its descriptors were read to say (0x2901 and 0x2904 on connecting).
        public var descriptorValues: [AttributeID: Bytes] = [:]
    }
    public struct Service: Equatable, Sendable {
        public var service: GATTService
        public var characteristics: [Characteristic]
    }
    public var address: String
    public var mtu: Int?
    public var services: [Service]
}

/// The rule the screens decode a value by: the user's format for its UUID (the
/// configuration); else the device's 0x2904 format when it covers the value; else the
/// decoder for its UUID.
public struct ValueDecoding: Sendable {
    let uuid: BLEUUID
    let configured: ValueFormat?
    let presentation: PresentationFormat?

    public func value(_ b: Bytes) -> DecodedValue? {
        if let f = configured { return DecodedValue(f.render(b, uuid: uuid)) }
        return presentation?.decodedValue(b) ?? ValueDecoder.standard(uuid, b)
    }
}

extension AppState {
    /// What a characteristic is called here: the user's name for it (the configuration),
    /// else its 0x2901 label, else the SIG name.
    public func name(_ c: GATTCharacteristic) -> String? {
        UserNames.current.name(c.uuid) ?? userDescription(c) ?? AssignedNumbers.characteristicName(c.uuid)
    }

    /// The meaning of a value by the rule the screens use (`ValueDecoding`).
    public func decodedValue(_ c: GATTCharacteristic, _ b: Bytes) -> DecodedValue? {
        decoding(c).value(b)
    }

    /// How the values of a characteristic are decoded, worked out once for any number of
    /// them (a batch of notifications' recorded lines).
    public func decoding(_ c: GATTCharacteristic) -> ValueDecoding {
        let configured = UserNames.current.format(c.uuid)
        return ValueDecoding(uuid: c.uuid, configured: configured, presentation: configured == nil ? presentationFormat(c) : nil)
    }

    public func valueReport(_ p: Peripheral, _ c: GATTCharacteristic, _ bytes: Bytes, at: Timestamp,
                            origin: ValueOrigin, offset: UInt16 = 0) -> ValueReport {
        ValueReport(at: at, address: p.address, uuid: c.uuid, name: name(c), origin: origin, offset: offset, bytes: bytes,
                    decoded: offset > 0 ? nil : decodedValue(c, bytes))
    }

    public func servicesReport(_ p: Peripheral) -> ServicesReport {
        ServicesReport(address: p.address, mtu: p.mtu, services: (p.services ?? []).map { s in
            .init(service: s, characteristics: s.characteristics.map { c in
                .init(characteristic: c, name: name(c), userDescription: userDescription(c),
                      presentationFormat: presentationFormat(c),
                      descriptorValues: descriptorValues.filter { v in c.descriptors.contains { $0.id == v.key } })
            })
        })
    }

    /// A notification as a hook sees it (`watch`, `a`): named and decoded as shown.
    public func firedEvent(at: Timestamp, address: String, _ c: GATTCharacteristic, _ bytes: Bytes) -> FiredEvent {
        var e = FiredEvent(at: at, address: address, uuid: c.uuid, bytes: bytes)
        e.name = name(c)
        e.decoded = decodedValue(c, bytes)?.text
        return e
    }
}
