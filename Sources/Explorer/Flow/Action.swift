/// A key, as the terminal layer reports it.
public enum Key: Equatable, Sendable {
    case char(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, backspace, delete, tab
    case ctrl(Character)
    case resize
}

public enum CursorMove: Equatable, Sendable { case up, down, pageUp, pageDown, top, bottom }

public enum InputEdit: Equatable, Sendable {
    case insert(String)
    case deleteBackward
    case clear
}

/// Everything that can happen, named after what happened. Keys become these through
/// the Keymap; backend events arrive as `.backend`.
public enum Action: Equatable, Sendable {
    // The user
    case cursorMoved(CursorMove)
    case rowActivated
    case detailsRequested
    case backRequested
    case collapseToggled
    case disconnectRequested
    /// `1`–`9`: the screen of that link (the top bar numbers them).
    case linkSelected(Int)
    case scanToggled
    case sortCycled
    case connectableOnlyToggled
    case hideUnnamedToggled
    case minRSSIChanged(step: Int)
    case filterStarted
    case inputEdited(LineEdit)
    case inputSubmitted
    case inputCancelled
    case readRequested
    /// `A` on the device screen: read every readable characteristic.
    case readAllRequested
    case writeStarted
    /// `W`: the next write type the characteristic allows (request, command, reliable).
    case writeTypeCycled
    /// `D`: select the characteristic's next descriptor (and read it); past the last, none.
    case descriptorCycled
    case notifyToggled
    case formatCycled(forward: Bool)
    case messageViewToggled
    case recordingToggled
    case powerOnRequested
    case helpToggled
    /// Up, down or a page in the help (`?`) when it does not fit.
    case helpScrolled(by: Int)
    /// `L`: the event log panel; its scroll; only problems (`e` in it).
    case logToggled
    case logScrolled(by: Int)
    case logProblemsOnlyToggled
    /// The terminal has this size now (at start and on every resize).
    case screenResized(width: Int, height: Int)
    /// `a` on a characteristic: attach (or change, or detach) a hook.
    case hookStarted
    /// `N`: name a device (its alias) or the UUID under the cursor.
    case nameStarted
    /// `b`: the iBeacon regions screen.
    case regionsRequested
    case quitRequested
    /// Ctrl-L: draw the whole screen again (the terminal layer's; the state stays as it is).
    case repaintRequested
    // Pairing
    case pairRequested
    case trustToggled
    case blockToggled
    /// `X`: asks first (`forgetAnswered`).
    case forgetRequested
    case forgetAnswered(Bool)
    /// `C`: clear bluetoothd's cache of a device: forget it, connect again when heard (asks first).
    case cacheClearRequested
    /// Digits typed into the agent's passkey (or PIN) prompt.
    case agentPromptEdited(InputEdit)
    /// Enter or y (true), Esc or n (false) on the agent's prompt.
    case agentPromptAnswered(Bool)
    /// A line typed on a command's terminal, answering the agent's question.
    case agentAnswerTyped(String)
    /// Pause, speed or seek of a replay (p, x, [ ]).
    case replayControlled(ReplayControl)
    /// The app is up: start scanning, and recording when asked on the command line.
    case appStarted(recordTo: String?)
    /// A command's timer ran out (set by `Effect.startTimer`).
    case jobTimerFired(JobTimer)
    /// SIGINT, SIGTERM or SIGHUP (its number) to a command: it leaves as it would when done,
    /// with 128 + the signal, or 0 for a command that runs until stopped.
    case interrupted(signal: Int32)
    // serve: the GATT server and stdin
    /// What a central (or bluetoothd) did to the served peripheral; `mtu` the link's, if known.
    case served(ServeEvent, mtu: Int?, at: Timestamp)
    /// A line on stdin: `notify UUID VALUE` or `set UUID VALUE`.
    case serveControl(String, at: Timestamp)
    /// A notification asked for on stdin went out (or did not).
    case serveNotified(BLEUUID, Bytes, sent: Bool, at: Timestamp)
    /// This many of a stream window's chunks went out (all of them, unless one failed).
    case serveWindowSent(generation: Int, sent: Int, at: Timestamp)
    /// bluetoothd took every notification of a stream window (or the link failed).
    case serveDrained(generation: Int, ok: Bool, at: Timestamp)
    /// Unregistered: serve can exit.
    case serveStopped
    /// SIGUSR1 to serve: print what `--receive` has received so far.
    case serveTallyAsked
    // The world
    case backend(BackendEvent, at: Timestamp)
    case tick(Timestamp)
    // The runtime reporting on effects it ran
    /// Recording to `path`; `instead` is the name asked for, when it was taken.
    case recordingStarted(path: String, instead: String? = nil)
    case recordingStopped
    case recordingFailed(String)
    /// An attached action's event was queued, delivered, retried or dropped.
    case hookReported(DeliveryReport, for: CharacteristicID?)
    /// An action attached with `a` could not be set up (a missing secret, say).
    case hookAttachFailed(CharacteristicID, String)
    /// A region's on-enter/on-exit command finished (or a hook could not be set up).
    case commandReported(String, problem: Bool)
    /// A replay moved on, paused, changed speed or ended.
    case replayChanged(ReplayStatus)
    /// A replay went back to its start to seek back: what it showed is forgotten.
    case replayRewound(ReplayStatus)
    /// The values written before to a characteristic (`WriteHistory.key`), read from the state directory.
    case writeHistoryLoaded(key: String, [String])
    /// A name chosen with `N` was saved (in this file) and is shown now, or could not be.
    case nameSaved(NameChange, Result<String, UserConfig.Problem>)
}

/// What the reducer asks the outside world to do. Data, not calls: tests compare them.
public enum Effect: Equatable, Sendable {
    case backend(BackendCommand)
    /// Record to a new file; a name that is taken is refused, or with `renameIfTaken`
    /// (`R`), numbered.
    case startRecording(path: String, renameIfTaken: Bool = false)
    case stopRecording
    /// A region was entered or left: record it and run its command.
    case regionChanged(RegionTransition)
    /// Attach (or with nil, detach) a hook to a characteristic.
    case attachHook(CharacteristicID, HookTarget?)
    /// A notification on a characteristic with a hook: deliver it.
    case fireHook(CharacteristicID, FiredEvent)
    /// Pause, speed or seek the replay backend.
    case replay(ReplayControl)
    /// A command's result or message to print.
    case output(CommandOutput)
    /// Ask serve's GATT server.
    case serve(ServeCommand)
    /// Fire `.jobTimerFired(timer)` after this many seconds (replacing one already set).
    case startTimer(JobTimer, after: Double)
    case cancelTimer(JobTimer)
    /// Read (`.writeHistoryLoaded` comes back) or save a characteristic's write history.
    case loadWriteHistory(key: String)
    case saveWriteHistory(key: String, [String])
    /// Save a name chosen with `N` (`NamesFile`) and show it (`.nameSaved` comes back).
    case saveName(NameChange)
    /// The command is done: exit with this status.
    case finish(exitCode: Int32)
    case quit
}
