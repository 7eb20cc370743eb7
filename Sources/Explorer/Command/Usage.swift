/// The command line's help (`--help`), in one place: each command's usage line is also
/// what its parser says on a wrong command line.
public enum Usage {
    public static let replay = """
       bleexplr [OPTIONS] replay FILE [--speed 1|10|max] [--paused]
"""

    public static let serve = """
       bleexplr [OPTIONS] serve SPEC [--json]
       bleexplr [OPTIONS] serve --stream FILE --char UUID [SPEC] [--json]
       bleexplr [OPTIONS] serve --clone RECORDING ADDRESS [--json]
"""

    public static let watch = """
       bleexplr [OPTIONS] watch ADDRESS UUID (--exec CMD | --post URL [--header 'Name: value']...
                [--body TEMPLATE]) [--debounce MS] [--queue FILE] [--queue-size N] [--json]
"""

    public static let monitor = """
       bleexplr [OPTIONS] monitor --region NAME=UUID[:MAJOR[:MINOR]]... [--enter-rssi DBM]
                [--exit-rssi DBM] [--exit-after S] [--on-enter CMD] [--on-exit CMD]
                [--duration S] [--json]
"""

    /// One line a status: `  3  no bus (...)`; then the signals'.
    public static let exitCodes = (ExitCode.allCases.map { "  \($0.rawValue)    \($0.meaning)" }
        + ["  130  interrupted by Ctrl-C (0 for watch, monitor, notify without --count, scan without --duration); 129 SIGHUP, 143 SIGTERM"]).joined(separator: "\n")

    public static let text = """
usage: bleexplr [OPTIONS]                          the full-screen explorer
       bleexplr [OPTIONS] scan [--duration S] [--json]   without S: a line per device heard,
                changed or gone, until stopped (as bluetoothctl's scan on)
       bleexplr [OPTIONS] services ADDRESS [--json]
       bleexplr [OPTIONS] pair ADDRESS [--passkey N] [--confirm yes|no]   exit 0 when paired
       bleexplr [OPTIONS] read ADDRESS UUID [--offset N] [--json]   N: from byte N on
       bleexplr [OPTIONS] write ADDRESS UUID VALUE [--without-response] [--json]
       bleexplr [OPTIONS] notify ADDRESS UUID [--count N] [--duration S] [--json]
                [--until EOM [--output FILE]]   reassemble a chunked message, with throughput
       bleexplr decode HEX [HEX] [--json]     raw advertising data (and its scan response),
                decoded as the scan list does
\(replay)
\(serve)
\(watch)
\(monitor)

A full-screen explorer for Bluetooth Low Energy. The commands run without a screen,
print results (JSON Lines with --json) and exit with one of the statuses below.
VALUE is hex (01ff, "01 ff") or text in quotes ('"hello"').

Options:
  --demo             use the built-in simulated world (no Bluetooth adapter needed)
  --seed N           seed of the simulated world, for a reproducible run (default 1)
  --demo-control FIFO  in the demo, read commands from FIFO: "press", "drop"
  --demo-recording FILE  the demo plays FILE (a recording) in a loop instead of the
                     built-in world
  --bus ADDRESS      D-Bus address of bluetoothd's bus (default: the system bus),
                     e.g. unix:path=/run/dbus/system_bus_socket or tcp:host=127.0.0.1,port=17777
  --adapter hciN     adapter to use (default: the first powered one)
  --rssi-floor DBM   RSSI discovery filter, or "off" (default -127). Without one, BlueZ
                     reports RSSI only when it moves by 8 dB; with one, the kernel drops
                     reports whose RSSI is "not available" (some controllers send only those)
  --record FILE      record the session to FILE (JSON Lines; R toggles it in the app)
  --crowd N          add N anonymous devices to the simulated world
  --eom TEXT         what ends a message in the app's message view (m); default EOM
  --region NAME=UUID[:MAJOR[:MINOR]]  an iBeacon region (repeatable), for the app's
                     regions panel (b) and monitor. Inside when a beacon is heard at or
                     above --enter-rssi (default -75); outside after --exit-after S
                     (default 10) without one at or above --exit-rssi (default -85).
                     --on-enter CMD / --on-exit CMD run with BLE_REGION, BLE_EVENT,
                     BLE_ADDRESS, BLE_MAJOR, BLE_MINOR, BLE_RSSI, BLE_TIME set
  --agent CAPABILITY the pairing agent registered with bluetoothd: keyboard-display
                     (default), display-yes-no, display-only, keyboard-only,
                     no-input-no-output, or off (none)
  --passkey N        answer a passkey (or PIN) request without asking (commands)
  --confirm yes|no   answer a numeric comparison or authorization without asking;
                     otherwise a command asks on its terminal, and without one rejects
  --secrets FILE     NAME=value lines (mode 600) for ${NAME} in hooks' URLs, headers
                     and bodies; the environment is used for names not in it

Hooks (watch, and `a` on a characteristic screen in the app):
  --exec CMD         run CMD with BLE_HEX, BLE_TEXT, BLE_DECODED, BLE_ADDRESS, BLE_UUID,
                     BLE_NAME, BLE_TIME, BLE_SEQ set; exit 0 is delivered, others retried
                     (5 attempts)
  --post URL         send an HTTP POST; 2xx is delivered; no answer, 408, 429 and 5xx are
                     retried with backoff for as long as it takes; other answers rejected
  --header 'N: V'    a request header (repeatable); V may use ${NAME}
  --body TEMPLATE    the request body, with {{hex}} {{text}} {{decoded}} {{address}}
                     {{uuid}} {{name}} {{time}} {{seq}} (JSON-escaped in a JSON body);
                     default: a JSON object with all of them
  --debounce MS      ignore notifications within MS of the last one that fired
  --queue FILE       where events wait for delivery (default
                     ~/.local/state/bleexplr/watch-ADDRESS-UUID.jsonl); survives restarts
  --queue-size N     at most N waiting events (default 1000); the oldest is dropped, and
                     said so, when full
  --version          print the version
  -h, --help         this help

Keys in the app: arrows or j/k move, Enter connects/opens (reconnects after a link
loss), Esc goes back, / filters, r n w read, notify, write (on a tree row too), A reads
all, a attaches a hook to a characteristic, b shows iBeacon regions, e pairs, t trusts,
B blocks, X forgets a device, ? lists every key, q quits. Prompts edit as readline
does; up and down in the write prompt bring back the values written before (kept in
~/.local/state/bleexplr/writes). In the demo, SIGUSR1 presses the iTag's button. In a
replay: p pauses, x cycles the speed (1x, 10x, max), [ ] seek 10 s, { } a minute.
The app needs a terminal of at least 60x16 (smaller, it refuses to start with status 3);
in a locale without UTF-8 (LANG=C) it draws in ASCII, every column in its place.
See docs/hooks.md for watch and monitor, with a kintone example.

Exit status:
\(exitCodes)

"""
}
