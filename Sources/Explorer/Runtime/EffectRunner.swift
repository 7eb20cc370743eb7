/// Carries out the reducer's effects: commands to the backend, the recorder's file.
/// Results come back as actions through the store.
@MainActor
public final class EffectRunner {
    private let store: Store
    /// nil for `serve`, which has a GATT server instead (`onServe`).
    private let backend: Backend?
    private let header: (Timestamp) -> RecordingFormat.Header
    /// While set, the store shows it every action (its observer comes and goes with it).
    public private(set) var recorder: Recorder? {
        didSet {
            guard let r = recorder else { store.recordingObserver = nil; return }
            store.recordingObserver = { action, state in
                r.record(action, state)
            }
        }
    }
    public var onQuit: (@MainActor () -> Void)?
    /// Regions and actions are carried out by the executable (commands, HTTP).
    public var onRegionChanged: (@MainActor (RegionTransition) -> Void)?
    public var onAttachHook: (@MainActor (CharacteristicID, HookTarget?) -> Void)?
    public var onFireHook: (@MainActor (CharacteristicID, FiredEvent) -> Void)?
    /// The replay backend's controls (nil for live backends).
    public var onReplayControl: (@MainActor (ReplayControl) -> Void)?
    /// A command's output to print, and its end (the executable writes and exits).
    public var onOutput: (@MainActor (CommandOutput) -> Void)?
    public var onFinish: (@MainActor (Int32) -> Void)?
    /// `serve`'s GATT server.
    public var onServe: (@MainActor (ServeCommand) -> Void)?
    /// Where a command's timers run.
    private let loop: EventLoop?
    private var timers: [JobTimer: EventLoop.TimerID] = [:]

    public init(store: Store, backend: Backend?, loop: EventLoop? = nil, header: @escaping (Timestamp) -> RecordingFormat.Header) {
        self.store = store
        self.backend = backend
        self.loop = loop
        self.header = header
        store.effectHandler = { [unowned self] in self.run($0) }
    }

    public func run(_ effect: Effect) {
        switch effect {
        case let .backend(command):
            if case let .answerAgent(_, answer) = command {
                recorder?.append(RecordingFormat.agentAnswerLine(answer, at: store.state.now))
            }
            backend?.execute(command)
        case let .startRecording(path, renameIfTaken):
            do {
                let r = try Recorder(path: path, header: header(store.state.now), renameIfTaken: renameIfTaken)
                recorder = r
                // The recording starts with what is already known.
                if store.state.adapter.power != .absent {
                    r.append(RecordingFormat.line(for: .backend(.adapterChanged(store.state.adapter), at: store.state.now),
                                                  state: store.state)!)
                }
                store.send(.recordingStarted(path: r.path, instead: r.path == path ? nil : path))
            } catch {
                store.send(.recordingFailed(error.description))
            }
        case .stopRecording:
            guard let r = recorder else { return }
            recorder = nil
            do { try r.close(); store.send(.recordingStopped) } catch { store.send(.recordingFailed(error.description)) }
        case let .regionChanged(t):
            recorder?.append(RecordingFormat.regionLine(t))
            onRegionChanged?(t)
        case let .attachHook(cid, target):
            onAttachHook?(cid, target)
        case let .fireHook(cid, event):
            onFireHook?(cid, event)
        case let .replay(control):
            onReplayControl?(control)
        case let .output(output):
            onOutput?(output)
        case let .serve(command):
            onServe?(command)
        case let .startTimer(timer, seconds):
            guard let loop else { return }
            if let old = timers[timer] { loop.cancel(old) }
            timers[timer] = loop.schedule(after: seconds) { [unowned self] in
                self.timers[timer] = nil
                self.store.send(.jobTimerFired(timer))
            }
        case let .cancelTimer(timer):
            if let old = timers.removeValue(forKey: timer) { loop?.cancel(old) }
        case let .loadWriteHistory(key):
            store.send(.writeHistoryLoaded(key: key, WriteHistoryFile.load(key)))
        case let .saveWriteHistory(key, values):
            WriteHistoryFile.save(key, values)
        case let .saveName(change):
            guard let path = NamesFile.path else {
                let none = UserConfig.Problem(path: "names.json", reason: "bleexplr runs without a configuration (BLEEXPLR_CONFIG=, or no HOME)")
                store.send(.nameSaved(change, .failure(none)))
                return
            }
            switch NamesFile.save(change, path: path) {
            case let .success(names):
                UserNames.choose(names)
                store.send(.nameSaved(change, .success(path)))
            case let .failure(problem):
                store.send(.nameSaved(change, .failure(problem)))
            }
        case let .finish(code):
            onFinish?(code)
        case .quit:
            onQuit?()
        }
    }

    /// Writes buffered lines; called before the loop waits, so at most one write(2) per wakeup.
    public func flush() {
        guard let r = recorder else { return }
        do { try r.flush() } catch {
            recorder = nil
            store.send(.recordingFailed(error.description))
        }
    }

    public func finish() {
        if let r = recorder { try? r.close() }
        recorder = nil
    }
}
