import Testing
@testable import Explorer

/// The help, the manual page and the three completion scripts are rendered from one
/// table: each must name every command and every flag of it, in its own syntax.
@Suite("Command line: help, man page, completions")
struct CommandLineSpecTests {
    typealias Spec = CommandLineSpec

    /// The words of a text, split at anything a flag cannot contain.
    static func words(_ text: String) -> Set<String> {
        Set(text.split { !($0.isLetter || $0.isNumber || $0 == "-") }.map(String.init))
    }

    @Test func theHelpNamesEveryCommandAndFlag() {
        let help = Usage.text
        let w = Self.words(help)
        for c in Spec.commands { #expect(help.contains("bleexplr [OPTIONS] \(c.name) ") || help.contains("bleexplr \(c.name) "), "\(c.name)") }
        for f in Spec.allFlags { #expect(w.contains(f), "\(f) is not in --help") }
        #expect(w.contains("-h"))
        for c in ExitCode.allCases { #expect(help.contains("  \(c.rawValue)    \(c.meaning)")) }
    }

    @Test func theHelpFitsItsWidth() {
        for line in Usage.text.split(separator: "\n") {
            // A word longer than the line (none today) would be the only exception.
            #expect(line.count <= Usage.width, "\(line.count): \(line)")
        }
    }

    @Test func theManPageNamesEveryCommandAndFlagInRoff() {
        let roff = ManPage.roff(version: "bleexplr 9.9.9 (commit 0123456789ab)")
        #expect(roff.hasPrefix(".\\\""))
        #expect(roff.contains(".TH BLEEXPLR 1 \"\" \"bleexplr 9.9.9 (commit 0123456789ab)\" \"User Commands\""))
        for c in Spec.commands { #expect(roff.contains(".TP\n\\fB\(c.name)\\fR\n"), "\(c.name)") }
        for o in Spec.globalOptions + Spec.commands.flatMap(\.options) {
            #expect(roff.contains("\\fB" + ManPage.escape(o.flag) + "\\fR"), "\(o.flag) is not in the man page")
        }
        for c in ExitCode.allCases { #expect(roff.contains(".TP\n\\fB\(c.rawValue)\\fR\n")) }
        // Every text line is text: none starts like a request, none holds a bare hyphen or
        // anything past ASCII.
        for line in roff.split(separator: "\n") where !line.hasPrefix(".") {
            #expect(!line.hasPrefix("'"), "\(line)")
            #expect(line.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, "\(line)")
            #expect(!line.replacing("\\-", with: "").contains("-"), "\(line)")
        }
    }

    @Test func roffEscapes() {
        #expect(ManPage.escape("--a\\b") == "\\-\\-a\\eb")
        #expect(ManPage.escape("x · y") == "x \\[u00B7] y")
        #expect(ManPage.line(".start") == "\\&.start")
        #expect(ManPage.line("'quoted") == "\\&'quoted")
        #expect(ManPage.escape("a\u{1B}[2Jb") == "a[2Jb")
    }

    @Test func bashOffersEachCommandItsFlags() {
        let bash = Completions.script(.bash)
        let lines = bash.split(separator: "\n").map(String.init)
        for c in Spec.commands {
            guard let line = lines.first(where: { $0.hasPrefix("        \(c.name)) opts=\"") }) else {
                Issue.record("bash has no options for \(c.name)"); continue
            }
            let offered = Set(line.split(separator: "\"")[1].split(separator: " ").map(String.init))
            for o in Spec.options(of: c) { #expect(offered.contains(o.flag), "bash: \(c.name) \(o.flag)") }
        }
        let w = Self.words(bash)
        for c in Spec.commands { #expect(w.contains(c.name)) }
        // Flags that take a value are skipped when looking for the command.
        for o in Spec.globalOptions where o.value != nil { #expect(bash.contains(o.flag + "|") || bash.contains("|" + o.flag + ")")) }
    }

    @Test func zshDescribesEveryCommandAndFlag() {
        let zsh = Completions.script(.zsh)
        #expect(zsh.hasPrefix("#compdef bleexplr\n"))
        for c in Spec.commands {
            #expect(zsh.contains("    '\(c.name):"), "zsh: command \(c.name)")
            guard let line = zsh.split(separator: "\n").first(where: { $0.hasPrefix("        (\(c.name)) _arguments") }) else {
                Issue.record("zsh has no arguments for \(c.name)"); continue
            }
            for o in c.options { #expect(line.contains("'\(o.flag)[") || line.contains("'*\(o.flag)["), "zsh: \(c.name) \(o.flag)") }
        }
        for o in Spec.globalOptions { #expect(zsh.contains("'\(o.flag)[") || zsh.contains("'*\(o.flag)["), "zsh: \(o.flag)") }
        #expect(zsh.contains("'*--region["), "a repeatable flag may be given again")
    }

    @Test func fishCompletesEveryCommandAndFlag() {
        let fish = Completions.script(.fish)
        for c in Spec.commands {
            #expect(fish.contains(" -a \(c.name) -d "), "fish: command \(c.name)")
            for o in c.options {
                #expect(fish.contains("-n '__fish_seen_subcommand_from \(c.name)' -l \(o.flag.dropFirst(2)) "), "fish: \(c.name) \(o.flag)")
            }
        }
        for o in Spec.globalOptions { #expect(fish.contains(" -l \(o.flag.dropFirst(2)) "), "fish: \(o.flag)") }
        #expect(fish.contains("-s h -l help "))
    }

    @Test func descriptionsCannotBreakTheirQuotes() {
        #expect(Completions.fishText("it's a \\ b") == "'it\\'s a \\\\ b'")
        #expect(Completions.zshText("a [b]: 'c' \\ `d`") == "a b c  d")
        #expect(Completions.zshMessage("'N: V'") == "N V")
        #expect(Completions.zshMessage("NAME=UUID[:MAJOR[:MINOR]]") == "NAME=UUID MAJOR MINOR")
    }

    @Test func briefIsTheHelpUpToItsFirstPause() {
        let o = Spec.globalOptions.first { $0.flag == "--bus" }!
        #expect(o.brief == "D-Bus address of bluetoothd's bus")
        #expect(Spec.globalOptions.allSatisfy { !$0.brief.isEmpty && $0.brief.count <= 72 })
    }

    @Test func theVersionLineNamesTheCommit() {
        #expect(Spec.versionLine(commit: "0123456789ab") == "bleexplr \(BleexplrVersion.current) (commit 0123456789ab)")
    }
}
