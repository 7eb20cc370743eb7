@preconcurrency import Glibc
import Explorer
import WebHook

struct WatchPlan {
    var address: String
    var uuid: BLEUUID
    var target: HookTarget
    var debounce: Double
    var queuePath: String
    var queueSize: Int
}

struct WatchVerb: VerbParser {
    var exec: String?, post: String?, headers: [HTTPHeader] = [], body: String?
    var debounceMS = 0, queue: String?, queueSize = 1000

    mutating func flag(_ flag: String, _ args: inout Args) -> Bool {
        switch flag {
        case "--exec": exec = args.value(flag)
        case "--post": post = args.value(flag)
        case "--header":
            switch HTTPHeader.parse(args.value(flag)) {
            case let .success(h): headers.append(h)
            case let .failure(e): fail(e.message)
            }
        case "--body": body = args.value(flag)
        case "--debounce": debounceMS = args.int(flag, 0...600_000)
        case "--queue": queue = args.value(flag)
        case "--queue-size": queueSize = args.int(flag, 1...1_000_000)
        default: return false
        }
        return true
    }

    func verb(_ rest: [String], _ options: Options) -> Verb {
        guard rest.count == 2 else { fail("usage: bleexplr watch ADDRESS UUID (--exec CMD | --post URL) (see --help)") }
        let address = parseAddress(rest[0]), uuid = parseUUID(rest[1])
        let target: HookTarget
        switch (exec, post) {
        case let (cmd?, nil):
            guard headers.isEmpty, body == nil else { fail("--header and --body go with --post, not --exec") }
            target = .exec(command: cmd)
        case let (nil, url?):
            switch HTTPHook.make(url: url, headers: headers, body: body) {
            case let .success(h): target = .post(h)
            case let .failure(e): fail(e.message)
            }
            for h in headers where h.isSecret && !h.value.contains("${") {
                fputs("bleexplr: warning: the \(h.name) header is given literally, so other users can see it in the process list; use \(h.name): ${NAME} with NAME in the environment or --secrets FILE\n", stderr)
            }
        default: fail("watch takes one of --exec CMD or --post URL")
        }
        let path = queue ?? HookQueue.defaultPath(address: address, uuid: uuid)
        return .watch(WatchPlan(address: address, uuid: uuid, target: target, debounce: Double(debounceMS) / 1000,
                                queuePath: path, queueSize: queueSize))
    }

}

/// `watch`: the job keeps a subscription to one characteristic alive (reconnecting with
/// backoff when the link drops, as iTags do) and fires the hook for each notification;
/// here the hook's queue on disk is wired in, so neither an offline server nor a restart
/// of watch loses a press.
@MainActor
func runWatch(_ plan: WatchPlan, _ command: CommandRun, delivery: HookDelivery, recordTo: String?) -> Int32 {
    let say = { (event: String, message: String) in command.write(.watch(event: event, message: message, seq: nil)) }
    command.runner.onFireHook = { _, event in delivery.fire(event) }
    delivery.onReport = { report in command.store.send(.hookReported(report, for: nil)) }
    say("start", "watching \(plan.address) \(plan.uuid) → \(plan.target.summary); queue \(plan.queuePath)"
        + (delivery.pendingCount > 0 ? " (\(delivery.pendingCount) events from an earlier run to deliver)" : ""))
    if delivery.queue.skippedLines > 0 {
        say("warning", "skipped \(delivery.queue.skippedLines) unreadable line(s) of the queue file")
    }
    command.onStart = { delivery.start() }
    let code = command.run(recordTo: recordTo)
    if delivery.pendingCount > 0 {
        say("stop", "\(delivery.pendingCount) event(s) stay queued in \(plan.queuePath) for the next run")
    }
    return code
}
