@preconcurrency import Glibc
import Explorer
import DBus

/// Notifications through `AcquireNotify`: bluetoothd hands over a SOCK_SEQPACKET socket
/// and the link's MTU, and each read of the socket is one notification, with no D-Bus
/// signal per value (what bleak does by default). Used where the bus passes file
/// descriptors (a Unix socket bus; never the lab's TCP bus, where AcquireNotify goes
/// unanswered) and the characteristic offers it (`NotifyAcquired` present: notify, not
/// indicate-only). Anything else, or any refusal, goes the StartNotify way, and values
/// come as PropertiesChanged on `Value`. Closing the socket is BlueZ's StopNotify.
struct AcquiredNotifications {
    struct Socket {
        var fd: Int32
        var watch: EventLoop.WatchID
    }
    /// By characteristic path.
    var sockets: [String: Socket] = [:]
    /// Off by `BLEEXPLR_NOTIFY=start` (peripherals that misbehave with it).
    static let wanted = getenv("BLEEXPLR_NOTIFY").map { String(cString: $0) } != "start"
    /// One notification at most: 512 bytes of value (the ATT limit), with room to spare.
    static let readSize = 1024
    /// Values read from one socket per turn of the loop, so that a flood leaves keys live.
    static let perTurn = 64
}

extension BlueZBackend {
    /// Whether `cid` can go the AcquireNotify way on this bus.
    func canAcquireNotify(_ path: String) -> Bool {
        guard AcquiredNotifications.wanted, bus.canPassFileDescriptors, loop != nil,
              let props = mirror[path, BlueZTranslate.characteristic], props["NotifyAcquired"] != nil,
              props["Flags"]?.strings?.contains("notify") == true else { return false }
        return true
    }

    /// AcquireNotify; on any refusal, StartNotify (`startNotify`), whose answer is the one
    /// reported.
    func acquireNotify(_ cid: CharacteristicID, otherwise startNotify: @escaping @MainActor () -> Void) {
        call(cid.path, BlueZTranslate.characteristic, "AcquireNotify", [.vardict([:])],
             timeout: Self.gattTimeout) { [weak self] result in
            guard let self else { return }
            guard case let .success(args) = result, args.count == 2, let fd = args[0].fd,
                  let mtu = args[1].int, let loop = self.loop else { return startNotify() }
            let raw = fd.take()
            _ = fcntl(raw, F_SETFL, fcntl(raw, F_GETFL) | O_NONBLOCK)
            self.releaseAcquired(cid.path)   // a second subscription replaces the first
            let watch = loop.addWatch(fd: raw, events: Int16(POLLIN)) { [weak self] revents in
                self?.acquiredReadable(cid, revents)
            }
            self.acquired.sockets[cid.path] = .init(fd: raw, watch: watch)
            self.subscribed.insert(cid.path)
            self.send(.notificationsAcquired(cid, mtu: mtu))
            self.send(.notifyChanged(cid, enabled: true, nil))
        }
    }

    /// Reads what the socket holds (a bounded number per turn); at its end (bluetoothd
    /// closed it: the link dropped, or it stopped the notifications), lets it go.
    func acquiredReadable(_ cid: CharacteristicID, _ revents: Int16) {
        guard let socket = acquired.sockets[cid.path] else { return }
        var buffer = [UInt8](repeating: 0, count: AcquiredNotifications.readSize)
        for _ in 0..<AcquiredNotifications.perTurn {
            let n = buffer.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                send(.valueNotified(cid, Array(buffer[0..<n])))
                continue
            }
            if n < 0 && (errno == EAGAIN || errno == EINTR) {
                if revents & Int16(POLLHUP | POLLERR) == 0 { return }
            }
            break   // 0: closed by bluetoothd; an error other than EAGAIN; or hung up, drained
        }
        if revents & Int16(POLLHUP | POLLERR) == 0, recvReady(socket.fd) { return }
        closedByBlueZ(cid)
    }

    /// More to read next turn (the per-turn budget ran out), not a socket at its end.
    private func recvReady(_ fd: Int32) -> Bool {
        var one: UInt8 = 0
        let n = recv(fd, &one, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n > 0
    }

    /// bluetoothd closed the socket. When the link dropped, the disconnection says it all
    /// (and restores the subscription on reconnecting); when the link is still up a moment
    /// later, notifications stopped, and the app hears that they are off.
    private func closedByBlueZ(_ cid: CharacteristicID) {
        releaseAcquired(cid.path)
        subscribed.remove(cid.path)
        guard let loop else { return }
        _ = loop.schedule(after: 0.5) { [weak self] in
            guard let self, self.acquired.sockets[cid.path] == nil, !self.subscribed.contains(cid.path) else { return }
            guard let (_, device) = self.owningDevice(cid.path),
                  self.mirror[device, BlueZTranslate.device]?["Connected"]?.bool == true else { return }
            self.send(.notifyChanged(cid, enabled: false, nil))
        }
    }

    /// Closes the socket (BlueZ stops the notifications): StopNotify's way for an acquired one.
    @discardableResult
    func releaseAcquired(_ path: String) -> Bool {
        guard let socket = acquired.sockets.removeValue(forKey: path) else { return false }
        loop?.removeWatch(socket.watch)
        close(socket.fd)
        return true
    }

    /// Every socket under `prefix` (a device's path; "" for all), AcquireWrite's too.
    func releaseAcquired(under prefix: String) {
        for path in acquired.sockets.keys where prefix.isEmpty || path.hasPrefix(prefix + "/") { releaseAcquired(path) }
        for path in acquiredWrites.sockets.keys where prefix.isEmpty || path.hasPrefix(prefix + "/") { releaseWrites(path) }
    }
}
