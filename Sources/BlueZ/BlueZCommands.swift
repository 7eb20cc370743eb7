import Explorer
import DBus

/// BlueZBackend's commands: scan, connect, read, write, notify (org.bluez method calls).
extension BlueZBackend {
    public func execute(_ command: BackendCommand) {
        switch command {
        case .startScan:
            scanWanted = true
            startScan()
        case .stopScan:
            scanWanted = false
            guard let a = adapterPath else { return }
            call(a, BlueZTranslate.adapter, "StopDiscovery") { [weak self] result in
                self?.scanning = false
                // "No discovery started": ours had not started yet, or bluetoothd stopped it.
                if case let .failure(e) = result, e.name != "org.bluez.Error.NotReady",
                   !e.message.contains("No discovery started") {
                    self?.send(.scanFailed(BlueZTranslate.backendError(e)))
                }
            }
        case let .connect(id):
            connect(id, attempt: 1)
        case let .disconnect(id):
            stopStallWatch(id)
            // bluetoothd does not know the device (any more: it restarted meanwhile): there is
            // no link to end, and the app must not wait for one to go down.
            guard let path = devicePaths[id] else { send(.disconnected(id, .local)); return }
            localDisconnects.insert(id)
            call(path, BlueZTranslate.device, "Disconnect") { [weak self] result in
                guard let self, case let .failure(e) = result else { return }
                self.localDisconnects.remove(id)
                self.send(.failure(BlueZTranslate.backendError(e)))
                // Refused, but no link is up (it never came up, or went down meanwhile): say
                // so, or the device stays "disconnecting" for good. (After a restart,
                // forgetEverything has said it already: the path is no longer the device's.)
                if self.devicePaths[id] == path, self.mirror[path, BlueZTranslate.device]?["Connected"]?.bool != true {
                    self.send(.disconnected(id, .local))
                }
            }
        case let .read(_, cid, offset):
            readValue(cid.path, BlueZTranslate.characteristic, offset: offset) { [weak self] in self?.send(.readCompleted(cid, $0)) }
        case let .write(_, cid, bytes, type):
            if type == .command, writeThroughSocket(cid, bytes) { return }
            call(cid.path, BlueZTranslate.characteristic, "WriteValue",
                 [.bytes(bytes), .vardict(["type": .string(type.rawValue)])], timeout: Self.gattTimeout) { [weak self] result in
                switch result {
                case .success: self?.send(.writeCompleted(cid, bytes, type, nil))
                case let .failure(e): self?.send(.writeCompleted(cid, bytes, type, BlueZTranslate.backendError(e)))
                }
            }
        case let .readDescriptor(_, did):
            readValue(did.path, BlueZTranslate.descriptor) { [weak self] in self?.send(.descriptorRead(did, $0)) }
        case let .writeDescriptor(_, did, bytes):
            call(did.path, BlueZTranslate.descriptor, "WriteValue", [.bytes(bytes), .vardict([:])],
                 timeout: Self.gattTimeout) { [weak self] result in
                switch result {
                case .success: self?.send(.descriptorWritten(did, bytes, nil))
                case let .failure(e): self?.send(.descriptorWritten(did, bytes, BlueZTranslate.backendError(e)))
                }
            }
        case let .setPowered(on):
            guard let a = adapterPath else { return }
            bus.call(DBusCall(destination: Self.bluez, path: a, interface: "org.freedesktop.DBus.Properties", member: "Set",
                              args: [.string(BlueZTranslate.adapter), .string("Powered"), .variant(.bool(on))]),
                     timeout: 10) { [weak self] result in
                guard case let .failure(e) = result else { return }   // Powered arrives as a property change
                let blocked = e.name.hasSuffix(".Blocked") || e.message.lowercased().contains("rfkill")
                self?.send(.failure(BackendError(name: e.name, message: blocked
                    ? "the adapter is blocked by rfkill: run `rfkill unblock bluetooth`, then press P again"
                    : "cannot power the adapter on: \(e.message)")))
            }
        case let .answerAgent(id, answer):
            answerAgent(id, answer)
        case let .pair(id):
            pair(id)
        case let .setTrusted(id, on):
            setDeviceFlag(id, "Trusted", on)
        case let .setBlocked(id, on):
            setDeviceFlag(id, "Blocked", on)
        case let .forget(id):
            forget(id)
        case let .acquireWrite(_, cid):
            acquireWrite(cid)
        case let .flushWrites(_, cid):
            flushWrites(cid)
        case let .setNotify(_, cid, on):
            if !on, releaseAcquired(cid.path) {
                subscribed.remove(cid.path)
                send(.notifyChanged(cid, enabled: false, nil))
                return
            }
            if on, canAcquireNotify(cid.path) {
                acquireNotify(cid) { [weak self] in self?.startNotify(cid) }
                return
            }
            on ? startNotify(cid) : stopNotify(cid)
        }
    }

    func startNotify(_ cid: CharacteristicID) { notify(cid, true) }
    func stopNotify(_ cid: CharacteristicID) { notify(cid, false) }

    private func notify(_ cid: CharacteristicID, _ on: Bool) {
            call(cid.path, BlueZTranslate.characteristic, on ? "StartNotify" : "StopNotify",
                 timeout: Self.gattTimeout) { [weak self] result in
                switch result {
                case .success:
                    if on { self?.subscribed.insert(cid.path) } else { self?.subscribed.remove(cid.path) }
                    self?.send(.notifyChanged(cid, enabled: on, nil))
                case let .failure(e):
                    self?.send(.notifyChanged(cid, enabled: on, BlueZTranslate.backendError(e)))
                }
            }
    }

    /// ReadValue, WriteValue, StartNotify: a device that refuses for want of encryption has
    /// bluetoothd raise the link's security first, which asks our agent and may wait for a
    /// person to type a passkey, all before the method returns.
    static let gattTimeout = 60.0

    /// ReadValue on a characteristic or descriptor; the reply must be `ay`. BlueZ reads a
    /// long value whole by itself; an offset (`{offset: q}`) reads from there on.
    func readValue(_ path: String, _ interface: String, offset: UInt16 = 0,
                           _ done: @escaping @MainActor (Result<Bytes, BackendError>) -> Void) {
        call(path, interface, "ReadValue", [.vardict(offset == 0 ? [:] : ["offset": .uint16(offset)])],
             timeout: Self.gattTimeout) { result in
            switch result {
            case let .success(args):
                guard let bytes = args.first?.bytes else { return done(.failure(.failed("unexpected ReadValue reply"))) }
                done(.success(bytes))
            case let .failure(e):
                done(.failure(BlueZTranslate.backendError(e)))
            }
        }
    }

    func startScan(attempt: Int = 1) {
        // Not powered (yet): the scan starts when Powered turns true.
        guard let a = adapterPath, mirror[a, BlueZTranslate.adapter]?["Powered"]?.bool == true else { return }
        var filter: [String: DBusValue] = ["Transport": .string("le"), "DuplicateData": .bool(true)]
        if let floor = options.rssiFloor { filter["RSSI"] = .int16(Int16(clamping: floor)) }
        call(a, BlueZTranslate.adapter, "SetDiscoveryFilter", [.vardict(filter)]) { [weak self] result in
            guard let self else { return }
            if case let .failure(e) = result {
                // Another client's discovery starting at the same moment (seen in the lab with the app
                // and `watch` started together): bluetoothd answers InProgress; try again shortly.
                if e.name == "org.bluez.Error.InProgress", attempt < 5, let loop = self.loop {
                    _ = loop.schedule(after: 0.3 * Double(attempt)) { [weak self] in
                        if self?.scanWanted == true { self?.startScan(attempt: attempt + 1) }
                    }
                    return
                }
                self.send(.scanFailed(BlueZTranslate.backendError(e)))
                return
            }
            guard self.scanWanted else { return }   // stopped while the filter was being set
            self.discoveryStarting = true
            self.call(a, BlueZTranslate.adapter, "StartDiscovery") { [weak self] result in
                self?.discoveryStarting = false
                switch result {
                case .success:
                    self?.scanning = true
                    self?.scanRetries = 0
                    // Stopped while starting: stop for real now.
                    if self?.scanWanted == false { self?.execute(.stopScan) }
                case let .failure(e) where e.name == "org.bluez.Error.InProgress" || e.name == "org.bluez.Error.NotReady":
                    self?.discoveryRefused(a, e)
                case let .failure(e):
                    self?.send(.scanFailed(BlueZTranslate.backendError(e)))
                }
            }
        }
    }

    /// StartDiscovery answered InProgress or NotReady. Another client's scan running (Discovering):
    /// ours is merged into it. Not powered: the scan starts when Powered turns true. Powered and
    /// not discovering: a bluetoothd killed while scanning left the kernel's discovery on (it ends
    /// by itself within ~10 s) and the new one refuses to start one: try again every second.
    func discoveryRefused(_ a: String, _ e: DBusError) {
        let props = mirror[a, BlueZTranslate.adapter]
        if e.name == "org.bluez.Error.InProgress", props?["Discovering"]?.bool == true {
            scanning = true
            return
        }
        guard props?["Powered"]?.bool == true, scanRetry == nil, scanRetries < 60, let loop else { return }
        scanRetries += 1
        scanRetry = loop.schedule(after: scanRetrySeconds) { [weak self] in
            guard let self else { return }
            self.scanRetry = nil
            if self.scanWanted, self.adapterPath == a, !self.scanning { self.startScan() }
        }
    }

    func connect(_ id: PeripheralID, attempt: Int) {
        guard let path = devicePaths[id] else {
            send(.connectFailed(id, .failed(Self.notKnown)))
            return
        }
        send(.connecting(id, attempt: attempt))
        connects.attempt[id] = attempt
        if attempt == 1 { watchForStall(id, path) }
        call(path, BlueZTranslate.device, "Connect", timeout: 35) { [weak self] result in
            // Superseded: a stalled attempt was given up (`linkStalled`) and another made.
            guard let self, self.connects.attempt[id] == attempt else { return }
            switch result {
            case .success:
                break  // Connected and ServicesResolved arrive as property changes
            case let .failure(e) where attempt == 1 && e.message.contains("le-connection-abort-by-local"):
                // A common transient failure: one retry, as nRF Connect and bleak do.
                self.stopStallWatch(id)
                self.connect(id, attempt: 2)
            case let .failure(e):
                self.stopStallWatch(id)
                self.send(.connectFailed(id, BlueZTranslate.backendError(e)))
            }
        }
    }
}
