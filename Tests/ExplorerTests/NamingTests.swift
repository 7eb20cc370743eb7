import Testing
import Foundation
@preconcurrency import Glibc
@testable import Explorer

/// `N`: names chosen in the app, the file they are kept in (never the user's config.toml),
/// and regions in the configuration. (The process's UserNames are never installed here:
/// tests run side by side, and the other suites read the same table.)
@Suite("Names chosen in the app, and regions in the configuration")
struct NamingTests {
    static func folder(_ name: String) -> String {
        let dir = NSTemporaryDirectory() + "bleexplr-names-\(name)-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        return dir
    }

    @Test func theLineOpensForTheDeviceOrTheUUIDUnderTheCursor() {
        var s = Fixture.scanning()
        s.scan.cursor = Fixture.itag
        #expect(Keymap.action(for: .char("N"), in: s) == .nameStarted)
        #expect(Reducer.reduce(&s, .nameStarted) == [])
        #expect(s.input?.purpose == .alias(Fixture.itag) && s.input?.text == "")
        for c in "Keys" { _ = Reducer.reduce(&s, .inputEdited(.insert(String(c)))) }
        #expect(Reducer.reduce(&s, .inputSubmitted) == [.saveName(.alias(address: "FC:58:FA:1A:2B:3C", "Keys"))])
        #expect(s.input == nil)

        // The device screen: the service row names 180D, a characteristic row its UUID.
        var d = Fixture.connectedHRM()
        _ = Reducer.reduce(&d, .nameStarted)
        #expect(d.input?.purpose == .uuidName("180D"))
        _ = Reducer.reduce(&d, .inputCancelled)
        _ = Reducer.reduce(&d, .cursorMoved(.down))
        _ = Reducer.reduce(&d, .nameStarted)
        #expect(d.input?.purpose == .uuidName("2A37"))
        // An empty line takes the name back.
        #expect(Reducer.reduce(&d, .inputSubmitted) == [.saveName(.uuid("2A37", nil))])
    }

    @Test func aNameThatCannotBeShownKeepsTheLineOpen() {
        var s = Fixture.scanning()
        _ = Reducer.reduce(&s, .nameStarted)
        _ = Reducer.reduce(&s, .inputEdited(.insert(String(repeating: "x", count: 65))))
        #expect(Reducer.reduce(&s, .inputSubmitted) == [])
        #expect(s.input != nil && s.alert?.message == "A name is 1 to 64 printable characters")
        // The line itself drops control characters: an escape never gets into a name.
        _ = Reducer.reduce(&s, .inputEdited(.clear))
        _ = Reducer.reduce(&s, .inputEdited(.insert("a\u{1B}b")))
        #expect(Reducer.reduce(&s, .inputSubmitted) == [.saveName(.alias(address: "E4:1C:22:5D:90:11", "ab"))])
    }

    @Test func whatTheRunnerSaidIsShown() {
        var s = Fixture.scanning()
        _ = Reducer.reduce(&s, .nameSaved(.alias(address: "FC:58:FA:1A:2B:3C", "Keys"), .success("/h/.config/bleexplr/names.json")))
        #expect(s.alert?.message == "Alias “Keys” for FC:58:FA:1A:2B:3C: saved in /h/.config/bleexplr/names.json")
        _ = Reducer.reduce(&s, .nameSaved(.uuid("FFF1", nil), .failure(UserConfig.Problem(path: "/x", reason: "cannot be written: Read-only file system"))))
        #expect(s.alert?.level == .error && s.alert?.message == "The name of FFF1 taken back: not saved: cannot be written: Read-only file system")
        #expect(s.log.entries.contains { $0.text.contains("not saved") })
    }

    @Test func theFileKeepsEveryNameAndIsReplacedWhole() throws {
        let dir = Self.folder("file"), path = dir + "/bleexplr/names.json"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try NamesFile.load(path).get() == UserNames(), "no file: no names")
        var n = try NamesFile.save(.alias(address: "E4:1C:22:5D:90:11", "Bench HRM"), path: path).get()
        n = try NamesFile.save(.uuid("FFF1", "Vendor \"Control\""), path: path).get()
        #expect(n.alias("E4:1C:22:5D:90:11") == "Bench HRM" && n.name("FFF1") == "Vendor \"Control\"")
        #expect(try NamesFile.load(path).get() == n)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == """
            {
              "aliases": {
                "E4:1C:22:5D:90:11": "Bench HRM"
              },
              "names": {
                "0000fff1-0000-1000-8000-00805f9b34fb": "Vendor \\"Control\\""
              }
            }

            """)
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        n = try NamesFile.save(.alias(address: "E4:1C:22:5D:90:11", nil), path: path).get()
        #expect(n.aliases.isEmpty && n.name("FFF1") != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/bleexplr") == ["names.json"], "no temporary file left")
    }

    @Test func aFileThatIsNotTheAppsIsNeverReplaced() throws {
        let dir = Self.folder("foreign"), path = dir + "/names.json"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let foreign = "{\"aliases\": {}, \"defaults\": {\"adapter\": \"hci1\"}}"
        try foreign.write(toFile: path, atomically: false, encoding: .utf8)
        guard case let .failure(p) = NamesFile.save(.uuid("FFF1", "x"), path: path) else { Issue.record("saved over it"); return }
        #expect(p.reason == "holds only aliases and names (the app writes it; other settings go in config.toml)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == foreign)
        try "not json".write(toFile: path, atomically: false, encoding: .utf8)
        #expect((try? NamesFile.save(.uuid("FFF1", "x"), path: path).get()) == nil)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not json")
        // A symbolic link in its place is not read through.
        try FileManager.default.removeItem(atPath: path)
        try "{}".write(toFile: dir + "/elsewhere", atomically: false, encoding: .utf8)
        symlink(dir + "/elsewhere", path)
        #expect((try? NamesFile.load(path).get()) == nil)
        #expect(try String(contentsOfFile: dir + "/elsewhere", encoding: .utf8) == "{}")
    }

    @Test func chosenNamesComeBeforeTheConfigurationsAndKeepItsFormat() throws {
        var config = UserNames()
        config.aliases["E4:1C:22:5D:90:11"] = "Config HRM"
        config.uuids["FFF1"] = UserNames.UUIDName(name: "Config name", format: .u16le)
        config.favourites = ["E4:1C:22:5D:90:11"]
        let chosen = NameChange.uuid("FFF1", "Chosen").applied(to: NameChange.alias(address: "E4:1C:22:5D:90:11", "Bench").applied(to: UserNames()))
        let shown = config.overridden(by: chosen)
        #expect(shown.alias("E4:1C:22:5D:90:11") == "Bench" && shown.name("FFF1") == "Chosen" && shown.format("FFF1") == .u16le)
        #expect(shown.isFavourite("E4:1C:22:5D:90:11"))
        #expect(config.overridden(by: UserNames()) == config)
    }

    @Test func theFileLivesBesideTheConfiguration() {
        func env(_ d: [String: String]) -> (String) -> String? { { d[$0] } }
        #expect(NamesFile.location(env(["XDG_CONFIG_HOME": "/x", "HOME": "/h"])) == "/x/bleexplr/names.json")
        #expect(NamesFile.location(env(["HOME": "/h"])) == "/h/.config/bleexplr/names.json")
        #expect(NamesFile.location(env(["HOME": "/h", "BLEEXPLR_CONFIG": ""])) == nil)
        #expect(NamesFile.location(env(["HOME": "/h", "BLEEXPLR_CONFIG": "/etc/b.toml"])) == "/h/.config/bleexplr/names.json")
        #expect(NamesFile.location(env([:])) == nil)
    }

    @Test func regionsAndTheirThresholdsFromTheConfiguration() throws {
        let toml = """
        [regions]
        home = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        desk = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:7"
        [defaults]
        enter_rssi = -70
        exit_rssi = -90
        exit_after = 3
        """
        let c = try UserConfig.parse(toml, path: "/c/config.toml").get()
        #expect(c.regions.map(\.name) == ["desk", "home"])
        #expect(c.regions[0].major == 1 && c.regions[0].minor == 7 && c.regions[1].major == nil)
        #expect(c.regionConfig == RegionConfig(enterRSSI: -70, exitRSSI: -90, exitAfter: 3))
        let json = try UserConfig.parse("{\"regions\": {\"home\": \"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\"}}", path: "/c/config.json").get()
        #expect(json.regions == [Region(name: "home", uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")])
        func problem(_ t: String) -> String? {
            if case let .failure(p) = UserConfig.parse(t, path: "/c/config.toml") { return p.reason }
            return nil
        }
        #expect(problem("[regions]\nhome = \"FFF1\"") == "regions: 'home' needs a name of 1 to 64 characters and \"UUID[:MAJOR[:MINOR]]\" (a 128-bit proximity UUID)")
        #expect(problem("[regions]\nhome = 5") != nil)
        #expect(problem("[defaults]\nenter_rssi = -90\nexit_rssi = -80") == "defaults: exit_rssi (-80) must be at or below enter_rssi (-90): the gap is what stops flapping")
        #expect(problem("[defaults]\nexit_after = 0") == "defaults: exit_after is seconds, more than 0 and at most 3600")
        #expect(problem("[defaults]\nenter_rssi = 40") == "defaults: enter_rssi is -127...20")
    }
}
