import Explorer

/// `replay FILE`: the app over a recording.
struct ReplayPlan {
    var path: String
    var speed: ReplaySpeed
    var paused: Bool
}

struct ReplayVerb: VerbParser {
    var speed = ReplaySpeed.one
    var paused = false

    mutating func flag(_ flag: String, _ args: inout Args) -> Bool {
        switch flag {
        case "--speed":
            let v = args.value(flag)
            guard let s = ReplaySpeed(v) else { fail("--speed takes 1, 10 or max, not '\(TerminalSafe.text(v))'") }
            speed = s
        case "--paused": paused = true
        default: return false
        }
        return true
    }

    func verb(_ rest: [String], _ options: Options) -> Verb {
        guard rest.count == 1 else { fail("usage: bleexplr replay FILE [--speed 1|10|max] [--paused]") }
        if options.demo { fail("replay plays a recording: drop --demo (or use --demo --demo-recording FILE)") }
        return .replay(ReplayPlan(path: rest[0], speed: speed, paused: paused))
    }
}

/// Reads a recording for replay, or exits with the reason.
func loadRecording(_ path: String) -> Recording {
    do {
        let r = try Recording.load(path: path)
        if r.events.isEmpty { fail("\(TerminalSafe.text(path)) holds no events to replay") }
        return r
    } catch {
        fail(TerminalSafe.text(error.description))
    }
}
