@preconcurrency import Glibc
import Explorer
import DBus

/// A socket bluetoothd took with AcquireNotify: each packet written to it is one
/// notification (bluetoothd reads it and sends it to every central subscribed), with no
/// D-Bus message per value. bluetoothd closes its end when the last central unsubscribes
/// or the link drops. What does not fit waits here (`pending`) for the socket to take it.
struct NotifySocket {
    var fd: Int32
    var watch: EventLoop.WatchID
    var pending: [Bytes] = []
    /// `drained` callbacks waiting for `pending` to go out.
    var waiting: [@MainActor (Bool) -> Void] = []
    /// Off with `BLEEXPLR_NOTIFY=start`, as on the central side: notifications go as
    /// PropertiesChanged, the way every bus allows.
    static let wanted = getenv("BLEEXPLR_NOTIFY").map { String(cString: $0) } != "start"
    /// Values waiting at most: `--stream` sends a window at a time; a control line's
    /// notification more than this behind is refused (said "sent no").
    static let pendingLimit = 64
}

extension GattServer {
    /// AcquireNotify from bluetoothd (a central wrote the CCCD): a SOCK_SEQPACKET pair,
    /// one end to bluetoothd with the link's MTU, ours kept for `notify`.
    func acquireNotify(_ o: GattObjects.Object, _ opts: [String: DBusValue]) -> DBusReply {
        guard o.flags.contains("notify") else {
            return .error(DBusError(name: "org.bluez.Error.NotSupported", message: "notifications are not a property of \(o.uuid)"))
        }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            return .error(DBusError(name: "org.bluez.Error.Failed", message: "socketpair: \(String(cString: strerror(errno)))"))
        }
        let ours = pair[0], theirs = DBusFD(owning: pair[1])   // libdbus sends a copy of theirs; ours closes when it goes
        _ = fcntl(ours, F_SETFL, fcntl(ours, F_GETFL) | O_NONBLOCK)
        closeSocket(o.path, said: false)   // a second acquisition replaces the first
        let who = asker(o, false, opts)
        let mtu = opts["mtu"]?.int.map { min(517, max(23, $0)) } ?? 23
        let watch = loop.addWatch(fd: ours, events: Int16(POLLIN)) { [weak self] revents in
            self?.socketEvent(o.path, revents)
        }
        sockets[o.path] = NotifySocket(fd: ours, watch: watch)
        objects.notifying.insert(o.path)
        objects.acquired.insert(o.path)
        onEvent?(.acquired(who, mtu: mtu))
        return .values([.unixFD(theirs), .uint16(UInt16(mtu))])
    }

    /// Sends one value through the socket, or keeps it until the socket takes more.
    /// False: it did not go (the socket is gone, or too much waits already).
    func sendThroughSocket(_ path: String, _ bytes: Bytes) -> Bool {
        guard var s = sockets[path] else { return false }
        if s.pending.isEmpty {
            switch write(s.fd, bytes) {
            case .sent: return true
            case .full: break
            case .closed: closeSocket(path, said: true); return false
            }
        }
        guard s.pending.count < NotifySocket.pendingLimit else { return false }
        s.pending.append(bytes)
        sockets[path] = s
        loop.setWatch(s.watch, events: Int16(POLLIN | POLLOUT))
        return true
    }

    /// `done` once nothing waits for the sockets of `uuid` (at once when nothing does).
    func socketsDrained(_ uuid: BLEUUID, _ done: @escaping @MainActor (Bool) -> Void) {
        guard let path = objects.characteristics(uuid).first(where: { sockets[$0]?.pending.isEmpty == false }) else {
            _ = loop.schedule(after: 0) { done(true) }
            return
        }
        sockets[path]?.waiting.append(done)
    }

    enum SocketWrite { case sent, full, closed }

    private func write(_ fd: Int32, _ bytes: Bytes) -> SocketWrite {
        let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        if n >= 0 { return .sent }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS || errno == EINTR ? .full : .closed
    }

    /// Room again (POLLOUT): what waited goes out; or bluetoothd closed its end (HUP).
    private func socketEvent(_ path: String, _ revents: Int16) {
        guard var s = sockets[path] else { return }
        if revents & Int16(POLLHUP | POLLERR) != 0 { return closeSocket(path, said: true) }
        if revents & Int16(POLLIN) != 0 {
            var sink = [UInt8](repeating: 0, count: 1024)   // bluetoothd writes nothing here; read what it did
            if recv(s.fd, &sink, sink.count, Int32(MSG_DONTWAIT)) == 0 { return closeSocket(path, said: true) }
        }
        while let next = s.pending.first {
            switch write(s.fd, next) {
            case .sent: s.pending.removeFirst()
            case .full: sockets[path] = s; return
            case .closed: sockets[path] = s; return closeSocket(path, said: true)
            }
        }
        let waiting = s.waiting
        s.waiting = []
        sockets[path] = s
        loop.setWatch(s.watch, events: Int16(POLLIN))
        for done in waiting { done(true) }
    }

    /// Lets a socket go; `said`: the central unsubscribed (or the link dropped) as far as
    /// serve can tell, which it hears as an unsubscription.
    func closeSocket(_ path: String, said: Bool) {
        guard let s = sockets.removeValue(forKey: path) else { return }
        loop.removeWatch(s.watch)
        close(s.fd)
        objects.acquired.remove(path)
        objects.notifying.remove(path)
        for done in s.waiting { done(false) }
        guard said, let o = objects.object(path) else { return }
        onEvent?(.unsubscribed(CharacteristicEvent(uuid: o.uuid, path: path, central: nil)))
    }

    func closeSockets() {
        for path in Array(sockets.keys) { closeSocket(path, said: false) }
    }
}
