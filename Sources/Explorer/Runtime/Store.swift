import Observation

/// Owns the state. `send` runs the reducer, tells observers (the recorder), and hands
/// effects to the effect handler. Actions sent while another is being handled queue up,
/// so every observer sees them in order.
@MainActor
@Observable
public final class Store {
    public private(set) var state: AppState

    @ObservationIgnored public var effectHandler: (@MainActor (Effect) -> Void)?
    /// Each sees every action after the reducer, with the store to read the new state
    /// from: only an observer that needs it (the recorder, while recording) pays for a
    /// copy of the whole state, not every action in a storm of them.
    @ObservationIgnored public var observers: [@MainActor (Action, Store) -> Void] = []
    @ObservationIgnored private var queue: [Action] = []
    @ObservationIgnored private var sending = false

    public init(state: AppState) { self.state = state }

    public func send(_ action: Action) {
        queue.append(action)
        guard !sending else { return }
        sending = true
        defer { sending = false }
        while !queue.isEmpty {
            let next = queue.removeFirst()
            let effects = Reducer.reduce(&state, next)
            for o in observers { o(next, self) }
            for e in effects { effectHandler?(e) }
        }
    }
}
