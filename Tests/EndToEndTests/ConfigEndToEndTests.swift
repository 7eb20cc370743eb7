import Testing
import Foundation
import TestSupport

/// The configuration file through the real binary: aliases, vendor names and formats and
/// favourites in what the commands print; a bad file stops it with one line, untouched.
@Suite("Configuration, end to end")
struct ConfigEndToEndTests {
    static func run(_ config: String, _ args: String, name: String = "config.toml") throws -> (Int32, String) {
        let dir = tempPath("config")
        try FileManager.default.createDirectory(atPath: dir + "/bleexplr", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try config.write(toFile: dir + "/bleexplr/" + name, atomically: true, encoding: .utf8)
        return try spawn("/bin/sh", ["-c", "XDG_CONFIG_HOME='\(dir)' '\(Tmux.binary)' \(args) 2>&1"])
    }

    static let config = """
    favourites = ["C8:2B:96:0E:51:3A"]
    [aliases]
    "E4:1C:22:5D:90:11" = "Bench HRM"
    [names]
    "B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE" = { name = "Crank count", format = "u16le" }
    """

    @Test func commandsShowAliasesNamesFormatsAndFavouritesFirst() throws {
        var (code, out) = try Self.run(Self.config, "--demo scan --duration 2")
        #expect(code == 0, "\(out)")
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("C8:2B:96:0E:51:3A") == true, "the favourite is first whatever its RSSI: \(out)")
        #expect(lines.contains { $0.hasPrefix("E4:1C:22:5D:90:11") && $0.contains("Bench HRM (Demo HRM)") }, "\(out)")
        (code, out) = try Self.run(Self.config, "--demo services C8:2B:96:0E:51:3A")
        #expect(code == 0 && out.contains("B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE  Crank count"), "\(out)")
        (code, out) = try Self.run(Self.config, "--demo read C8:2B:96:0E:51:3A B1E5E1A0-0002-4C7A-9E3B-2D8F00C0FFEE")
        #expect(code == 0 && out.contains("2345"), "u16le of 29 09: \(out)")
    }

    /// The app shows the same names: the alias in the list and on the device screen, the
    /// favourite on top.
    @Test func theAppShowsTheAliasAndPinsTheFavourite() throws {
        let dir = tempPath("config-app")
        try FileManager.default.createDirectory(atPath: dir + "/bleexplr", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.config.write(toFile: dir + "/bleexplr/config.toml", atomically: true, encoding: .utf8)
        let t = try Tmux("config", command: "export XDG_CONFIG_HOME='\(dir)'; " + wrapped("--demo"))
        let screen = try t.waitFor("the list with the alias and the bike") { $0.contains("Bench HRM") && $0.contains("Demo Bike") }
        let lines = screen.split(separator: "\n").map(String.init)
        let bike = lines.firstIndex { $0.contains("Demo Bike") }!, hrm = lines.firstIndex { $0.contains("Bench HRM") }!
        #expect(bike < hrm, "the favourite is above the strongest device:\n\(screen)")
        #expect(!screen.contains("Demo HRM"))
        _ = try t.filterScanList("Bench", "only Bench HRM listed") { $0.contains("Bench HRM") && !$0.contains("Demo Bike") }
        try t.keys("Enter")
        try t.waitFor(text: "Scan › Bench HRM")
        try t.keys("q")
        try t.waitFor(text: "EXIT=0")
    }

    @Test func aBadFileIsOneLineAndStaysAsItWas() throws {
        let bad = "[aliases]\n\"E4:1C:22:5D:90:11\" = \"ok\"\nfrob = = 1\n"
        let dir = tempPath("config-bad")
        try FileManager.default.createDirectory(atPath: dir + "/bleexplr", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/bleexplr/config.toml"
        try bad.write(toFile: path, atomically: true, encoding: .utf8)
        let (code, out) = try spawn("/bin/sh", ["-c", "XDG_CONFIG_HOME='\(dir)' '\(Tmux.binary)' --demo scan --duration 1 2>&1"])
        #expect(code == 2)
        #expect(out == "bleexplr: \(path): line 3: 'frob' is not a value (a \"string\", a number, true, false, [list] or {table}) (the file is left as it is: fix it, or run with BLEEXPLR_CONFIG= to start without it)\n"
                || out.hasPrefix("bleexplr: \(path): line 3: "), "\(out)")
        #expect(out.split(separator: "\n").count == 1)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == bad)
        // --help and --version still answer, and BLEEXPLR_CONFIG= runs without the file.
        #expect(try spawn("/bin/sh", ["-c", "XDG_CONFIG_HOME='\(dir)' '\(Tmux.binary)' --version"]).0 == 0)
        let (plain, _) = try spawn("/bin/sh", ["-c", "XDG_CONFIG_HOME='\(dir)' BLEEXPLR_CONFIG= '\(Tmux.binary)' --demo scan --duration 1 >/dev/null 2>&1"])
        #expect(plain == 0)
    }

    /// `N` in the app: an alias for the iTag and a name for the HRM's service, saved in
    /// names.json beside the configuration (config.toml stays as it was), shown at once,
    /// and by every command after (`scan --json`'s alias, `services`).
    @Test func namesChosenInTheAppAreSavedAndShownEverywhere() throws {
        let dir = tempPath("config-names")
        try FileManager.default.createDirectory(atPath: dir + "/bleexplr", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.config.write(toFile: dir + "/bleexplr/config.toml", atomically: true, encoding: .utf8)
        let t = try Tmux("config-names", command: "export XDG_CONFIG_HOME='\(dir)'; " + wrapped("--demo"))
        _ = try t.filterScanList("iTag", "only the iTag listed") { $0.contains("Demo iTag") && !$0.contains("Bench HRM") }
        try t.keys("N")
        try t.waitFor(text: "alias (empty: none):")
        try t.literal("Keys")
        try t.keys("Enter")
        try t.waitFor("the alias saved") { $0.contains("▶ Keys") && $0.contains("saved in /tmp/") }
        try t.keys("Escape")   // the filter off: the alias is in the list
        try t.waitFor("the alias in the list") { $0.contains("Keys") && $0.contains("Bench HRM") && !$0.contains("Demo iTag") }
        // The device screen's service row: N names its UUID.
        _ = try t.filterScanList("Bench", "only Bench HRM listed") { $0.contains("Bench HRM") && !$0.contains("Keys") }
        try t.keys("Enter")
        try t.waitFor(text: "Heart Rate Measurement")
        try t.keys("N")
        try t.waitFor(text: "name for 180D (empty: none):")
        try t.literal("Bench heart")
        try t.keys("Enter")
        try t.waitFor("the service's new name in the tree") { $0.contains("Bench heart") && $0.contains("saved in") }
        try t.keys("q")
        try t.waitFor(text: "EXIT=0")
        #expect(try String(contentsOfFile: dir + "/bleexplr/config.toml", encoding: .utf8) == Self.config)
        let names = try String(contentsOfFile: dir + "/bleexplr/names.json", encoding: .utf8)
        #expect(names.contains("\"FC:58:FA:1A:2B:3C\": \"Keys\"") && names.contains("\"Bench heart\""), "\(names)")

        let env = "XDG_CONFIG_HOME='\(dir)' '\(Tmux.binary)'"
        var (code, out) = try spawn("/bin/sh", ["-c", "\(env) --demo scan --duration 2 --json"])
        #expect(code == 0)
        let lines = out.split(separator: "\n")
        #expect(lines.contains { $0.contains("\"address\":\"FC:58:FA:1A:2B:3C\",\"name\":\"Demo iTag\",\"alias\":\"Keys\"") }, "\(out)")
        #expect(lines.contains { $0.contains("\"name\":\"Demo HRM\",\"alias\":\"Bench HRM\"") }, "the configuration's alias too: \(out)")
        (code, out) = try spawn("/bin/sh", ["-c", "\(env) --demo services E4:1C:22:5D:90:11"])
        #expect(code == 0 && out.contains("Bench heart"), "\(out)")
        // BLEEXPLR_CONFIG= starts without either file.
        (code, out) = try spawn("/bin/sh", ["-c", "BLEEXPLR_CONFIG= \(env) --demo scan --duration 1"])
        #expect(code == 0 && !out.contains("Keys") && !out.contains("Bench HRM"), "\(out)")
    }

    /// Regions from the configuration: `monitor` without `--region` watches them; one on the
    /// command line replaces them.
    @Test func regionsComeFromTheConfigurationUnlessTheCommandLineNamesSome() throws {
        let config = """
        [regions]
        Stoop = "B9407F30-F5F8-466E-AFF9-25556B57FE6D:7"
        [defaults]
        enter_rssi = -90
        exit_rssi = -100
        """
        var (code, out) = try Self.run(config, "--demo monitor --duration 9 --json")
        #expect(code == 0 && out.contains("\"event\":\"enter\"") && out.contains("\"region\":\"Stoop\""), "\(out)")
        (code, out) = try Self.run(config, "--demo monitor --region Gate=B9407F30-F5F8-466E-AFF9-25556B57FE6D --duration 9 --json")
        #expect(code == 0 && out.contains("\"region\":\"Gate\"") && !out.contains("Stoop"), "\(out)")
    }
}
