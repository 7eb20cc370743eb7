@preconcurrency import Glibc
import Explorer
import WebHook

/// The sender for a target: a command, or HTTP.
@MainActor
func makeSender(_ target: HookTarget, loop: EventLoop, secrets: Secrets) -> HookSender {
    switch target {
    case let .exec(command): return CommandSender(command: command, loop: loop)
    case let .post(h): return HTTPSender(hook: h, loop: loop) { secrets.lookup($0) }
    }
}
