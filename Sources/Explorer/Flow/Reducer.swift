/// The one place where state changes. Pure: no I/O, no clock, no backend; what must
/// happen outside comes back as `[Effect]`.
public enum Reducer {
    /// The app's reduction, then the command's (if this process runs one), which sees
    /// what the app asked for.
    public static func reduce(_ s: inout AppState, _ action: Action) -> [Effect] {
        // `if case`, not `!= nil`: that copied the whole ServeState? and JobState? out of the
        // state, three times an action (callgrind: 700 of an advertisement's 11,200 instructions).
        if case .some = s.serve { return ServeReducer.reduce(&s.serve!, action) }
        let command: Bool
        if case .some = s.job { command = true } else { command = false }
        let mark = command   // commands keep no log
            ? nil : EventLog.Mark(alert: s.alert, adapter: s.adapter, lastTransition: s.regionWatch.log.last)
        let effects = reduceApp(&s, action)
        if let mark { EventLog.note(action, since: mark, in: &s) }
        guard case .some = s.job else {
            LinkReducer.follow(&s)
            OnDemand.track(&s, effects)
            return effects
        }
        let all = effects + JobReducer.reduce(&s, action, effects)
        OnDemand.track(&s, all)
        return all
    }

    static func reduceApp(_ s: inout AppState, _ action: Action) -> [Effect] {
        switch action {
        case .appStarted(let path):
            var effects: [Effect] = s.scanWanted ? [.backend(.startScan)] : []
            if let path { effects.append(.startRecording(path: path)) }
            return effects
        case .jobTimerFired, .interrupted:
            return []   // the command's own (JobReducer)
        case .served, .serveControl, .serveNotified, .serveWindowSent, .serveDrained, .serveStopped, .serveTallyAsked:
            return []   // serve's own (ServeReducer)
        case .cursorMoved(let move):
            moveCursor(&s, move)
            return []
        case .rowActivated:
            return activateRow(&s)
        case .detailsRequested:
            guard s.route == .scan, let id = ScanQuery.selected(s) else { return [] }
            s.scan.cursor = id
            s.route = .details(id)
            return []
        case .backRequested:
            return goBack(&s)
        case .collapseToggled:
            toggleCollapse(&s)
            return []
        case .disconnectRequested:
            return requestDisconnect(&s)
        case let .linkSelected(n):
            LinkReducer.select(&s, n)
            return []
        case .scanToggled:
            s.scanWanted.toggle()
            return [.backend(s.scanWanted ? .startScan : .stopScan)]
        case .sortCycled:
            s.scan.sort = s.scan.sort.next
            return []
        case .connectableOnlyToggled:
            guard s.route == .scan else { return [] }
            s.scan.connectableOnly.toggle()
            followFirstRow(&s, whenHidden: true)
            return []
        case .hideUnnamedToggled:
            guard s.route == .scan else { return [] }
            s.scan.hideUnnamed.toggle()
            followFirstRow(&s, whenHidden: true)
            return []
        case let .minRSSIChanged(step):
            guard s.route == .scan else { return [] }
            // Off below -100 dBm; from off, + starts at -100.
            let next = (s.scan.minRSSI ?? -105) + step
            s.scan.minRSSI = next < -100 ? nil : min(-30, next)
            followFirstRow(&s, whenHidden: true)
            return []
        case .filterStarted:
            guard s.route == .scan else { return [] }
            s.input = InputLine(purpose: .filter, text: s.scan.filter)
            return []
        case .inputEdited(let edit):
            editInput(&s, edit)
            if s.input?.purpose == .filter { followFirstRow(&s, whenHidden: true) }
            return []
        case .inputSubmitted:
            return submitInput(&s)
        case .inputCancelled:
            if s.input?.purpose == .filter { s.scan.filter = "" }
            s.input = nil
            return []
        case .readRequested:
            guard let (p, c) = openCharacteristic(&s, needs: .read, else: "cannot be read", fromTree: true),
                  ConnectionReducer.linkReady(&s, p) else { return [] }
            return [.backend(.read(p, c.id))]
        case .writeStarted:
            if let (p, c) = openCharacteristic(s), let d = s.selectedDescriptor(of: c) {
                return DescriptorReducer.startWrite(&s, p, c, d)
            }
            guard let (p, c) = openCharacteristic(&s, needs: [.write, .writeWithoutResponse], else: "cannot be written",
                                                  fromTree: true) else { return [] }
            return startWrite(&s, p, c)
        case .writeTypeCycled:
            guard let (_, c) = openCharacteristic(&s, needs: [.write, .writeWithoutResponse, .reliableWrite],
                                                  else: "cannot be written") else { return [] }
            DescriptorReducer.cycleWriteType(&s, c)
            return []
        case .descriptorCycled:
            return DescriptorReducer.cycle(&s)
        case .notifyToggled:
            guard let (p, c) = openCharacteristic(&s, needs: [.notify, .indicate], else: Self.noSubscription, fromTree: true),
                  ConnectionReducer.linkReady(&s, p) else { return [] }
            return [.backend(.setNotify(p, c.id, !s.subscriptions.contains(c.id)))]
        case .readAllRequested:
            return readAll(&s)
        case let .formatCycled(forward):
            guard let (_, c) = openCharacteristic(s) else { return [] }
            let current = s.valueFormats[c.id] ?? .decoded
            s.valueFormats[c.id] = forward ? current.next : current.previous
            return []
        case .messageViewToggled:
            guard let (_, c) = openCharacteristic(&s, needs: [.notify, .indicate], else: Self.noSubscription) else { return [] }
            if s.streams.removeValue(forKey: c.id) == nil {
                // A stream whose user description announces seq framing (`serve --framing seq`) is read so.
                s.streams[c.id] = StreamAssembly(marker: s.streamMarker, framing: StreamFraming.announced(in: s.userDescription(c)) ?? .plain)
            }
            return []
        case .recordingToggled:
            if case .on = s.recording { return [.stopRecording] }
            // A name that is taken (a replay's clock names the file it plays) gets a number.
            return [.startRecording(path: s.recordingDefaultPath ?? "bleexplr-\(s.now.compact).jsonl", renameIfTaken: true)]
        case .powerOnRequested:
            guard s.adapter.power == .poweredOff else { return [] }
            s.alert = Alert(.info, "Powering \(s.adapter.name) on…", at: s.now)
            return [.backend(.setPowered(true))]
        case .helpToggled:
            s.showHelp.toggle()
            s.helpTop = 0
            return []
        case let .helpScrolled(by):
            s.helpTop = max(0, min(HelpLayout(width: s.screenSize.width, height: s.screenSize.height).maxTop, s.helpTop + by))
            return []
        case .logToggled:
            s.log.shown.toggle()
            s.log.top = 0
            return []
        case let .logScrolled(by):
            let maxTop = max(0, s.log.listed.count - EventLog.visibleRows(height: s.screenSize.height))
            s.log.top = max(0, min(maxTop, s.log.top + by))
            return []
        case .logProblemsOnlyToggled:
            s.log.problemsOnly.toggle()
            s.log.top = 0
            return []
        case let .screenResized(width, height):
            s.screenSize = ScreenSize(width: width, height: height)
            s.helpTop = min(s.helpTop, HelpLayout(width: width, height: height).maxTop)
            return []
        case .hookStarted:
            guard let (p, c) = openCharacteristic(&s, needs: [.notify, .indicate], else: Self.noSubscription) else { return [] }
            // Empty, so that "off" typed as it reads detaches (the screen shows the current hook).
            s.input = InputLine(purpose: .hook(p, c.id))
            return []
        case .nameStarted:
            NamingReducer.start(&s)
            return []
        case let .nameSaved(change, result):
            NamingReducer.saved(&s, change, result)
            return []
        case .regionsRequested:
            s.route = s.route == .regions ? .scan : .regions
            return []
        case let .hookAttachFailed(cid, message):
            s.attachedHooks.removeValue(forKey: cid)
            s.hookActivity.removeValue(forKey: cid)
            fail(&s, "Hook not attached: \(message)")
            return []
        case .pairRequested:
            return PairingReducer.pair(&s)
        case .trustToggled:
            return PairingReducer.trust(&s)
        case .blockToggled:
            return PairingReducer.block(&s)
        case .forgetRequested, .cacheClearRequested:
            s.forgetAsked = PairingReducer.target(s)
            s.forgetThenConnect = s.forgetAsked != nil && action == .cacheClearRequested
            return []
        case let .forgetAnswered(yes):
            return PairingReducer.forgetAnswered(&s, yes)
        case let .agentPromptEdited(edit):
            PairingReducer.edited(&s, edit)
            return []
        case let .agentPromptAnswered(yes):
            return PairingReducer.answered(&s, yes)
        case let .agentAnswerTyped(line):
            return PairingReducer.typed(&s, line)
        case .quitRequested:
            s.quitting = true
            return [.quit]
        case .repaintRequested:
            return []
        case let .replayControlled(control):
            guard s.replay != nil else { return [] }
            return [.replay(control)]
        case let .replayChanged(status):
            s.replay = status
            return []
        case let .replayRewound(status):
            s.forgetRecordedWorld(now: status.start)
            s.replay = status
            return []
        case let .writeHistoryLoaded(key, values):
            s.writeHistory.loaded(key, values)
            if var input = s.input, case let .write(pid, cid) = input.purpose, writeHistoryKey(s, pid, cid) == key {
                input.history = s.writeHistory[key]
                s.input = input
            }
            return []
        case let .backend(event, at):
            if at > s.now { s.now = at }
            let effects = BackendReducer.reduce(&s, event, at: at)
            followFirstRow(&s)
            return effects
        case .tick(let now):
            s.now = now
            expire(&s)
            followFirstRow(&s, whenHidden: true)
            return s.regionWatch.tick(now).map { .regionChanged($0) }
        case let .recordingStarted(path, instead):
            s.recording = .on(path: path)
            s.alert = Alert(.info, "Recording to \(path)" + (instead.map { " (\($0) exists)" } ?? ""), at: s.now)
            return []
        case .recordingStopped:
            if case let .on(path) = s.recording { s.alert = Alert(.info, "Recording saved: \(path)", at: s.now) }
            s.recording = .off
            return []
        case .recordingFailed(let message):
            s.recording = .off
            fail(&s, "Recording stopped: \(message)")
            return []
        case let .hookReported(report, cid):
            s.alert = Alert(report.isProblem ? .warning : .info, "Hook " + report.text, at: s.now)
            if let cid, s.attachedHooks[cid] != nil {
                s.hookActivity[cid, default: HookActivity()].note(report)
            }
            return []
        case let .commandReported(message, problem):
            s.alert = Alert(problem ? .warning : .info, message, at: s.now)
            return []
        }
    }

    static func fail(_ s: inout AppState, _ message: String) {
        s.lastError = message
        s.alert = Alert(.error, message, at: s.now)
    }

    /// The characteristic whose screen is open.
    static func openCharacteristic(_ s: AppState) -> (PeripheralID, GATTCharacteristic)? {
        guard case let .characteristic(pid, cid) = s.route,
              let (_, c) = s.peripherals[pid]?.characteristic(cid) else { return nil }
        return (pid, c)
    }

    /// The characteristic a key acts on: the open one, or on the device screen the one
    /// under the cursor (`r`, `n` and `w` act from the tree).
    static func targetCharacteristic(_ s: AppState) -> (PeripheralID, GATTCharacteristic)? {
        if let open = openCharacteristic(s) { return open }
        guard case let .device(pid) = s.route, let cursor = s.device.cursor,
              let (_, c) = s.peripherals[pid]?.characteristic(cursor) else { return nil }
        return (pid, c)
    }

    static let noSubscription = "has no notifications or indications"

    /// The open characteristic (or `fromTree`, the tree's under the cursor), if it has one
    /// of the properties `needs`; if it has none, a warning says so (the hint line does not
    /// offer the key, but it can be pressed).
    static func openCharacteristic(_ s: inout AppState, needs: CharacteristicProperties, else refusal: String,
                                   fromTree: Bool = false) -> (PeripheralID, GATTCharacteristic)? {
        guard let (p, c) = fromTree ? targetCharacteristic(s) : openCharacteristic(s) else { return nil }
        guard c.properties.intersection(needs).isEmpty else { return (p, c) }
        let name = AssignedNumbers.characteristicName(c.uuid) ?? c.uuid.description
        let flags = c.properties.flagNames.isEmpty ? "none" : c.properties.flagNames.joined(separator: ", ")
        s.alert = Alert(.warning, "\(name) \(refusal) (properties: \(flags))", at: s.now)
        return nil
    }

    /// `A` on the device screen: every characteristic that can be read, read once; each
    /// value shows on its row (and in its history) as it comes.
    static func readAll(_ s: inout AppState) -> [Effect] {
        guard case let .device(pid) = s.route, let p = s.peripherals[pid] else { return [] }
        let readable = (p.services ?? []).flatMap(\.characteristics).filter { $0.properties.contains(.read) }
        guard !readable.isEmpty else {
            s.alert = Alert(.warning, "\(p.displayName) has no readable characteristic", at: s.now)
            return []
        }
        guard ConnectionReducer.linkReady(&s, pid) else { return [] }
        s.alert = Alert(.info, "Reading \(readable.count) readable characteristic\(readable.count == 1 ? "" : "s") of \(p.displayName)…",
                        at: s.now)
        return readable.map { .backend(.read(pid, $0.id)) }
    }

    // MARK: Cursor and navigation

    static let pageSize = 10

    static func moved(_ index: Int, _ count: Int, _ move: CursorMove) -> Int {
        guard count > 0 else { return 0 }
        let target: Int
        switch move {
        case .up: target = index - 1
        case .down: target = index + 1
        case .pageUp: target = index - pageSize
        case .pageDown: target = index + pageSize
        case .top: target = 0
        case .bottom: target = count - 1
        }
        return max(0, min(count - 1, target))
    }

    static func moveCursor(_ s: inout AppState, _ move: CursorMove) {
        switch s.route {
        case .scan:
            let shown = s.peripherals.order
            guard !shown.isEmpty else { return }
            s.scan.cursor = shown[moved(ScanQuery.cursorIndex(s) ?? 0, shown.count, move)]
        case let .device(pid):
            guard let p = s.peripherals[pid] else { return }
            let rows = DeviceTree.rows(p, collapsed: s.device.collapsed)
            guard !rows.isEmpty else { return }
            let i = rows.firstIndex { $0.id == s.device.cursor } ?? 0
            s.device.cursor = rows[moved(i, rows.count, move)].id
        case .details, .regions:
            return
        case let .characteristic(_, cid):
            // History is shown newest first; moving down goes back in time.
            let count = s.values[cid]?.history.count ?? 0
            s.historyOffset = moved(s.historyOffset, count, move)
        }
    }

    /// The scan list's selection is a device, by ID, from the first event on: with none
    /// chosen yet, or the chosen one gone (or, `whenHidden`, filtered out), the top row's
    /// device is selected, and it stays selected as RSSI re-sorts the list. The cheap check
    /// runs on every backend event; the one that finds it in the list, on filter changes and ticks.
    static func followFirstRow(_ s: inout AppState, whenHidden: Bool = false) {
        if let c = s.scan.cursor, s.peripherals.contains(c), !whenHidden { return }
        guard !s.peripherals.isEmpty else { s.scan.cursor = nil; return }
        if ScanQuery.cursorIndex(s) != nil { return }
        s.scan.cursor = s.peripherals.shown.first ?? s.scan.cursor   // kept (the app): a command has no cursor to follow
    }

    static func activateRow(_ s: inout AppState) -> [Effect] {
        switch s.route {
        case .scan:
            guard let id = ScanQuery.selected(s) else {
                // Never a key that does nothing: say why there is nothing to connect to.
                s.alert = Alert(.info, s.scan.filter.isEmpty ? "No device heard yet"
                                : "No device matches the filter \"\(TerminalSafe.text(s.scan.filter))\": Esc clears it", at: s.now)
                return []
            }
            s.scan.cursor = id
            // A beacon cannot be connected to: show what it broadcasts instead.
            if s.peripherals[id]?.connectable == false {
                s.route = .details(id)
                return []
            }
            return ConnectionReducer.connect(&s, id)
        case let .details(id):
            return ConnectionReducer.connect(&s, id)
        case let .device(pid):
            guard let p = s.peripherals[pid] else { return [] }
            if linkDown(p) { return ConnectionReducer.reconnect(&s, pid) }
            let rows = DeviceTree.rows(p, collapsed: s.device.collapsed)
            guard let row = rows.first(where: { $0.id == s.device.cursor }) ?? rows.first else { return [] }
            s.device.cursor = row.id
            switch row {
            case .service:
                toggleCollapse(&s)
            case let .characteristic(_, c):
                s.route = .characteristic(pid, c.id)
                s.historyOffset = 0
            }
            return []
        case let .characteristic(pid, _):
            guard let p = s.peripherals[pid], linkDown(p) else { return [] }
            return ConnectionReducer.reconnect(&s, pid)
        case .regions:
            return []
        }
    }

    /// Down, and not on its way up: Enter connects again.
    static func linkDown(_ p: Peripheral) -> Bool {
        switch p.connection {
        case .disconnected, .failed: return true
        case .connecting, .resolvingServices, .readingDescriptors, .connected, .disconnecting: return false
        }
    }

    static func goBack(_ s: inout AppState) -> [Effect] {
        switch s.route {
        case .scan:
            if let pending = s.pendingConnection {
                // Esc while connecting cancels the attempt.
                return ConnectionReducer.disconnect(&s, pending)
            }
            s.scan.filter = ""
            return []
        case let .device(pid), let .details(pid):
            s.route = .scan
            s.scan.cursor = pid
            return []
        case let .characteristic(pid, cid):
            s.route = .device(pid)
            s.device.cursor = cid
            return []
        case .regions:
            s.route = .scan
            return []
        }
    }

    static func toggleCollapse(_ s: inout AppState) {
        guard case let .device(pid) = s.route, let p = s.peripherals[pid],
              let cursor = s.device.cursor else { return }
        // On a characteristic, Tab folds its service.
        let service = p.services?.first { svc in
            svc.id == cursor || svc.characteristics.contains { $0.id == cursor }
        }
        guard let service else { return }
        if s.device.collapsed.contains(service.id) {
            s.device.collapsed.remove(service.id)
        } else {
            s.device.collapsed.insert(service.id)
            s.device.cursor = service.id
        }
    }

    static func requestDisconnect(_ s: inout AppState) -> [Effect] {
        let target: PeripheralID?
        switch s.route {
        case .scan: target = s.scan.cursor ?? s.peripherals.order.first
        case let .device(pid), let .characteristic(pid, _), let .details(pid): target = pid
        case .regions: target = nil
        }
        guard let target else { return [] }
        // A link kept after a loss (its screen, or its row in the list): `d` gives the place up.
        if s.linkLoss[target] != nil, let p = s.peripherals[target], linkDown(p) {
            LinkReducer.giveUp(&s, target)
            return []
        }
        return ConnectionReducer.disconnect(&s, target)
    }

    // MARK: Input line

    static func editInput(_ s: inout AppState, _ edit: LineEdit) {
        guard var input = s.input else { return }
        input.apply(edit)
        s.input = input
        if input.purpose == .filter { s.scan.filter = input.text }  // the list filters as you type
    }

    static func submitInput(_ s: inout AppState) -> [Effect] {
        guard let input = s.input else { return [] }
        switch input.purpose {
        case .filter:
            s.input = nil
            s.scan.filter = input.text
            s.scan.cursor = ScanQuery.selected(s)
            return []
        case let .write(pid, cid):
            switch WriteValue.parse(input.text) {
            case let .failure(error):
                // Keep the line open so the user can fix it.
                s.alert = Alert(.error, error.message, at: s.now)
                return []
            case let .success(bytes):
                // The link went down while typing: Enter brings it back, the line stays.
                if let p = s.peripherals[pid], !p.connection.isLinkUp || p.connection == .disconnecting {
                    let effects = ConnectionReducer.reconnect(&s, pid)
                    if !effects.isEmpty {
                        s.alert = Alert(.info, "Reconnecting to \(p.displayName); the line stays: Enter writes it once connected", at: s.now)
                    }
                    return effects
                }
                s.input = nil
                let type = s.peripherals[pid]?.characteristic(cid).map { s.writeType($0.1) } ?? .request
                var effects: [Effect] = [.backend(.write(pid, cid, bytes, type))]
                // A replay writes nothing, so it remembers nothing.
                if s.replay == nil, let key = writeHistoryKey(s, pid, cid), s.writeHistory.wrote(key, input.text) {
                    effects.append(.saveWriteHistory(key: key, s.writeHistory[key]))
                }
                return effects
            }
        case let .writeDescriptor(pid, did):
            return DescriptorReducer.submit(&s, input.text, pid, did)
        case let .hook(pid, cid):
            return submitHook(&s, input.text, pid, cid)
        case .alias, .uuidName:
            return NamingReducer.submit(&s, input.text, input.purpose)
        }
    }

    /// `w`: the write line, with the values written to this characteristic before (read
    /// from the state directory the first time).
    static func startWrite(_ s: inout AppState, _ pid: PeripheralID, _ c: GATTCharacteristic) -> [Effect] {
        guard let key = writeHistoryKey(s, pid, c.id) else {
            s.input = InputLine(purpose: .write(pid, c.id))
            return []
        }
        s.input = InputLine(purpose: .write(pid, c.id), history: s.writeHistory[key])
        return s.writeHistory.isLoaded(key) || s.replay != nil ? [] : [.loadWriteHistory(key: key)]
    }

    static func writeHistoryKey(_ s: AppState, _ pid: PeripheralID, _ cid: CharacteristicID) -> String? {
        guard let p = s.peripherals[pid], let (_, c) = p.characteristic(cid) else { return nil }
        return WriteHistory.key(address: p.address, uuid: c.uuid)
    }

    /// `a`'s line: attach a target (and turn notifications on, which is what fires it),
    /// or with nothing or "off", detach.
    static func submitHook(_ s: inout AppState, _ text: String, _ pid: PeripheralID, _ cid: CharacteristicID) -> [Effect] {
        let t = text.trimmingSpaces()
        if t.isEmpty || t == "off" {
            s.input = nil
            guard s.attachedHooks.removeValue(forKey: cid) != nil else { return [] }
            s.hookActivity.removeValue(forKey: cid)
            s.alert = Alert(.info, "Hook detached", at: s.now)
            return [.attachHook(cid, nil)]
        }
        switch HookTarget.parse(t) {
        case let .failure(error):
            s.alert = Alert(.error, error.message, at: s.now)   // the line stays open to fix it
            return []
        case let .success(target):
            s.input = nil
            s.attachedHooks[cid] = target
            s.hookActivity[cid] = HookActivity()
            var effects: [Effect] = [.attachHook(cid, target)]
            let canSubscribe = s.peripherals[pid]?.characteristic(cid)?.1.properties.canSubscribe ?? false
            if canSubscribe, !s.subscriptions.contains(cid) { effects.append(.backend(.setNotify(pid, cid, true))) }
            s.alert = Alert(.info, "Hook attached: \(target.summary), on each notification"
                            + (canSubscribe ? "" : " (this characteristic cannot notify)"), at: s.now)
            return effects
        }
    }

    // MARK: Ageing

    static func expire(_ s: inout AppState) {
        var gone: [PeripheralID] = []
        for (id, p) in s.peripherals where s.now - p.lastSeen > AppState.expireAfter
            && !p.connection.isLinkUp && s.pendingConnection != id && !routeShows(s.route, id) && !s.links.contains(id) {
            gone.append(id)
        }
        for id in gone { s.peripherals.removeValue(forKey: id) }
        if let a = s.alert, a.level == .info, s.now - a.at > 8 { s.alert = nil }
    }

    static func routeShows(_ route: Route, _ id: PeripheralID) -> Bool {
        switch route {
        case .scan: return false
        case let .device(p), let .characteristic(p, _), let .details(p): return p == id
        case .regions: return false
        }
    }
}
