import Testing
@preconcurrency import Glibc
@testable import Explorer

/// The configuration file: TOML and JSON read to the same settings, every mistake one line
/// naming the file, the line (TOML) and the setting. (UserNames.current, the process's
/// table, is installed by main only: these tests use values of their own.)
@Suite("Configuration")
struct UserConfigTests {
    static let toml = """
    # bleexplr's configuration
    favourites = ["e4:1c:22:5d:90:11",   # lower case is fine
                  "C8:2B:96:0E:51:3A"]

    [aliases]
    "E4:1C:22:5D:90:11" = "Bench HRM"
    'C8:2B:96:0E:51:3A' = "Kid's \\"bike\\""

    [names]
    "B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE" = { name = "Crank count", format = "u16le" }
    FFF1 = "Vendor Control"

    [defaults]
    adapter = "hci1"
    rssi_floor = -80
    """

    static let json = """
    {"favourites": ["E4:1C:22:5D:90:11", "C8:2B:96:0E:51:3A"],
     "aliases": {"E4:1C:22:5D:90:11": "Bench HRM", "C8:2B:96:0E:51:3A": "Kid's \\"bike\\""},
     "names": {"B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE": {"name": "Crank count", "format": "u16 LE"}, "0xFFF1": "Vendor Control"},
     "defaults": {"adapter": "hci1", "rssi_floor": -80}}
    """

    static func config(_ text: String, _ path: String = "/c/config.toml") throws -> UserConfig {
        try UserConfig.parse(text, path: path).get()
    }

    static func problem(_ text: String, _ path: String = "/c/config.toml") -> String {
        switch UserConfig.parse(text, path: path) {
        case .success: return "(accepted)"
        case let .failure(e): return e.description
        }
    }

    @Test func tomlAndJSONGiveTheSameSettings() throws {
        var t = try Self.config(Self.toml)
        var j = try Self.config(Self.json, "/c/config.json")
        #expect(t.path == "/c/config.toml" && j.path == "/c/config.json")
        t.path = nil; j.path = nil
        #expect(t == j)
        #expect(t.names.alias("E4:1C:22:5D:90:11") == "Bench HRM")
        #expect(t.names.alias("C8:2B:96:0E:51:3A") == "Kid's \"bike\"")
        #expect(t.names.name("FFF1") == "Vendor Control")
        #expect(t.names.name("B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE") == "Crank count")
        #expect(t.names.format("B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE") == .u16le)
        #expect(t.names.favourites == ["E4:1C:22:5D:90:11", "C8:2B:96:0E:51:3A"])
        #expect(t.adapter == "hci1" && t.rssiFloor == .some(-80))
        #expect(try Self.config("[defaults]\nrssi_floor = \"off\"").rssiFloor == .some(nil))
        #expect(try Self.config("").rssiFloor == nil)
    }

    @Test func everyMistakeIsOneLineNamingFileLineAndSetting() {
        let cases: [(String, String)] = [
            ("[aliases]\n\"AA:BB\" = \"x\"", "aliases: 'AA:BB' is not an address"),
            ("[aliases]\n\"AA:BB:CC:DD:EE:FF\" = \"\"", "aliases: AA:BB:CC:DD:EE:FF needs a name of 1 to 64 characters"),
            ("[names]\nzz = \"x\"", "names: 'zz' is not a UUID"),
            ("[names]\nFFF1 = { name = \"x\", format = \"u17\" }", "names: FFF1: format is one of hex, utf8, ascii, u8"),
            ("[names]\nFFF1 = { nam = \"x\" }", "names: FFF1: unknown key 'nam'"),
            ("colour = 1", "unknown setting 'colour'"),
            ("[defaults]\nadapter = \"bt0\"", "defaults: adapter is a name like hci0"),
            ("[defaults]\nrssi_floor = -200", "defaults: rssi_floor is -127...20"),
            ("favourites = \"AA:BB:CC:DD:EE:FF\"", "favourites is a list of addresses"),
            ("\n\n[aliases\n", "line 3: a table header is [name]"),
            ("[aliases]\n\"AA:BB:CC:DD:EE:FF\" = \"a\"\n\"AA:BB:CC:DD:EE:FF\" = \"b\"", "line 3: 'AA:BB:CC:DD:EE:FF' is set twice in [aliases]"),
            ("x = \"unclosed\n", "line 1: a string ends on its line"),
            ("x = yes", "line 1: 'yes' is not a value"),
            ("x = \"a\" trailing", "line 1: unexpected text after the value"),
            ("[aliases]\n[aliases]", "line 2: table [aliases] is defined twice"),
        ]
        for (text, expected) in cases {
            let p = Self.problem(text)
            #expect(p.hasPrefix("/c/config.toml: "), "\(p)")
            #expect(p.contains(expected), "\(text): \(p)")
            #expect(p.hasSuffix("(the file is left as it is: fix it, or run with BLEEXPLR_CONFIG= to start without it)"))
            #expect(!p.contains("\n"))
        }
        #expect(Self.problem("{", "/c/config.json").hasPrefix("/c/config.json: not JSON: "))
    }

    @Test func hostileTextNeverReachesTheScreenRaw() throws {
        let c = try Self.config("[aliases]\n\"AA:BB:CC:DD:EE:FF\" = \"evil\\u001B[2J\"")
        let a = try #require(c.names.alias("AA:BB:CC:DD:EE:FF"))
        #expect(!a.unicodeScalars.contains { $0.value < 0x20 })
        let p = Self.problem("[\"\\u001B[2J\"]\nx = 1\nfrob = 1")
        #expect(!p.unicodeScalars.contains { $0.value == 0x1B }, "\(p)")
    }

    @Test func theFileIsFoundWhereXDGSaysTomlFirst() throws {
        let dir = "/tmp/bx-config-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(dir, 0o700); mkdir(dir + "/bleexplr", 0o700)
        defer { unlink(dir + "/bleexplr/config.toml"); unlink(dir + "/bleexplr/config.json"); rmdir(dir + "/bleexplr"); rmdir(dir) }
        func env(_ vars: [String: String]) -> (String) -> String? { { vars[$0] } }
        #expect(UserConfig.location(env(["XDG_CONFIG_HOME": dir])) == nil)
        close(open(dir + "/bleexplr/config.json", O_CREAT | O_WRONLY, 0o600))
        #expect(UserConfig.location(env(["XDG_CONFIG_HOME": dir])) == dir + "/bleexplr/config.json")
        close(open(dir + "/bleexplr/config.toml", O_CREAT | O_WRONLY, 0o600))
        #expect(UserConfig.location(env(["XDG_CONFIG_HOME": dir])) == dir + "/bleexplr/config.toml")
        #expect(UserConfig.location(env(["HOME": "/nonexistent-home"])) == nil)
        #expect(UserConfig.location(env(["BLEEXPLR_CONFIG": "/x/y.json", "XDG_CONFIG_HOME": dir])) == "/x/y.json")
        #expect(UserConfig.location(env(["BLEEXPLR_CONFIG": "", "XDG_CONFIG_HOME": dir])) == nil)
        // A file named and missing is a problem, not an empty configuration.
        guard case let .failure(e) = UserConfig.load("/nonexistent/bx.toml") else { Issue.record("a missing file was accepted"); return }
        #expect(e.description.hasPrefix("/nonexistent/bx.toml: cannot be read: No such file or directory"))
        // An empty file is an empty configuration.
        #expect(try UserConfig.load(dir + "/bleexplr/config.toml").get().names == UserNames())
    }

    @Test func aFavouriteSortsBeforeEveryOtherInAnyOrder() {
        let a = PeripheralID("/org/bluez/hci0/dev_AA"), b = PeripheralID("/org/bluez/hci0/dev_BB")
        let strong = ScanOrder.Entry(key: -90, name: nil, id: a)
        var weakPinned = ScanOrder.Entry(key: -30, name: nil, id: b)
        #expect(strong < weakPinned)
        weakPinned.pinned = true
        #expect(weakPinned < strong && !(strong < weakPinned))
    }
}
