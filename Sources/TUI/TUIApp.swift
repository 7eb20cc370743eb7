@preconcurrency import Glibc
import Observation
import Explorer

/// The full-screen app: keys and backend events in, frames out, on one event loop.
/// Redraws only when the observed state changed, at most `maxFPS` frames a second.
@MainActor
public final class TUIApp {
    public static let maxFPS = 30.0

    let store: Store
    let backend: Backend
    let runner: EffectRunner
    let loop: EventLoop
    let terminal: Terminal
    private var dirty = true
    private var lastFrame = 0.0
    private var frameTimer: EventLoop.TimerID?
    public private(set) var exitCode: Int32 = 0
    /// Extra signal handling (SIGUSR1 presses the demo button).
    public var onSignal: (@MainActor (Int32) -> Void)?
    /// The clock ticks read: the wall clock, or a replay's recording time.
    public var clock: @MainActor () -> Timestamp = { Timestamp.now() }

    public init(store: Store, backend: Backend, runner: EffectRunner, loop: EventLoop, terminal: Terminal) {
        self.store = store
        self.backend = backend
        self.runner = runner
        self.loop = loop
        self.terminal = terminal
    }

    public func run(recordTo: String?) -> Int32 {
        runner.onQuit = { [unowned self] in self.loop.stop() }
        SignalPipe.install([SIGINT, SIGTERM, SIGHUP, SIGUSR1], loop: loop) { [unowned self] sig in
            switch sig {
            // Ctrl-C reaches us as SIGINT (cbreak keeps ISIG, so Ctrl-Z still suspends): it
            // means what the key table says, which in a prompt is cancel, not quit.
            case SIGINT:
                let action = Keymap.action(for: .ctrl("c"), in: self.store.state) ?? .quitRequested
                if action == .quitRequested { self.exitCode = 130 }
                self.store.send(action)
            case SIGTERM: self.exitCode = 143; self.store.send(.quitRequested)
            case SIGHUP: self.exitCode = 129; self.store.send(.quitRequested)
            default: self.onSignal?(sig)
            }
        }
        loop.addReader(fd: STDIN_FILENO) { [unowned self] in self.readInput() }
        loop.beforeWait = { [unowned self] in
            self.runner.flush()
            self.drawIfDue()
        }
        track()
        backend.start(loop: loop) { [unowned self] event, at in
            self.store.send(.backend(event, at: at))
        }
        sendSize()
        store.send(.appStarted(recordTo: recordTo))
        scheduleTick()
        loop.run()
        backend.shutdown()
        runner.finish()
        terminal.restore()
        return exitCode
    }

    private func readInput() {
        for key in terminal.readKeys() {
            if key == .resize { sendSize() }
            let action = key == .resize ? .repaintRequested : Keymap.action(for: key, in: store.state)
            if action == .repaintRequested {
                terminal.invalidate()
                dirty = true
                continue
            }
            if let action { store.send(action) }
        }
    }

    private func sendSize() {
        let (w, h) = terminal.size
        store.send(.screenResized(width: w, height: h))
    }

    /// Ages and timeouts move with the clock: one tick a second.
    private func scheduleTick() {
        loop.schedule(after: 1) { [unowned self] in
            self.store.send(.tick(self.clock()))
            self.scheduleTick()
        }
    }

    private func track() {
        withObservationTracking {
            _ = store.state
        } onChange: { [weak self] in
            // Called synchronously from the state's willSet, on the loop's thread.
            MainActor.assumeIsolated { self?.dirty = true }
        }
    }

    private func drawIfDue() {
        guard dirty else { return }
        let now = monotonicSeconds()
        let wait = lastFrame + 1 / Self.maxFPS - now
        if wait > 0 {
            if frameTimer == nil {
                frameTimer = loop.schedule(after: wait) { [unowned self] in self.frameTimer = nil }
            }
            return
        }
        dirty = false
        lastFrame = now
        track()
        let (w, h) = terminal.size
        terminal.draw(Router.render(store.state, width: w, height: h))
    }
}
