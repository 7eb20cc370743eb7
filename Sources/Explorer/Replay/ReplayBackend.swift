/// A recording played back as a backend: its events arrive with their recorded times, at
/// 1x, 10x or as fast as the loop takes them, and every screen works on it. The replay
/// has its own clock (`now`, the recording time being played), which the app's ticks read,
/// so ages and timeouts are those of the recording.
///
/// The user cannot change the past: connect, read, write, notify and scan commands are
/// answered with a NotSupported "replay: read-only" failure, while the recorded
/// connections and values play as they happened.
@MainActor
public final class ReplayBackend: Backend {
    public let kind = "replay"
    public let recording: Recording
    /// Plays again from the start after the end (the demo on a recording).
    public let loops: Bool
    /// Status changes (position each second, pause, speed, end), for the status bar.
    public var onStatus: (@MainActor (ReplayStatus) -> Void)?
    /// The replay went back to its start (seek back): forget what it had shown.
    public var onRewind: (@MainActor (ReplayStatus) -> Void)?

    private var loop: EventLoop?
    private var emit: (@MainActor (BackendEvent, Timestamp) -> Void)?
    private var timer: EventLoop.TimerID?
    public private(set) var index = 0
    private var anchorPosition: Timestamp
    private var anchorMono = 0.0
    public private(set) var speed: ReplaySpeed
    public private(set) var paused = false
    private var lastReported: ReplayStatus?
    /// Events emitted per loop turn at `max`, so keys stay responsive.
    static let batch = 2000

    public init(recording: Recording, speed: ReplaySpeed = .one, loops: Bool = false) {
        self.recording = recording
        self.speed = speed
        self.loops = loops
        anchorPosition = recording.start
    }

    public var finished: Bool { index >= recording.events.count }

    /// The recording time being played.
    public var now: Timestamp {
        guard !paused, !finished, loop != nil, let f = speed.factor else { return anchorPosition }
        return Timestamp(min(recording.end.seconds, anchorPosition.seconds + (monotonicSeconds() - anchorMono) * f))
    }

    public var status: ReplayStatus {
        ReplayStatus(start: recording.start, end: recording.end, position: now, speed: speed, paused: paused,
                     finished: finished, skipped: recording.skipped)
    }

    public func start(loop: EventLoop, emit: @escaping @MainActor (BackendEvent, Timestamp) -> Void) {
        self.loop = loop
        self.emit = emit
        anchorMono = monotonicSeconds()
        pump()
    }

    public func execute(_ command: BackendCommand) {
        let readOnly = "replay: read-only (the recording plays as it happened)"
        let at = now
        switch command {
        case .startScan: emit?(.scanFailed(.notSupported(readOnly)), at)
        case .stopScan, .setPowered: emit?(.failure(.notSupported(readOnly)), at)
        case let .connect(id): emit?(.connectFailed(id, .notSupported(readOnly)), at)
        case .disconnect, .setTrusted, .setBlocked, .forget: emit?(.failure(.notSupported(readOnly)), at)
        case let .pair(id): emit?(.pairCompleted(id, .notSupported(readOnly)), at)
        case .answerAgent: break   // a replay never asks
        case let .read(_, cid, _): emit?(.readCompleted(cid, .failure(.notSupported(readOnly))), at)
        case let .write(_, cid, bytes, type): emit?(.writeCompleted(cid, bytes, type, .notSupported(readOnly)), at)
        case let .setNotify(_, cid, on): emit?(.notifyChanged(cid, enabled: on, .notSupported(readOnly)), at)
        case let .acquireWrite(_, cid): emit?(.writeNotAcquired(cid, reason: readOnly, mtu: nil), at)
        case let .flushWrites(_, cid): emit?(.writesFlushed(cid), at)
        case let .readDescriptor(_, did):
            // Asked by the reducer after services resolve: the recorded answer (if the
            // recording has one) follows and sets the value; this lets a peripheral of an
            // older recording, which has none, become ready all the same.
            emit?(.descriptorRead(did, .failure(.notSupported(readOnly))), at)
        case let .writeDescriptor(_, did, bytes): emit?(.descriptorWritten(did, bytes, .notSupported(readOnly)), at)
        }
    }

    public func control(_ c: ReplayControl) {
        switch c {
        case .pauseToggled:
            if finished {
                seek(to: recording.start)
                paused = false
            } else {
                reanchor()
                paused.toggle()
            }
        case .speedCycled:
            reanchor()
            speed = speed.next
        case let .seek(seconds):
            seek(to: now + seconds)
            return
        }
        pump()
    }

    /// Plays up to `target` at once (forward), or from the start again (back).
    public func seek(to target: Timestamp) {
        let t = Timestamp(min(max(target.seconds, recording.start.seconds), recording.end.seconds))
        if t < now || t == recording.start {
            index = 0
            anchorPosition = recording.start
            onRewind?(status)
        }
        while index < recording.events.count, recording.events[index].at <= t { emitNext() }
        anchorPosition = t
        anchorMono = monotonicSeconds()
        pump()
    }

    public func shutdown() {
        if let timer { loop?.cancel(timer) }
        timer = nil
        loop = nil
    }

    private func reanchor() {
        anchorPosition = now
        anchorMono = monotonicSeconds()
    }

    private func emitNext() {
        let (at, event) = recording.events[index]
        index += 1
        emit?(event, at)
    }

    private func pump() {
        if let timer { loop?.cancel(timer) }
        timer = nil
        guard let loop else { return }
        defer { report() }
        if paused { return }
        if finished {
            if loops {
                timer = loop.schedule(after: 2) { [weak self] in
                    self?.timer = nil
                    self?.seek(to: self?.recording.start ?? Timestamp(0))
                }
            }
            return
        }
        guard let factor = speed.factor else {
            var n = 0
            while !finished, n < Self.batch { emitNext(); n += 1 }
            anchorPosition = recording.events[index - 1].at
            timer = loop.schedule(after: 0) { [weak self] in self?.timer = nil; self?.pump() }
            return
        }
        let position = now
        while !finished, recording.events[index].at <= position { emitNext() }
        if finished {
            anchorPosition = recording.end
            timer = loop.schedule(after: 0) { [weak self] in self?.timer = nil; self?.pump() }
            return
        }
        // Wake for the next event, or in a second to move the clock on the status bar.
        let due = (recording.events[index].at - position) / factor
        timer = loop.schedule(after: min(max(0, due), 1)) { [weak self] in self?.timer = nil; self?.pump() }
    }

    private func report() {
        var s = status
        s.position = Timestamp(s.position.seconds.rounded(.down))
        guard s != lastReported else { return }
        lastReported = s
        onStatus?(status)
    }
}
