/// The simulated world as a backend on the event loop: world time runs with the
/// monotonic clock from `start`, event timestamps with the wall clock.
@MainActor
public final class SimulatedBackend: Backend {
    public let kind = "simulated"
    public let world: SimulatedWorld
    private var loop: EventLoop?
    private var emit: (@MainActor (BackendEvent, Timestamp) -> Void)?
    private var timer: EventLoop.TimerID?
    private var monoStart = 0.0
    private var wallStart = Timestamp(0)

    public init(seed: UInt64, crowd: Int = 0) {
        world = SimulatedWorld(seed: seed, crowd: crowd)
    }

    public func start(loop: EventLoop, emit: @escaping @MainActor (BackendEvent, Timestamp) -> Void) {
        self.loop = loop
        self.emit = emit
        monoStart = monotonicSeconds()
        wallStart = Timestamp.now()
        pump()
    }

    public func execute(_ command: BackendCommand) {
        world.handle(command, at: worldNow())
        pump()
    }

    /// Presses the demo iTag's button (SIGUSR1 in the demo).
    public func pressButton() {
        world.pressButton(at: worldNow())
        pump()
    }

    /// The region the demo watches when no --region is given: the porch beacon's.
    public static var demoRegions: [Region] { DemoCatalog.demoRegions }

    /// The connected demo device's database changes (Service Changed).
    public func changeDatabase() {
        world.changeDatabase(at: worldNow())
        pump()
    }

    /// Demo Stream's flood at `rate` notifications a second (0 pauses it).
    public func setFloodRate(_ rate: Double) {
        world.setFloodRate(rate, at: worldNow())
        pump()
    }

    /// The demo iTag drops its link.
    public func dropButtonLink() {
        world.dropButtonLink(at: worldNow())
        pump()
    }

    public func shutdown() {
        if let timer { loop?.cancel(timer) }
        timer = nil
    }

    private func worldNow() -> Double { monotonicSeconds() - monoStart }

    private func pump() {
        for (t, event) in world.advance(to: worldNow()) {
            emit?(event, wallStart + t)
        }
        if let timer { loop?.cancel(timer) }
        timer = nil
        if let due = world.nextDue, let loop {
            timer = loop.schedule(at: monoStart + due) { [weak self] in
                self?.timer = nil
                self?.pump()
            }
        }
    }
}
