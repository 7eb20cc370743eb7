/// A command that names several devices (`notify A UUID B UUID`): each device is a job of
/// its own (`Job.each`), which `JobReducer` runs as if it were the only one, on every
/// action in turn, through the same connection lifecycle as the app's several links. Their
/// timers are told apart by number, the scan stops once none of them is looking for its
/// device, their lines name the device, and the command finishes when all of them have,
/// with the first failure's status.
enum JobParts {
    static func reduce(_ s: inout AppState, _ action: Action, _ effects: [Effect]) -> [Effect] {
        guard case .some = s.job, s.job?.exitCode == nil else { return [] }
        // The whole moves out of the state and each part into it in turn, by swaps, as
        // JobReducer moves a job: nothing is copied, no buffer a part grows is shared.
        var whole = JobReducer.standIn
        swap(&whole, &s.job!)
        var out: [Effect] = []
        for i in whole.parts.indices where whole.parts[i].exitCode == nil {
            var mine = action
            if case let .jobTimerFired(.part(n, timer)) = action {
                guard n == i else { continue }
                mine = .jobTimerFired(timer)
            }
            swap(&s.job!, &whole.parts[i])
            let said = JobReducer.reduce(&s, mine, effects)
            swap(&s.job!, &whole.parts[i])
            for e in said {
                switch e {
                case let .startTimer(t, after): out.append(.startTimer(.part(i, t), after: after))
                case let .cancelTimer(t): out.append(.cancelTimer(.part(i, t)))
                case .finish, .backend(.stopScan): break   // the whole's, below
                case let .output(.value(v)):
                    var named = v
                    named.named = true
                    out.append(.output(.value(named)))
                case .output(.warning):
                    if !out.contains(e) { out.append(e) }   // the app's word, once (an agent's request refused)
                default: out.append(e)
                }
            }
        }
        let looking = whole.parts.contains { $0.phase == .finding }
        s.scanWanted = looking || s.scanWanted
        if !looking, !whole.scanStopped {
            whole.scanStopped = true
            s.scanWanted = false
            out.append(.backend(.stopScan))
        }
        let codes = whole.parts.compactMap(\.exitCode)
        if codes.count == whole.parts.count {
            let code = codes.first { $0 != 0 } ?? 0
            whole.phase = .done(exitCode: code)
            out.append(.finish(exitCode: code))
        }
        swap(&whole, &s.job!)
        return out
    }
}
