/// Every command and option of the command line, once: `--help` (Usage.text), the manual
/// page (ManPage.roff) and the shell completions (Completions) are rendered from this
/// table, so none of them can list what the others do not. The parser (Sources/bleexplr)
/// is tested against it: every flag it takes is here, every flag here it takes.
public enum CommandLineSpec {
    /// What a flag's value (or a command's argument) completes to in a shell.
    public enum Value: Sendable, Equatable {
        /// Anything (a number, an address): the shell offers nothing.
        case free
        case file
        /// A command line to run.
        case command
        case choices([String])
    }

    public struct Option: Sendable {
        public let flag: String
        public let short: String?
        /// The value's name in the help ("FILE"), nil for a flag without one.
        public let value: String?
        public let completes: Value
        /// One paragraph, as the help and the manual page print it.
        public let help: String

        /// A flag without a value.
        init(_ flag: String, short: String? = nil, _ help: String) {
            self.flag = flag; self.short = short; self.value = nil; self.completes = .free; self.help = help
        }

        /// A flag with a value: `completes` says what the shells offer for it.
        init(_ flag: String, _ value: String, _ completes: Value, _ help: String) {
            self.flag = flag; self.short = nil; self.value = value; self.completes = completes; self.help = help
        }

        /// A flag with a value the shells offer nothing for (a number, an address).
        init(_ flag: String, _ value: String, _ help: String) { self.init(flag, value, .free, help) }

        /// `--adapter hciN`, `-h, --help`.
        public var label: String {
            (short.map { "\($0), " } ?? "") + flag + (value.map { " \($0)" } ?? "")
        }

        /// The help up to its first pause, for the shells' one-line descriptions.
        public var brief: String {
            var s = Substring(help)
            for stop in ["; ", " (", ". ", ": ", ", or", " e.g."] {
                if let r = s.firstRange(of: stop) { s = s[..<r.lowerBound] }
            }
            return String(s.prefix(72))
        }
    }

    public struct Command: Sendable {
        public let name: String
        /// Each way to call it, after `bleexplr [OPTIONS] NAME `.
        public let forms: [String]
        public let help: String
        /// Its own flags (every command takes the global options as well).
        public let options: [Option]
        /// What its positional arguments complete to.
        public let arguments: Value
        /// Takes no global options (decode: no backend).
        public var standalone = false
    }

    public struct Group: Sendable {
        public let title: String
        public let options: [Option]
    }

    public static let commands: [Command] = [
        Command(name: "scan", forms: ["[--duration S] [--json]"],
                help: "listen for S seconds, then print each device heard, one line each (JSON Lines with --json); "
                    + "without --duration, a line per device heard, changed or gone until stopped (as bluetoothctl's scan on)",
                options: [Option("--duration", "S", "how long to listen, in seconds (without it: until stopped)")], arguments: .free),
        Command(name: "services", forms: ["ADDRESS [--json]"],
                help: "connect to ADDRESS and print its services, characteristics and descriptors",
                options: [], arguments: .free),
        Command(name: "pair", forms: ["ADDRESS [--passkey N] [--confirm yes|no]"],
                help: "pair with ADDRESS through the pairing agent; exit 0 when paired",
                options: [], arguments: .free),
        Command(name: "forget", forms: ["ADDRESS"],
                help: "remove ADDRESS from bluetoothd: unpaired, its bond and its cache of services gone (X in the app)",
                options: [], arguments: .free),
        Command(name: "read", forms: ["ADDRESS UUID [--offset N] [--json]", "ADDRESS UUID --descriptor UUID [--json]"],
                help: "read the characteristic UUID of ADDRESS (or one of its descriptors) and print its value, decoded",
                options: [Option("--offset", "N", "read from byte N on (default: the whole value)"),
                          Option("--descriptor", "UUID", "read this descriptor of the characteristic (2901, 2904, ...) instead")],
                arguments: .free),
        Command(name: "write", forms: ["ADDRESS UUID VALUE [--type request|command|reliable] [--json]",
                                       "ADDRESS UUID VALUE --descriptor UUID [--json]",
                                       "ADDRESS UUID --file PATH [--type command|request] [--framing plain|seq] [--json]"],
                help: "write VALUE to the characteristic UUID of ADDRESS (or to one of its descriptors); "
                    + "with --file, stream a file in writes of MTU - 3 bytes and print the throughput",
                options: [Option("--type", "TYPE", .choices(["request", "command", "reliable"]),
                                 "request (the default; BlueZ writes a value longer than MTU - 3 bytes as a long write), "
                                 + "command (without response) or reliable (needs the reliable-write extended property); "
                                 + "a type the characteristic does not allow is refused. With --file: command where the "
                                 + "characteristic allows it, else request"),
                          Option("--without-response", "the same as --type command"),
                          Option("--descriptor", "UUID", "write this descriptor of the characteristic instead "
                                 + "(one whose flags allow it; never the CCCD 0x2902, which notify owns)"),
                          Option("--file", "PATH", .file, "send PATH (- for standard input) in writes of MTU - 3 bytes "
                                 + "(510 at most), through BlueZ's AcquireWrite socket where the bus and the characteristic "
                                 + "allow it, else WriteValue (BLEEXPLR_WRITE=value forces it)"),
                          Option("--framing", "plain|seq", .choices(["plain", "seq"]),
                                 "with --file: plain sends EOM after the file; seq puts a sequence number in each write "
                                 + "and ends with EOM, as serve --receive and notify --until read them (default: the bytes as they are)")],
                arguments: .free),
        Command(name: "notify", forms: ["ADDRESS UUID [ADDRESS UUID ...] [--count N] [--duration S] [--json]",
                                        "ADDRESS UUID --until EOM [--framing plain|seq] [--output FILE] [--json]"],
                help: "subscribe to the characteristic UUID of ADDRESS (of each ADDRESS, all at once) and print each notification or indication",
                options: [Option("--count", "N", "stop after N values"),
                          Option("--duration", "S", "stop after S seconds"),
                          Option("--until", "EOM", "reassemble a message sent in chunks and ended by EOM, with its throughput"),
                          Option("--framing", "plain|seq", .choices(["plain", "seq"]),
                                 "how the chunks are framed (with --until; default: seq where the characteristic's description says so, else plain)"),
                          Option("--output", "FILE", .file, "write each reassembled message to FILE (with --until)")],
                arguments: .free),
        Command(name: "decode", forms: ["HEX [HEX] [--json]"],
                help: "decode raw advertising data (and its scan response) as the scan list does; needs no Bluetooth",
                options: [], arguments: .free, standalone: true),
        Command(name: "replay", forms: ["FILE [--speed 1|10|max] [--paused]"],
                help: "the app over a recording (made with --record or R)",
                options: [Option("--speed", "1|10|max", .choices(["1", "10", "max"]), "how fast it plays (default 1)"),
                          Option("--paused", "start paused (p plays)")],
                arguments: .file),
        Command(name: "serve", forms: ["SPEC [--json]", "--stream FILE --char UUID [--framing plain|seq] [SPEC] [--json]",
                                       "--receive FILE --char UUID [--framing plain|seq] [SPEC] [--json]",
                                       "--clone RECORDING ADDRESS [--json]"],
                help: "peripheral mode: a GATT server and an advertisement from SPEC (docs/serve.md), "
                    + "one streaming FILE, one receiving into FILE, or a recorded device",
                options: [Option("--stream", "FILE", .file, "send FILE in notifications of the characteristic --char"),
                          Option("--receive", "FILE", .file, "count every write to the characteristic --char and keep it in "
                                 + "FILE (appended; with --framing, each whole message); SIGUSR1 prints the count"),
                          Option("--char", "UUID", "the characteristic --stream sends through, or --receive is written to"),
                          Option("--framing", "plain|seq", .choices(["plain", "seq"]),
                                 "plain: chunks, then EOM (--stream's default); seq: a sequence number in each chunk, safe with "
                                 + "EATT; --receive without it keeps the bytes as they come"),
                          Option("--clone", "RECORDING", .file, "serve the device ADDRESS as RECORDING recorded it")],
                arguments: .file),
        Command(name: "watch", forms: ["ADDRESS UUID (--exec CMD | --post URL [--header 'Name: value']... [--body TEMPLATE]) [--debounce MS] [--queue FILE] [--queue-size N] [--json]"],
                help: "run a hook for every notification of the characteristic UUID of ADDRESS, "
                    + "through a queue on disk that survives restarts (docs/hooks.md)",
                options: hooks, arguments: .free),
        Command(name: "monitor", forms: ["--region NAME=UUID[:MAJOR[:MINOR]]... [--enter-rssi DBM] [--exit-rssi DBM] [--exit-after S] [--on-enter CMD] [--on-exit CMD] [--duration S] [--json]"],
                help: "print each iBeacon region entered and left, without a screen",
                options: [Option("--duration", "S", "stop after S seconds")], arguments: .free),
    ]

    /// Commands that exist and are not for users: no help, no completion.
    public static let internalCommands = ["bench-ingest"]

    /// The hooks' options: watch's, and what `a` in the app asks for.
    static let hooks: [Option] = [
        Option("--exec", "CMD", .command, "run CMD with BLE_HEX, BLE_TEXT, BLE_DECODED, BLE_ADDRESS, BLE_UUID, BLE_NAME, "
               + "BLE_TIME, BLE_SEQ set; exit 0 is delivered, others retried (5 attempts)"),
        Option("--post", "URL", "send an HTTP POST; 2xx is delivered; no answer, 408, 429 and 5xx are retried with "
               + "backoff for as long as it takes; other answers rejected"),
        Option("--header", "'N: V'", "a request header (repeatable); V may use ${NAME}"),
        Option("--body", "TEMPLATE", "the request body, with {{hex}} {{text}} {{decoded}} {{address}} {{uuid}} {{name}} "
               + "{{time}} {{seq}} (JSON-escaped in a JSON body); default: a JSON object with all of them"),
        Option("--debounce", "MS", "ignore notifications within MS of the last one that fired"),
        Option("--queue", "FILE", .file, "where events wait for delivery (default "
               + "~/.local/state/bleexplr/watch-ADDRESS-UUID.jsonl); survives restarts"),
        Option("--queue-size", "N", "at most N waiting events (default 1000); the oldest is dropped, and said so, when full"),
    ]

    public static let groups: [Group] = [
        Group(title: "Options", options: [
            Option("--demo", "use the built-in simulated world (no Bluetooth adapter needed)"),
            Option("--seed", "N", "seed of the simulated world, for a reproducible run (default 1)"),
            Option("--crowd", "N", "add N anonymous devices to the simulated world"),
            Option("--demo-control", "FIFO", .file, "in the demo, read commands from FIFO: \"press\", \"drop\", "
                   + "\"gatt-change\", \"flood RATE\" (Demo Stream's numbered flood, 5000 a second by default)"),
            Option("--demo-recording", "FILE", .file, "in the demo, play FILE (a recording) in a loop instead of the built-in world"),
            Option("--bus", "ADDRESS", "D-Bus address of bluetoothd's bus (default: the system bus), e.g. "
                   + "unix:path=/run/dbus/system_bus_socket or tcp:host=127.0.0.1,port=17777"),
            Option("--adapter", "hciN", "adapter to use (default: the first powered one)"),
            Option("--rssi-floor", "DBM", "RSSI discovery filter, or \"off\" (default -127). Without one, BlueZ reports RSSI "
                   + "only when it moves by 8 dB; with one, the kernel drops reports whose RSSI is \"not available\" "
                   + "(some controllers send only those)"),
            Option("--record", "FILE", .file, "record the session to FILE (JSON Lines; R toggles it in the app); "
                   + "an existing FILE is never overwritten"),
            Option("--json", "print JSON Lines (docs/output.md) instead of text"),
            Option("--eom", "TEXT", "what ends a message in the app's message view (m); default EOM"),
            Option("--key", "ADDRESS=KEY", "the 16-byte bind key (32 hex digits) that opens ADDRESS's encrypted BTHome "
                   + "advertisements (repeatable); kept in memory only"),
            Option("--secrets", "FILE", .file, "NAME=value lines (mode 600) for ${NAME} in hooks' URLs, headers and bodies; "
                   + "the environment is used for names not in it"),
            Option("--version", "print the version and the git commit it was built from"),
            Option("--completion", "SHELL", .choices(["bash", "zsh", "fish"]), "print the completion script for bash, zsh or fish"),
            Option("--man", "print this help as a manual page (roff), as bleexplr(1) is installed"),
            Option("--help", short: "-h", "this help"),
        ]),
        Group(title: "Pairing (the app, pair, and any command a device asks to pair)", options: [
            Option("--agent", "CAPABILITY", .choices(AgentCapability.allCases.map(\.rawValue) + ["off"]),
                   "the pairing agent registered with bluetoothd: "
                   + AgentCapability.allCases.map { $0.rawValue + ($0 == .keyboardDisplay ? " (default)" : "") }.joined(separator: ", ")
                   + ", or off (none)"),
            Option("--passkey", "N", "answer a passkey (or PIN) request without asking (commands)"),
            Option("--confirm", "yes|no", .choices(["yes", "no"]), "answer a numeric comparison or authorization without "
                   + "asking; otherwise a command asks on its terminal, and without one rejects"),
        ]),
        Group(title: "iBeacon regions (the app's regions panel b, and monitor)", options: [
            Option("--region", "NAME=UUID[:MAJOR[:MINOR]]", "an iBeacon region (repeatable). Inside when a beacon is heard "
                   + "at or above --enter-rssi; outside after --exit-after seconds without one at or above --exit-rssi"),
            Option("--enter-rssi", "DBM", "the RSSI that enters a region (default -75)"),
            Option("--exit-rssi", "DBM", "the RSSI a region must be heard at to stay inside (default -85)"),
            Option("--exit-after", "S", "seconds without a beacon at --exit-rssi before a region is left (default 10)"),
            Option("--on-enter", "CMD", .command, "run CMD on entering a region, with BLE_REGION, BLE_EVENT, BLE_ADDRESS, "
                   + "BLE_MAJOR, BLE_MINOR, BLE_RSSI, BLE_TIME set"),
            Option("--on-exit", "CMD", .command, "run CMD on leaving a region, with the same variables"),
        ]),
    ]

    /// The global options: every command takes them.
    public static var globalOptions: [Option] { groups.flatMap(\.options) }

    /// Every flag a command takes: its own and the global ones.
    public static func options(of command: Command) -> [Option] {
        command.options + (command.standalone ? globalOptions.filter { ["--json", "--help", "--version"].contains($0.flag) } : globalOptions)
    }

    /// Every flag anywhere, once each.
    public static var allFlags: [String] {
        var seen: [String] = []
        for o in globalOptions + commands.flatMap(\.options) where !seen.contains(o.flag) { seen.append(o.flag) }
        return seen
    }

    public static let summary = "a full-screen terminal explorer for Bluetooth Low Energy"

    public static let description = """
A full-screen explorer for Bluetooth Low Energy on Linux, on BlueZ: scan with live RSSI and \
decoded advertisements, connect, browse services and characteristics, read, write, subscribe, \
and record the session. Without a command it runs the app; the commands run without a screen, \
print results (JSON Lines with --json) and exit with one of the statuses below. ADDRESS is a \
Bluetooth address like AA:BB:CC:DD:EE:FF; UUID is 16-bit (180D, 0x2A37) or 128-bit; VALUE is \
hex (01ff, "01 ff") or text in quotes ('"hello"').
"""

    public static let keys = """
Arrows or j/k move, Enter connects/opens (reconnects after a link loss), Esc goes back, / filters, \
r n w read, notify, write (on a tree row too), A reads all, a attaches a hook to a characteristic, b shows iBeacon regions, e pairs, t trusts, B blocks, X forgets a device, L shows \
the event log, ? lists every key, q quits. Prompts edit as readline does; up and down in the \
write prompt bring back the values written before (kept in ~/.local/state/bleexplr/writes). In the demo, SIGUSR1 presses the iTag's button. In a \
replay: p pauses, x cycles the speed (1x, 10x, max), [ ] seek 10 s, { } a minute. The app needs a \
terminal of at least 60x16 (smaller, it refuses to start with status 3); in a locale without \
UTF-8 (LANG=C) it draws in ASCII, every column in its place; NO_COLOR=1 turns colour off. See \
docs/hooks.md for watch and monitor, with a kintone example.
"""

    public static let files = """
$XDG_CONFIG_HOME/bleexplr/config.toml (or config.json; ~/.config without XDG_CONFIG_HOME): \
aliases for devices by address, names and value formats for vendor UUIDs, favourites pinned to \
the top of the scan list, iBeacon regions, and the default adapter, RSSI floor and region \
thresholds (docs/config.md). It is read, never written; a bad one stops bleexplr with one line \
naming the file, the line and the problem. Names chosen with N in the app go to names.json in \
the same folder. BLEEXPLR_CONFIG=FILE reads FILE instead, BLEEXPLR_CONFIG= neither file.
"""

    /// `bleexplr 0.1.0 (commit 2dde32aca672)`: what --version prints and the manual page's footer names.
    public static func versionLine(commit: String) -> String {
        "bleexplr \(BleexplrVersion.current) (commit \(commit))"
    }
}
