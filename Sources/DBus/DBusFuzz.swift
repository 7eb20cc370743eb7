@preconcurrency import CDBus
@preconcurrency import Glibc

/// What the fuzz target (Sources/FuzzDecoders) drives in this module: the code a peer's
/// bytes go through, as they go through it from the socket. Nothing else calls these.
public enum DBusFuzz {
    /// `bytes` as a whole message off the wire: libdbus validates it (as it does every
    /// message from the socket); nil when it refuses. Otherwise its body read into values,
    /// read again through the raw body reader (`DBusRawSignal.withBody`, the fast path's
    /// unsafe pointers) and those values sent through a second message: `first` and
    /// `second` must be equal, and `skipped` must be true (the reader walks a validated
    /// body to its end).
    public static func wire(_ bytes: [UInt8]) -> (first: [DBusValue], second: [DBusValue]?, skipped: Bool?)? {
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        let raw: OpaquePointer? = bytes.withUnsafeBufferPointer { buf in
            buf.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: buf.count) { dbus_message_demarshal($0, Int32(buf.count), &err) }
            }
        }
        guard let raw else { return nil }
        let message = DBusMessageRef(owning: raw)
        guard let first = try? DBusMarshal.read(message.raw) else { return nil }
        // The raw reader over the same body, in place and in libdbus's copy: whether it
        // walks the body as its signature says.
        var skipped: Bool?
        if let signal = DBusRawSignal(message.raw), let signature = dbus_message_get_signature(message.raw) {
            let sig = UnsafeRawBufferPointer(start: signature, count: strlen(signature))
            skipped = signal.withBody { r -> Bool? in r.skip(signature: sig) } ?? false
            _ = signal.withValidatedBody { r -> Bool? in r.skip(signature: sig) }
        }
        return (first, try? DBusMarshal.roundTrip(first), skipped)
    }

    /// The raw reader over bytes no one validated: a signature (its length in the first
    /// byte), then the body. Whether the body held values of that signature; never reads
    /// outside the bytes.
    public static func reader(_ bytes: [UInt8]) -> Bool {
        guard let n = bytes.first.map(Int.init), bytes.count > n else { return false }
        let sig = Array(bytes[1..<(1 + n)])
        let body = Array(bytes[(1 + n)...])
        return sig.withUnsafeBytes { s in DBusWireReader.with(body) { $0.skip(signature: s) } }
    }

    /// Values (from anywhere) into a message and back: validation refuses what libdbus
    /// would abort on; nil when refused.
    public static func marshal(_ values: [DBusValue]) -> [DBusValue]? { try? DBusMarshal.roundTrip(values) }
}
