import Observation

/// Owns the state. `send` runs the reducer, tells observers (the recorder), and hands
/// effects to the effect handler. Actions sent while another is being handled (by an
/// observer or an effect) queue up and are handled next, in order, so every observer sees
/// every action in the order the state went through them. A batch of reports (one read of
/// a busy bus) is one action: the reducer reduces its reports one by one, the recorder
/// writes a line for each, and the effects they caused run after the batch.
@MainActor
@Observable
public final class Store {
    public private(set) var state: AppState

    @ObservationIgnored public var effectHandler: (@MainActor (Effect) -> Void)?
    /// Each sees every action after the reducer, with the store to read the new state
    /// from: only an observer that needs it (the recorder, while recording) pays for a
    /// copy of the whole state, not every action in a storm of them.
    @ObservationIgnored public var observers: [@MainActor (Action, Store) -> Void] = []
    /// The recorder's observer, set only while recording (the effect runner's): sees
    /// every action after the other observers, with the state lent, not copied: handing it
    /// `state` copied the whole of it, 3,000 instructions an action (callgrind, 2026-12-06).
    /// While it runs the state is held exclusively for it: it must not read `state` itself.
    @ObservationIgnored public var recordingObserver: (@MainActor (Action, borrowing AppState) -> Void)?
    @ObservationIgnored private var queue: [Action] = []
    @ObservationIgnored private var sending = false

    public init(state: AppState) { self.state = state }

    public func send(_ action: Action) {
        guard !sending else {
            queue.append(action)
            return
        }
        sending = true
        defer { sending = false }
        handle(action)
        while !queue.isEmpty { handle(queue.removeFirst()) }
    }

    private func handle(_ action: Action) {
        let effects = Reducer.reduce(&state, action)
        for o in observers { o(action, self) }
        if let record = recordingObserver {
            withUnsafeMutablePointer(to: &_state) { record(action, $0.pointee) }
        }
        for e in effects { effectHandler?(e) }
    }
}
