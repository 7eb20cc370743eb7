import Explorer
import DBus

/// The advertising fast path's state and code, in an object of its own: the bus's fast
/// handler holds it strongly. It holds nothing that holds the bus, so there is no cycle, and
/// the call for every signal loads no weak reference to the backend (a weak load, and the
/// release that goes with it, of an object with a side table, took about 1 % of the
/// ingest's time in a profile: docs/bench.md).
@MainActor
final class AdvertisingIngest {
    /// What the fast path changes, in one struct that the call for each signal works on
    /// through one access: as three stored properties of this class, each signal made three
    /// dynamic exclusivity checks (`swift_beginAccess`, about 80 instructions each), one for
    /// every property it touched (docs/bench.md, issue 15).
    var state = State()

    struct State {
        /// Device path -> peripheral, kept by the backend as devices come and go.
        var deviceIDs = DevicePathIndex()
        /// Reports from the fast path, gathered while one read's signals are handed out
        /// (`DBusClient.signalsDispatched`), then sent by the backend as one event: one store
        /// action for a run of signals instead of one each.
        /// A read brings up to a few dozen signals: room for them from the start (and in
        /// each buffer handed back), rather than growing and moving every report five times
        /// a run. Not checked for each signal: an array's capacity asks the allocator
        /// (`malloc_usable_size`), about 0.4 % of the ingest's time in a profile.
        var gathered: [AdvertisementReport] = Self.buffer()
        /// The buffer of the run sent last, emptied, for the next run: a run's reports are
        /// gone once the store has reduced them, and the two buffers take turns instead of
        /// allocating (and growing) a new one for every read of the bus.
        var spare: [AdvertisementReport] = []
        /// PropertiesChanged signals handled, here and on the general path.
        var propertiesChangedCount = 0

        mutating func advertisingChanged(_ s: DBusRawSignal) -> Bool {
            // The signature settles the shape (s, a{sv}, as); only the variants need checking.
            guard s.isMember("PropertiesChanged"), s.isInterface("org.freedesktop.DBus.Properties"),
                  s.hasSignature("sa{sv}as"), let id = deviceIDs.lookup(s.path) else { return false }
            // A plain function, not a closure: a closure formed here would be main-actor
            // isolated and check its executor on every call. It follows the signature
            // checked above, so the body's end need not be found (`withValidatedBody`).
            guard let change = s.withValidatedBody(AdvertisingIngest.readAdvertising) else { return false }
            propertiesChangedCount += 1
            guard change.changed else { return true }
            let manufacturerData: ManufacturerData
            if let more = change.moreCompanies {
                manufacturerData = more
            } else if let data = change.data {
                // One company, nearly always: a literal makes the dictionary at its size
                // (`Dictionary(minimumCapacity:)` and a subscript took 716 instructions for
                // the initializer alone, unspecialized in the standard library; the literal
                // 552 with its hashing, callgrind).
                manufacturerData = [change.company: data]
            } else {
                manufacturerData = [:]
            }
            // An empty report appended, then filled in where it lies: a report built as a
            // value and appended was copied into the array and the original destroyed, and
            // so was its advertisement into it (the optimizer does not forward a value
            // through another module's initializers): about 700 instructions and 14 atomic
            // reference-count operations a signal in callgrind (docs/bench.md, issue 15).
            gathered.append(Self.blank)
            let last = gathered.count - 1
            gathered[last].id = id
            gathered[last].address = id.rawValue
            gathered[last].rssi = change.rssi
            gathered[last].advertisement.manufacturerData = manufacturerData
            return true
        }

        static let blank = AdvertisementReport(id: PeripheralID(""), address: "", name: nil, rssi: nil, connectable: nil,
                                               advertisement: Advertisement())

        /// The run gathered so far, for the backend to send; `recycle` gives its buffer back.
        mutating func takeRun() -> [AdvertisementReport] {
            var run = spare.capacity >= 32 ? spare : Self.buffer()
            spare = []
            swap(&run, &gathered)
            return run
        }

        static func buffer() -> [AdvertisementReport] {
            var b: [AdvertisementReport] = []
            b.reserveCapacity(32)
            return b
        }

        mutating func recycle(_ run: inout [AdvertisementReport]) {
            run.removeAll(keepingCapacity: true)
            if spare.capacity < run.capacity { swap(&spare, &run) }
        }
    }

    /// The fast path for most of a busy room's traffic: a Device1 PropertiesChanged that
    /// carries only RSSI and ManufacturerData (what every advertising report changes),
    /// read straight from the message's bytes (`DBusWireReader`) into a report, without a
    /// value tree, libdbus's iterator or the mirror (which keeps nothing of advertising
    /// data). Anything else, or anything of an unexpected type, returns false and takes the
    /// general path (`BlueZBackend.signal`), which reads the whole message and gives the
    /// same report for these two properties.
    func advertisingChanged(_ s: DBusRawSignal) -> Bool { state.advertisingChanged(s) }

    struct AdvertisingChange {
        var rssi: Int?
        /// The first company's data; every company's (in `moreCompanies`) when there are more.
        var company: UInt16 = 0
        var data: Bytes?
        var moreCompanies: ManufacturerData?
        /// False for a change that carries neither property (nothing to report).
        var changed = false
    }

    /// The body of a Device1 PropertiesChanged (s, a{sv}, as) with only RSSI and
    /// ManufacturerData changed and nothing invalidated, or nil for anything else.
    /// Safe on a body whose end was not found (`withValidatedBody`) only because it checks
    /// the signature inside every variant before it reads the value: keep it that way.
    nonisolated static func readAdvertising(_ w: inout DBusWireReader) -> AdvertisingChange? {
        guard let iface = w.string(), DBusWireReader.same(iface, "org.bluez.Device1"),
              let entriesEnd = w.array(elementAlignment: 8) else { return nil }
        var c = AdvertisingChange()
        while w.offset < entriesEnd {
            guard w.align(8), let key = w.string(), let type = w.signature() else { return nil }
            if DBusWireReader.same(key, "RSSI") {
                guard DBusWireReader.same(type, "n"), let r = w.int16() else { return nil }
                // 0 and 127 mean "not available" (BlueZ clears RSSI to 0 when a scan stops).
                c.rssi = r == 0 || r == 127 ? nil : ReportBounds.rssi(Int(r))
            } else if DBusWireReader.same(key, "ManufacturerData") {
                guard DBusWireReader.same(type, "a{qv}"), let companiesEnd = w.array(elementAlignment: 8) else { return nil }
                while w.offset < companiesEnd {
                    // More than a real advertisement holds: the general path bounds it (ReportBounds).
                    guard w.align(8), let company = w.uint16(), let t = w.signature(), DBusWireReader.same(t, "ay"),
                          let end = w.array(elementAlignment: 1), end - w.offset <= ReportBounds.dataBytes,
                          let data = w.bytes(end - w.offset) else { return nil }
                    if c.data == nil {
                        c.company = company
                        c.data = data
                    } else {
                        if c.moreCompanies == nil { c.moreCompanies = [c.company: c.data!] }
                        c.moreCompanies![company] = data
                        if c.moreCompanies!.count > ReportBounds.dataEntries { return nil }
                    }
                }
            } else {
                return nil
            }
            c.changed = true
        }
        // Invalidated properties (RSSI when a scan stops) take the general path. Nothing
        // follows: libdbus refuses a body longer than its signature ("sa{sv}as") says.
        guard let invalidatedEnd = w.array(elementAlignment: 4), invalidatedEnd == w.offset else { return nil }
        return c
    }
}
