// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "bleexplr",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bleexplr", targets: ["bleexplr"]),
    ],
    targets: [
        // ncursesw, wrapped so that only Sources/TUI/Terminal touches it.
        .systemLibrary(name: "CNcursesw", pkgConfig: "ncursesw",
                       providers: [.apt(["libncurses-dev"])]),
        // Domain, state, reducer, backends, recorder: no terminal, no D-Bus.
        .target(name: "Explorer"),
        // Screens (pure functions of state into a cell grid) and the terminal layer.
        .target(name: "TUI", dependencies: ["Explorer", "CNcursesw"]),
        // libdbus-1, wrapped so that only Sources/DBus touches it.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1",
                       providers: [.apt(["libdbus-1-dev"])]),
        // D-Bus: typed values, the client protocol the BlueZ backend uses, and its
        // libdbus implementation on the app's event loop.
        .target(name: "DBus", dependencies: ["Explorer", "CDBus"]),
        // The BlueZ backend: bluetoothd's object tree over D-Bus, into BackendEvents.
        .target(name: "BlueZ", dependencies: ["Explorer", "DBus", "CMalloc", "CSocket"]),
        // libcurl, wrapped so that only Sources/WebHook touches it; loaded on first use
        // (dlopen), not linked: its headers come from libcurl4-openssl-dev (install-deps).
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Actions over HTTP (libcurl), for watch and the app's `a`.
        .target(name: "WebHook", dependencies: ["Explorer", "CCurl"]),
        // glibc's malloc.h (mallopt), which Swift's Glibc module leaves out.
        .systemLibrary(name: "CMalloc"),
        // recvmmsg(2), which it leaves out too (AcquireNotify's socket, several values a call).
        .systemLibrary(name: "CSocket"),
        // Writes the git commit of the sources into the bleexplr target before every build (--version).
        .plugin(name: "BuildStamp", capability: .buildTool(), path: "Plugins/BuildStamp"),
        .executableTarget(name: "bleexplr", dependencies: ["Explorer", "TUI", "DBus", "BlueZ", "WebHook", "CMalloc"],
                          plugins: ["BuildStamp"]),
        .executableTarget(name: "bleexplr-bench", dependencies: ["Explorer", "TUI"],
                          path: "Sources/Bench"),
        // libFuzzer targets for every parser of untrusted input, FUZZ_TARGET picks one (scripts/fuzz
        // builds it with -sanitize=fuzzer -DFUZZING); in the normal build, a corpus replayer.
        .executableTarget(name: "FuzzDecoders", dependencies: ["Explorer", "TUI", "DBus", "BlueZ"]),
        .testTarget(name: "ExplorerTests", dependencies: ["Explorer"]),
        .testTarget(name: "TUITests", dependencies: ["Explorer", "TUI"]),
        // Helpers the test targets share: a private dbus-daemon, the binary in tmux.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "BlueZTests", dependencies: ["Explorer", "DBus", "BlueZ", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["Explorer", "DBus", "TestSupport"]),
        .testTarget(name: "WebHookTests", dependencies: ["Explorer", "WebHook"]),
        .testTarget(name: "DBusTests", dependencies: ["Explorer", "DBus", "TestSupport"]),
        // The bench's report (its reading of the README's table), tested in the executable itself.
        .testTarget(name: "BenchTests", dependencies: ["bleexplr-bench"]),
    ],
    swiftLanguageModes: [.v6]
)
