@preconcurrency import Glibc
import Explorer
import DBus

/// Writes without response through `AcquireWrite`: bluetoothd hands over one end of a
/// SOCK_SEQPACKET socket pair and the link's MTU; each packet written on it becomes one
/// ATT Write Command (bluetoothd reads at most 512 bytes a packet, and drops one longer
/// than MTU - 3 without a word, so no longer one is written). No D-Bus call a write.
/// Used where the bus passes file descriptors (a Unix socket bus; not the lab's TCP bus)
/// and the characteristic offers it (`WriteAcquired` present: write-without-response).
/// Anything else, or a refusal, is WriteValue with type "command". While the socket is
/// held, bluetoothd refuses WriteValue on the characteristic ("Write acquired"); closing
/// it lets go.
///
/// Back-pressure: writes wait in `queue` and go when poll(2) says the socket takes them
/// (POLLOUT); EAGAIN leaves them there until it does. Never a busy loop.
struct AcquiredWrites {
    struct Socket {
        var fd: Int32
        var watch: EventLoop.WatchID
        var mtu: Int
        var queue: [Bytes] = []
    }
    /// By characteristic path.
    var sockets: [String: Socket] = [:]
    /// Off by `BLEEXPLR_WRITE=value` (WriteValue always).
    static let wanted = getenv("BLEEXPLR_WRITE").map { String(cString: $0) } != "value"
    /// Writes made per turn of the loop, so that signals and the bus stay live.
    static let perTurn = 256
    /// How long `flushWrites` waits for bluetoothd to read what is left in the socket.
    static let flushLimit = 10.0
}

extension BlueZBackend {
    /// AcquireWrite where it can be had; the answer is `writeAcquired` or `writeNotAcquired`.
    func acquireWrite(_ cid: CharacteristicID) {
        if let held = acquiredWrites.sockets[cid.path] { return send(.writeAcquired(cid, mtu: held.mtu)) }
        let props = mirror[cid.path, BlueZTranslate.characteristic]
        let why: String? = !AcquiredWrites.wanted ? "BLEEXPLR_WRITE=value"
            : !bus.canPassFileDescriptors || loop == nil ? "this bus cannot pass file descriptors (AcquireWrite needs a Unix socket bus)"
            : props?["WriteAcquired"] == nil ? "bluetoothd offers no socket for it (no WriteAcquired)"
            : nil
        if let why { return notAcquired(cid, why) }
        call(cid.path, BlueZTranslate.characteristic, "AcquireWrite", [.vardict([:])], timeout: Self.gattTimeout) { [weak self] result in
            guard let self else { return }
            switch result {
            case let .success(args):
                guard args.count == 2, let fd = args[0].fd, let mtu = args[1].int, (23...517).contains(mtu), let loop = self.loop else {
                    return self.notAcquired(cid, "AcquireWrite answered without a socket and an MTU")
                }
                let raw = fd.take()
                _ = fcntl(raw, F_SETFL, fcntl(raw, F_GETFL) | O_NONBLOCK)
                let watch = loop.addWatch(fd: raw, events: Int16(POLLOUT), enabled: false) { [weak self] revents in
                    self?.socketWritable(cid, revents)
                }
                self.acquiredWrites.sockets[cid.path] = .init(fd: raw, watch: watch, mtu: mtu)
                self.send(.writeAcquired(cid, mtu: mtu))
            case let .failure(e):
                self.notAcquired(cid, "AcquireWrite refused: \(BlueZTranslate.backendError(e))")
            }
        }
    }

    /// WriteValue it is, with the MTU the characteristic says now: bluetoothd 5.66 exports a
    /// device's cached characteristics without one, and says nothing when the link brings it.
    private func notAcquired(_ cid: CharacteristicID, _ why: String) {
        bus.call(DBusCall(destination: Self.bluez, path: cid.path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                          args: [.string(BlueZTranslate.characteristic), .string("MTU")]), timeout: 5) { [weak self] result in
            let mtu = (try? result.get())?.first?.int.flatMap { (23...517).contains($0) ? $0 : nil }
            self?.send(.writeNotAcquired(cid, reason: why, mtu: mtu))
        }
    }

    /// A write without response through the acquired socket; false when there is none.
    func writeThroughSocket(_ cid: CharacteristicID, _ bytes: Bytes) -> Bool {
        guard let socket = acquiredWrites.sockets[cid.path] else { return false }
        guard bytes.count <= min(512, socket.mtu - 3) else {
            send(.writeCompleted(cid, bytes, .command, .invalidValueLength(
                "\(bytes.count) bytes do not fit one write without response at MTU \(socket.mtu) (\(socket.mtu - 3) at most)")))
            return true
        }
        acquiredWrites.sockets[cid.path]?.queue.append(bytes)
        loop?.setWatch(socket.watch, enabled: true)
        return true
    }

    /// The socket takes more: what waits goes, a bounded number per turn. Each write sent
    /// is answered at once (`writeCompleted`), and the answer may queue the next.
    func socketWritable(_ cid: CharacteristicID, _ revents: Int16) {
        var made = 0
        while made < AcquiredWrites.perTurn, let socket = acquiredWrites.sockets[cid.path], let bytes = socket.queue.first {
            let n = bytes.withUnsafeBytes { Glibc.send(socket.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n == bytes.count {
                acquiredWrites.sockets[cid.path]?.queue.removeFirst()
                made += 1
                send(.writeCompleted(cid, bytes, .command, nil))
                continue
            }
            if n < 0, errno == EAGAIN || errno == EINTR, revents & Int16(POLLHUP | POLLERR) == 0 { return }   // POLLOUT again
            // bluetoothd closed its end (the link dropped, or it let the socket go).
            let why = n < 0 ? String(cString: strerror(errno)) : "closed"
            releaseWrites(cid.path)
            return send(.writeCompleted(cid, bytes, .command, .failed("the AcquireWrite socket was closed by bluetoothd (\(why))")))
        }
        if let socket = acquiredWrites.sockets[cid.path], socket.queue.isEmpty { loop?.setWatch(socket.watch, enabled: false) }
    }

    /// `flushWrites`: once bluetoothd has read every packet left in the socket (its send
    /// queue, SIOCOUTQ, is empty: each packet read is in its ATT queue), the socket is let
    /// go and `writesFlushed` said. WriteValue's writes were taken when answered.
    func flushWrites(_ cid: CharacteristicID, waited: Double = 0) {
        guard let socket = acquiredWrites.sockets[cid.path] else { return send(.writesFlushed(cid)) }
        var unread: Int32 = 0
        let asked = ioctl(socket.fd, UInt(TIOCOUTQ), &unread)
        if socket.queue.isEmpty, asked != 0 || unread == 0 || waited >= AcquiredWrites.flushLimit {
            releaseWrites(cid.path)
            return send(.writesFlushed(cid))
        }
        // bluetoothd reads as fast as its loop turns: a few milliseconds.
        _ = loop?.schedule(after: 0.002) { [weak self] in self?.flushWrites(cid, waited: waited + 0.002) }
    }

    /// Closes the socket (bluetoothd lets WriteValue through again).
    func releaseWrites(_ path: String) {
        guard let socket = acquiredWrites.sockets.removeValue(forKey: path) else { return }
        loop?.removeWatch(socket.watch)
        close(socket.fd)
    }
}
