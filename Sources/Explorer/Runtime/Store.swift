import Observation

/// Owns the state. `send` runs the reducer, tells observers (the recorder), and hands
/// effects to the effect handler. Actions sent while another is being handled queue up,
/// so every observer sees them in order. A batch of advertisements is handled report by
/// report, exactly as the reports sent one by one would be: observers and the recorder
/// never see a batch, and effects interleave as they would.
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
    /// every action after the other observers.
    @ObservationIgnored public var recordingObserver: (@MainActor (Action, Store) -> Void)?
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
        // The action goes straight through (no copy into the queue and out again); only
        // those sent meanwhile (by an observer or an effect) wait their turn.
        if case let .backend(.advertisingUpdates(updates), at) = action {
            // A batch sent on its own is as many sends in a row: each update reduced,
            // observed (as its report: the recorder writes its line) and its effects run,
            // then everything those caused, before the next one.
            // Observation hears of the change once for the whole batch, not per update.
            withMutation(keyPath: \.state) {
                if !observers.isEmpty || recordingObserver != nil {
                    for u in updates {
                        step(.backend(.advertisementReceived(u.report), at: at), unobserved: true)
                        drain()
                    }
                    return
                }
                // Nobody to show the actions to: the updates are applied as they lie in
                // the batch, without making an action or a report of each, and the state
                // is reached once for every run of them that causes nothing else. Only
                // an update's effects can send (and queue) actions: those run, and what
                // they queued is handled, before the next update.
                var next = 0
                while next < updates.endIndex {
                    let effects = Reducer.reduce(&_state, updates: updates, from: &next, at: at)
                    for e in effects { effectHandler?(e) }
                    drain()
                }
            }
        } else {
            step(action)
            drain()
        }
    }

    private func drain() {
        while !queue.isEmpty {
            let next = queue.removeFirst()
            if case let .backend(.advertisingUpdates(updates), at) = next {
                // Queued, a batch is its reports queued one after another.
                for u in updates { step(.backend(.advertisementReceived(u.report), at: at)) }
            } else {
                step(next)
            }
        }
    }

    private func step(_ action: Action, unobserved: Bool = false) {
        let effects = unobserved ? Reducer.reduce(&_state, action) : Reducer.reduce(&state, action)
        for o in observers { o(action, self) }
        recordingObserver?(action, self)
        for e in effects { effectHandler?(e) }
    }
}
