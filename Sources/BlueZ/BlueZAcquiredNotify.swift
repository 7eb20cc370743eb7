@preconcurrency import Glibc
import CSocket
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
    /// One acquired subscription. Its watch and its rest hold it, so a read finds it without
    /// looking it up: hashing its path, five times a read, was a fifth of what a read cost
    /// outside the reducer (callgrind, 2026-12-06).
    final class Socket {
        let fd: Int32
        var watch: EventLoop.WatchID?
        /// While values are coming (`rest`): when the socket is read next; its watch is off.
        var resting: EventLoop.TimerID?
        /// False once let go (closed): a value can end the command, which lets it go.
        private(set) var isOpen = true
        init(fd: Int32) { self.fd = fd }
        func close() { isOpen = false; _ = Glibc.close(fd) }
    }
    /// By characteristic path.
    var sockets: [String: Socket] = [:]
    /// Where one recvmmsg puts what it reads; made at the first read.
    lazy var batch = Batch()
    /// Off by `BLEEXPLR_NOTIFY=start` (peripherals that misbehave with it).
    static let wanted = getenv("BLEEXPLR_NOTIFY").map { String(cString: $0) } != "start"
    /// One notification at most: 512 bytes of value (the ATT limit), with room to spare.
    static let readSize = 1024
    /// Values read from one socket per turn of the loop, so that a flood leaves keys live.
    static let perTurn = 64
    /// After a read that found values, the socket is read again this much later, not at its
    /// next value: in a flood the values wait in the socket (bluetoothd's end holds about
    /// 200 KB) and several come to one wake-up of the app, each stamped with the time the
    /// kernel queued it (SO_TIMESTAMPNS), not the time it was read. A value after a quiet
    /// moment is read at once; in a flood one is at most this late, half a frame (33 ms).
    /// In the lab's emulated guest a wake-up costs as much as several notifications: at
    /// 8 ms, bleexplr woke 9 times a 100 notifications and recorded them at 0.59x bleak's
    /// CPU; at 16 ms, 5 times and 0.47x (`make bench-link`, trixie, paired rounds,
    /// 2026-12-06; docs/bench.md).
    static let rest = 0.016
    /// SO_TIMESTAMPNS and its control message SCM_TIMESTAMPNS (asm-generic/socket.h: the
    /// same on x86-64 and arm64; glibc's macro for it does not reach Swift).
    static let timestampOption: Int32 = 35

    /// `perTurn` messages for one recvmmsg(2): each its value (`readSize` bytes) and its
    /// control message (the time), made once. One system call reads what a wake-up finds,
    /// not one a value (in the lab's emulated guest, a system call costs as much as a
    /// value's whole reduction).
    final class Batch {
        static let controlSize = 64   // a cmsghdr (16 bytes) and a timespec (16), with room to spare
        /// struct mmsghdr: a struct msghdr, then the length (unsigned int), padded to 8.
        static let lengthOffset = MemoryLayout<msghdr>.size
        static let headerStride = (lengthOffset + MemoryLayout<UInt32>.size + 7) & ~7
        let data = UnsafeMutableRawPointer.allocate(byteCount: perTurn * readSize, alignment: 16)
        let control = UnsafeMutableRawPointer.allocate(byteCount: perTurn * controlSize, alignment: 16)
        let vectors = UnsafeMutablePointer<iovec>.allocate(capacity: perTurn)
        let headers = UnsafeMutableRawPointer.allocate(byteCount: perTurn * headerStride, alignment: 16)

        init() {
            headers.initializeMemory(as: UInt8.self, repeating: 0, count: perTurn * Self.headerStride)
            for i in 0..<perTurn {
                vectors[i] = iovec(iov_base: data + i * readSize, iov_len: readSize)
                var h = msghdr()
                h.msg_iov = vectors + i
                h.msg_iovlen = 1
                h.msg_control = control + i * Self.controlSize
                h.msg_controllen = Self.controlSize
                headers.storeBytes(of: h, toByteOffset: i * Self.headerStride, as: msghdr.self)
            }
        }

        /// What the kernel filled in message `i`: its length, and its control messages' length.
        func received(_ i: Int) -> (length: Int, controlLength: Int) {
            let h = headers.load(fromByteOffset: i * Self.headerStride, as: msghdr.self)
            return (Int(headers.load(fromByteOffset: i * Self.headerStride + Self.lengthOffset, as: UInt32.self)),
                    Int(h.msg_controllen))
        }

        /// Room for message `i`'s control messages again, for the next call.
        func reset(_ i: Int) {
            headers.storeBytes(of: Self.controlSize, toByteOffset: i * Self.headerStride + MemoryLayout<msghdr>.offset(of: \.msg_controllen)!,
                               as: Int.self)
        }

        deinit {
            data.deallocate()
            control.deallocate()
            vectors.deallocate()
            headers.deallocate()
        }
    }
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
            var on: Int32 = 1
            _ = setsockopt(raw, SOL_SOCKET, AcquiredNotifications.timestampOption, &on, socklen_t(MemoryLayout<Int32>.size))
            self.releaseAcquired(cid.path)   // a second subscription replaces the first
            let socket = AcquiredNotifications.Socket(fd: raw)
            socket.watch = loop.addWatch(fd: raw, events: Int16(POLLIN)) { [weak self] revents in
                self?.acquiredReadable(cid, socket, revents)
            }
            self.acquired.sockets[cid.path] = socket
            self.subscribed.insert(cid.path)
            self.send(.notificationsAcquired(cid, mtu: mtu))
            self.send(.notifyChanged(cid, enabled: true, nil))
        }
    }

    /// The socket is readable (or at its end): reads what it holds (a bounded number per
    /// turn); when that was something, rests (`AcquiredNotifications.rest`) with its watch
    /// off, and reads again when the rest is over; when it was nothing, waits on the watch.
    /// At its end (bluetoothd closed it: the link dropped, or it stopped the notifications),
    /// lets it go.
    func acquiredReadable(_ cid: CharacteristicID, _ socket: AcquiredNotifications.Socket, _ revents: Int16) {
        guard socket.isOpen, let loop, let watch = socket.watch else { return }
        let (read, open) = readAcquired(cid, socket)
        // Let go meanwhile (a value ended the command, or its subscription): nothing more.
        guard socket.isOpen else { return }
        guard open, revents & Int16(POLLHUP | POLLERR) == 0 || read == AcquiredNotifications.perTurn else {
            return closedByBlueZ(cid)
        }
        if read == 0 {
            loop.setWatch(watch, enabled: true)
            return
        }
        loop.setWatch(watch, enabled: false)
        let after = read == AcquiredNotifications.perTurn ? 0 : AcquiredNotifications.rest
        socket.resting = loop.schedule(after: after) { [weak self] in
            guard let self, socket.resting != nil else { return }
            socket.resting = nil
            self.acquiredReadable(cid, socket, 0)
        }
    }

    /// Up to `perTurn` values from the socket in one recvmmsg, sent as one batch, each with
    /// the time the kernel queued it; how many, and whether the socket is still open (false:
    /// bluetoothd closed it, or an error other than EAGAIN).
    private func readAcquired(_ cid: CharacteristicID, _ socket: AcquiredNotifications.Socket) -> (read: Int, open: Bool) {
        let b = acquired.batch
        let n = Int(bleexplr_recvmmsg(socket.fd, b.headers, UInt32(AcquiredNotifications.perTurn), Int32(MSG_DONTWAIT), nil))
        guard n > 0 else { return (0, n < 0 && (errno == EAGAIN || errno == EINTR)) }
        var values: [NotifiedValue] = []
        values.reserveCapacity(n)
        var readTime: Timestamp?
        var open = true
        for i in 0..<n {
            let (length, controlLength) = b.received(i)
            b.reset(i)
            // A message of nothing: bluetoothd closed its end (what came before it stands).
            guard length > 0 else { open = false; break }
            let control = UnsafeMutableRawBufferPointer(start: b.control + i * AcquiredNotifications.Batch.controlSize,
                                                        count: AcquiredNotifications.Batch.controlSize)
            let stamp = Self.kernelTime(control, length: controlLength)
            let at = stamp ?? readTime ?? Timestamp.now()
            if stamp == nil { readTime = at }
            let bytes = UnsafeRawBufferPointer(start: b.data + i * AcquiredNotifications.readSize,
                                               count: min(length, AcquiredNotifications.readSize))
            values.append(NotifiedValue(Array(bytes), at: at))
        }
        guard let last = values.last else { return (0, open) }
        send(.valuesNotified(cid, values), at: last.at)
        // A value may have ended the command or its subscription: the socket is gone.
        return (values.count, open && socket.isOpen)
    }

    /// What waits in the sockets under `prefix` (a device's or a service's path), read
    /// before they are let go with the link: a socket resting between two reads of a flood
    /// (`AcquiredNotifications.rest`) can hold the last values, which came before the link
    /// dropped (the chunk with a message's end marker, the count's last value).
    func drainAcquired(under prefix: String) {
        for (path, socket) in acquired.sockets where path == prefix || path.hasPrefix(prefix + "/") {
            let cid = CharacteristicID(path)
            var turns = 0
            while turns < 16, socket.isOpen, readAcquired(cid, socket).read == AcquiredNotifications.perTurn { turns += 1 }
        }
    }

    /// SCM_TIMESTAMPNS's time in the control messages of one recvmsg (nil: none there).
    /// The layout is 64-bit Linux's (x86-64, arm64): elsewhere no time, and values take the
    /// time they were read.
    static func kernelTime(_ control: UnsafeMutableRawBufferPointer, length: Int) -> Timestamp? {
        guard MemoryLayout<Int>.size == 8 else { return nil }
        let header = 16   // CMSG_ALIGN(sizeof(struct cmsghdr)) on 64-bit Linux
        let length = min(length, control.count)
        var offset = 0
        while offset + header <= length {
            let size = control.load(fromByteOffset: offset, as: Int.self)
            let level = control.load(fromByteOffset: offset + 8, as: Int32.self)
            let type = control.load(fromByteOffset: offset + 12, as: Int32.self)
            guard size >= header, size <= length - offset else { return nil }
            if level == SOL_SOCKET, type == AcquiredNotifications.timestampOption, size >= header + 16 {
                let sec = control.load(fromByteOffset: offset + header, as: Int.self)
                let nsec = control.load(fromByteOffset: offset + header + 8, as: Int.self)
                return sec > 0 ? Timestamp(Double(sec) + Double(nsec) / 1e9) : nil
            }
            offset += (size + 7) & ~7
        }
        return nil
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
        if let w = socket.watch { loop?.removeWatch(w) }
        if let t = socket.resting { loop?.cancel(t) }
        socket.close()
        return true
    }

    /// Every socket under `prefix` (a device's path; "" for all), AcquireWrite's too.
    func releaseAcquired(under prefix: String) {
        for path in acquired.sockets.keys where prefix.isEmpty || path.hasPrefix(prefix + "/") { releaseAcquired(path) }
        for path in acquiredWrites.sockets.keys where prefix.isEmpty || path.hasPrefix(prefix + "/") { releaseWrites(path) }
    }
}
