@preconcurrency import CDBus
@preconcurrency import Glibc
import Explorer

/// Puts one libdbus connection on the app's EventLoop: its socket watches become loop
/// watches, its timeouts loop timers, and queued messages are dispatched from a
/// zero-delay timer whenever libdbus reports data remaining. Nothing polls.
///
/// libdbus keeps a retained reference to this object as the user data of every
/// callback it installs (released by the matching free function), so a callback can
/// never see freed memory; `connection` is weak and `raw` is cleared on close.
@MainActor
final class DBusLoopBinding {
    let loop: EventLoop
    var raw: OpaquePointer?
    weak var connection: DBusConnection?
    private var watches: [OpaquePointer: EventLoop.WatchID] = [:]
    /// Every timeout libdbus has added, armed or not.
    private var timeouts: [OpaquePointer: EventLoop.TimerID?] = [:]
    private var dispatchScheduled = false
    /// Messages dispatched per loop turn before giving the terminal a chance.
    private let dispatchBudget = 512

    init(loop: EventLoop, raw: OpaquePointer) { self.loop = loop; self.raw = raw }

    /// A retained pointer for one libdbus user-data slot, paired with `releaseBinding`.
    func retainedPointer() -> UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    nonisolated static func from(_ p: UnsafeMutableRawPointer?) -> DBusLoopBinding? {
        p.map { Unmanaged<DBusLoopBinding>.fromOpaque($0).takeUnretainedValue() }
    }

    func install() -> Bool {
        guard let raw else { return false }
        guard dbus_connection_set_watch_functions(raw, bxAddWatch, bxRemoveWatch, bxToggleWatch,
                                                  retainedPointer(), bxReleaseBinding) != 0,
              dbus_connection_set_timeout_functions(raw, bxAddTimeout, bxRemoveTimeout, bxToggleTimeout,
                                                    retainedPointer(), bxReleaseBinding) != 0
        else { return false }
        dbus_connection_set_dispatch_status_function(raw, bxDispatchStatus, retainedPointer(), bxReleaseBinding)
        // Replies and signals read during the blocking register (NameAcquired) are
        // already queued, and no status change will announce them.
        if dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS { scheduleDispatch() }
        return true
    }

    /// Removing the functions makes libdbus call our remove callbacks for every watch
    /// and timeout it still has, which takes them off the loop.
    func uninstall() {
        guard let raw else { return }
        dbus_connection_set_dispatch_status_function(raw, nil, nil, nil)
        _ = dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
        _ = dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
        for case let id? in timeouts.values { loop.cancel(id) }
        for id in watches.values { loop.removeWatch(id) }
        timeouts = [:]
        watches = [:]
        self.raw = nil
    }

    // MARK: watches

    func addWatch(_ w: OpaquePointer) -> Bool {
        let flags = dbus_watch_get_flags(w)
        var events: Int16 = 0
        if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
        if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
        let id = loop.addWatch(fd: dbus_watch_get_unix_fd(w), events: events,
                               enabled: dbus_watch_get_enabled(w) != 0) { [weak self] revents in
            self?.handleWatch(w, revents)
        }
        watches[w] = id
        return true
    }

    func removeWatch(_ w: OpaquePointer) {
        if let id = watches.removeValue(forKey: w) { loop.removeWatch(id) }
    }

    func toggleWatch(_ w: OpaquePointer) {
        if let id = watches[w] { loop.setWatch(id, enabled: dbus_watch_get_enabled(w) != 0) }
    }

    private func handleWatch(_ w: OpaquePointer, _ revents: Int16) {
        guard watches[w] != nil else { return }
        var flags: UInt32 = 0
        if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
        if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
        if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
        if revents & Int16(POLLERR | POLLNVAL) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
        // Reading may queue messages; libdbus then calls the dispatch status function,
        // which only notes it while we are in here: they are dispatched right after, in
        // the same turn of the loop (no timer to schedule and run for every read).
        handlingWatch = true
        _ = dbus_watch_handle(w, flags)
        handlingWatch = false
        if dispatchScheduled, dispatchTimer == nil { dispatch() }
    }

    // MARK: timeouts (libdbus timeouts repeat every interval until removed or disabled)

    func addTimeout(_ t: OpaquePointer) -> Bool {
        timeouts[t] = .some(nil)
        if dbus_timeout_get_enabled(t) != 0 { arm(t) }
        return true
    }

    func removeTimeout(_ t: OpaquePointer) {
        if let entry = timeouts.removeValue(forKey: t), let id = entry { loop.cancel(id) }
    }

    func toggleTimeout(_ t: OpaquePointer) {
        guard let entry = timeouts[t] else { return }
        if let id = entry { loop.cancel(id) }
        timeouts[t] = .some(nil)
        if dbus_timeout_get_enabled(t) != 0 { arm(t) }
    }

    private func arm(_ t: OpaquePointer) {
        let seconds = Double(dbus_timeout_get_interval(t)) / 1000
        timeouts[t] = loop.schedule(after: seconds) { [weak self] in self?.fireTimeout(t) }
    }

    private func fireTimeout(_ t: OpaquePointer) {
        guard timeouts[t] != nil else { return }
        timeouts[t] = .some(nil)
        _ = dbus_timeout_handle(t)
        // Handling usually removes it (a pending call's timeout); if not, it repeats.
        if timeouts[t] != nil, dbus_timeout_get_enabled(t) != 0 { arm(t) }
    }

    // MARK: dispatch

    /// libdbus forbids dispatching from inside its status callback (its lock is held),
    /// so the dispatch runs from the loop a moment later.
    func scheduleDispatch() {
        guard !dispatchScheduled else { return }
        dispatchScheduled = true
        guard !handlingWatch else { return }   // handleWatch dispatches when libdbus returns
        dispatchTimer = loop.schedule(after: 0) { [weak self] in
            self?.dispatchTimer = nil
            self?.dispatch()
        }
    }

    private var handlingWatch = false
    private var dispatchTimer: EventLoop.TimerID?

    /// Storage for the signals of a run, kept between runs (see `dispatch`).
    private var spareRun: [DBusRawSignal] = []
    /// Signals taken from the queue before they are handed on together.
    private let runLimit = 64

    private func dispatch() {
        dispatchScheduled = false
        var n = 0
        // However this run ends, whoever gathered its signals hands them on before
        // anything else (a reply dispatched below, a timer, a key) is handled.
        var signals = 0
        // One strong reference for the run, not a weak load for every message.
        let connection = self.connection
        defer { if signals > 0 { connection?.signalsDispatched?() } }
        // Signals are handled in three passes over a run of them: libdbus reads each one's
        // header fields, then the connection's handlers see each, then libdbus frees them.
        // Each pass keeps its code in the instruction cache for the whole run; going
        // message by message through all three, the code of a busy ingest path did not fit.
        var run = spareRun
        spareRun = []
        defer { spareRun = run }
        func handOn() {
            connection?.receive(run)
            for s in run { dbus_message_unref(s.message) }
            signals += run.count
            run.removeAll(keepingCapacity: true)
        }
        defer { handOn() }
        while let raw, n < dispatchBudget {
            n += 1
            // Signals go from the queue straight to the connection: libdbus's dispatch would
            // copy its filter list, split the path for its object tree and take its locks
            // several times for each, for one filter that is ours anyway. Replies (pending
            // calls complete in dispatch), method calls and libdbus's own Local signals
            // still go through dbus_connection_dispatch, in queue order.
            if let m = dbus_connection_borrow_message(raw) {
                if dbus_message_get_type(m) == DBUS_MESSAGE_TYPE_SIGNAL, let interface = dbus_message_get_interface(m),
                   !DBusRawSignal.same(interface, "org.freedesktop.DBus.Local") {
                    dbus_connection_steal_borrowed_message(raw, m)
                    if let s = DBusRawSignal(m, interface: interface) {
                        run.append(s)
                        if run.count == runLimit { handOn() }
                    } else {
                        handOn()   // those before it first
                        connection?.receiveSignal(m)
                        dbus_message_unref(m)
                        signals += 1
                    }
                    continue
                }
                dbus_connection_return_message(raw, m)
                // A reply or method call next: the signals before it go first.
                handOn()
                if signals > 0 { signals = 0; connection?.signalsDispatched?() }
            } else if dbus_connection_get_dispatch_status(raw) != DBUS_DISPATCH_DATA_REMAINS {
                return   // nothing queued
            }
            if dbus_connection_dispatch(raw) != DBUS_DISPATCH_DATA_REMAINS { return }
        }
        handOn()
        // Out of budget with messages left: the status stays DATA_REMAINS, so no
        // callback would come; reschedule ourselves.
        if let raw, dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS { scheduleDispatch() }
    }
}

// The C callbacks. libdbus calls them on the thread that drives it, which is the
// event loop's (the main thread); hence assumeIsolated, and the libdbus handles cross
// into it as `nonisolated(unsafe)` (OpaquePointer is not Sendable).

private func bxAddWatch(_ w: OpaquePointer?, _ data: UnsafeMutableRawPointer?) -> dbus_bool_t {
    guard let w, let b = DBusLoopBinding.from(data) else { return 0 }
    nonisolated(unsafe) let handle = w
    return MainActor.assumeIsolated { b.addWatch(handle) } ? 1 : 0
}
private func bxRemoveWatch(_ w: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let w, let b = DBusLoopBinding.from(data) else { return }
    nonisolated(unsafe) let handle = w
    MainActor.assumeIsolated { b.removeWatch(handle) }
}
private func bxToggleWatch(_ w: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let w, let b = DBusLoopBinding.from(data) else { return }
    nonisolated(unsafe) let handle = w
    MainActor.assumeIsolated { b.toggleWatch(handle) }
}
private func bxAddTimeout(_ t: OpaquePointer?, _ data: UnsafeMutableRawPointer?) -> dbus_bool_t {
    guard let t, let b = DBusLoopBinding.from(data) else { return 0 }
    nonisolated(unsafe) let handle = t
    return MainActor.assumeIsolated { b.addTimeout(handle) } ? 1 : 0
}
private func bxRemoveTimeout(_ t: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let t, let b = DBusLoopBinding.from(data) else { return }
    nonisolated(unsafe) let handle = t
    MainActor.assumeIsolated { b.removeTimeout(handle) }
}
private func bxToggleTimeout(_ t: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let t, let b = DBusLoopBinding.from(data) else { return }
    nonisolated(unsafe) let handle = t
    MainActor.assumeIsolated { b.toggleTimeout(handle) }
}
private func bxDispatchStatus(_ c: OpaquePointer?, _ status: DBusDispatchStatus, _ data: UnsafeMutableRawPointer?) {
    guard status == DBUS_DISPATCH_DATA_REMAINS, let b = DBusLoopBinding.from(data) else { return }
    MainActor.assumeIsolated { b.scheduleDispatch() }
}
func bxReleaseBinding(_ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    Unmanaged<DBusLoopBinding>.fromOpaque(data).release()
}
