import Glibc

/// A file descriptor carried by a message (`h`). libdbus duplicates a descriptor when it
/// is appended and again each time one is read, so every DBusFD owns its descriptor and
/// closes it when it goes away: a reply or signal nobody asked for (a bluetoothd sending
/// descriptors in odd places) leaks none. Whoever keeps the descriptor calls `take()`.
public final class DBusFD: @unchecked Sendable, Equatable, CustomStringConvertible {
    private var fd: Int32

    /// Takes ownership of `fd`.
    public init(owning fd: Int32) { self.fd = fd }

    /// The descriptor, still owned by this object (-1 once taken).
    public var rawValue: Int32 { fd }

    /// The descriptor, now the caller's to close; this object forgets it.
    public func take() -> Int32 {
        let f = fd
        fd = -1
        return f
    }

    deinit { if fd >= 0 { close(fd) } }

    public static func == (a: DBusFD, b: DBusFD) -> Bool { a === b }
    public var description: String { "fd \(fd)" }
}
