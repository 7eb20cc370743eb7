import Testing
import Foundation
import TestSupport
import Explorer

/// What `make install` and the .deb ship, from the real binary: --version with its commit,
/// the manual page and the completions it prints, read by man and the shells themselves,
/// and the install script into a temporary DESTDIR. The parser is held to the table
/// (CommandLineSpec) the help, the page and the completions come from.
@Suite("Install: version, man page, completions")
struct InstallEndToEndTests {
    static let root = Tmux.packageRoot.path
    static let bin = Tmux.binary

    static func sh(_ script: String) throws -> (Int32, String) { try spawn("/bin/sh", ["-c", script]) }

    static func q(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// The binary's output for `args`, written to a temporary file.
    static func printed(_ args: String, _ name: String) throws -> String {
        let path = tempPath(name)
        let (code, out) = try sh("\(q(bin)) \(args) > \(q(path))")
        #expect(code == 0, "\(args): \(out)")
        return path
    }

    static func need(_ tool: String) throws -> String {
        let path = "/usr/bin/\(tool)"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw E2EError("\(tool) is not installed (scripts/install-deps installs it)")
        }
        return path
    }

    @Test func versionNamesACommitOfThisRepository() throws {
        let (code, out) = try Self.sh("\(Self.q(Self.bin)) --version")
        #expect(code == 0)
        let line = out.trimmingCharacters(in: .newlines)
        let m = line.wholeMatch(of: /bleexplr (\d+\.\d+\.\d+) \(commit ([0-9a-f]{12})(-dirty)?\)/)
        #expect(m != nil, "\(line)")
        guard let m else { return }
        #expect(String(m.1) == BleexplrVersion.current)
        // The stamp is the sources' commit, not a made-up one: git knows it.
        let (known, why) = try Self.sh("git -C \(Self.q(Self.root)) cat-file -e \(m.2)^{commit} 2>&1")
        #expect(known == 0, "\(m.2) is not a commit of \(Self.root): \(why)")
    }

    /// Every flag the parser takes is in the table: its `case "--flag"` lines, read from the
    /// sources of the shell and of the option parsers it calls.
    @Test func everyFlagTheParserTakesIsInTheTable() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: "\(Self.root)/Sources/bleexplr")
            .map { "\(Self.root)/Sources/bleexplr/\($0)" } + ["\(Self.root)/Sources/Explorer/Pairing/Pairing.swift"]
        var parsed: Set<String> = []
        for f in files {
            for line in try String(contentsOfFile: f, encoding: .utf8).split(separator: "\n") where line.contains("case \"-") {
                for m in line.matches(of: /"(-[-a-z]+)"/) { parsed.insert(String(m.1)) }
            }
        }
        #expect(parsed.count > 30, "\(parsed.count) flags found: the scan is broken")
        let table = Set(CommandLineSpec.allFlags + ["-h"])
        for f in parsed.sorted() { #expect(table.contains(f), "the parser takes \(f), and --help, the man page and the completions do not know it") }
    }

    /// Every flag in the table is one the parser takes (where the table puts it).
    @Test func everyFlagInTheTableIsTakenByTheParser() throws {
        var cases: [String] = []
        for o in CommandLineSpec.globalOptions { cases.append(o.flag + (o.value == nil ? "" : " 1")) }
        for c in CommandLineSpec.commands {
            for o in c.options { cases.append(c.name + " " + o.flag + (o.value == nil ? "" : " 1")) }
        }
        for args in cases {
            let (_, out) = try Self.sh("\(Self.q(Self.bin)) \(args) --help 2>&1 | head -3")
            #expect(!out.contains("unknown option") && !out.contains("unknown command"), "\(args): \(out)")
        }
    }

    @Test func theManPageRendersWithoutWarnings() throws {
        let man = try Self.need("man")
        let page = try Self.printed("--man", "man")
        defer { unlink(page) }
        let errors = tempPath("man-err")
        defer { unlink(errors) }
        let (code, text) = try Self.sh("MANWIDTH=80 LANG=C.UTF-8 \(man) --warnings -E UTF-8 -l \(Self.q(page)) 2>\(Self.q(errors)) | col -bx")
        #expect(code == 0)
        let warnings = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(warnings.isEmpty, "man: \(warnings)")
        #expect(text.contains("bleexplr - a full-screen terminal explorer for Bluetooth Low Energy"), "\(text.prefix(400))")
        for c in CommandLineSpec.commands {
            #expect(text.contains("\n       \(c.name)\n") || text.contains("\n       \(c.name) "), "\(c.name)")
        }
        let version = try Self.sh("\(Self.q(Self.bin)) --version").1.trimmingCharacters(in: .newlines)
        #expect(text.contains(version), "the page's footer names the build")
        // Rendered, a flag is still a flag to copy (\- is an ASCII hyphen-minus).
        for f in CommandLineSpec.allFlags { #expect(text.contains(f), "\(f) is not on the rendered page") }
    }

    /// bash's own completion machinery, on the installed script: each command's flags, the
    /// commands, choices for a flag's value.
    @Test func bashCompletesCommandsFlagsAndValues() throws {
        let bash = try Self.need("bash")
        let script = try Self.printed("--completion bash", "bash")
        defer { unlink(script) }
        let (syntax, why) = try Self.sh("\(bash) -n \(Self.q(script)) 2>&1")
        #expect(syntax == 0, "\(why)")
        func complete(_ words: [String]) throws -> Set<String> {
            let array = (["bleexplr"] + words).map(Self.q).joined(separator: " ")
            let (code, out) = try Self.sh("\(bash) -c \(Self.q(". \(Self.q(script)); COMP_WORDS=(\(array)); COMP_CWORD=\(words.count); _bleexplr; printf '%s\\n' \"${COMPREPLY[@]}\""))")
            #expect(code == 0, "\(words): \(out)")
            return Set(out.split(separator: "\n").map(String.init))
        }
        #expect(try complete(["se"]) == ["services", "serve"])
        #expect(try complete(["--demo", "--seed", "3", "sc"]) == ["scan"])
        #expect(try complete(["--agent", "no"]) == ["no-input-no-output"])
        #expect(try complete(["replay", "--speed", ""]) == ["1", "10", "max"])
        for c in CommandLineSpec.commands {
            let offered = try complete([c.name, "-"])
            for o in CommandLineSpec.options(of: c) { #expect(offered.contains(o.flag), "bash: \(c.name) \(o.flag)") }
            for other in CommandLineSpec.commands where other.name != c.name {
                for o in other.options where !CommandLineSpec.options(of: c).contains(where: { $0.flag == o.flag }) {
                    #expect(!offered.contains(o.flag), "bash offers \(other.name)'s \(o.flag) to \(c.name)")
                }
            }
        }
    }

    /// fish's own `complete -C` on the installed script.
    @Test func fishCompletesCommandsAndFlags() throws {
        let fish = try Self.need("fish")
        let script = try Self.printed("--completion fish", "fish")
        defer { unlink(script) }
        let home = tempPath("fish-home")   // fish keeps its variables under HOME: not the user's
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let (syntax, why) = try Self.sh("\(fish) --no-config -n \(Self.q(script)) 2>&1")
        #expect(syntax == 0, "\(why)")
        func complete(_ line: String) throws -> Set<String> {
            let (code, out) = try Self.sh("HOME=\(Self.q(home)) \(fish) --no-config -c \(Self.q("source \(Self.q(script)); complete -C \(Self.q(line))")) 2>&1")
            #expect(code == 0, "\(line): \(out)")
            return Set(out.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") })
        }
        #expect(try complete("bleexplr se") == ["services", "serve"])
        #expect(try complete("bleexplr --agent ").contains("keyboard-only"))
        for c in CommandLineSpec.commands {
            let offered = try complete("bleexplr \(c.name) --")
            for o in CommandLineSpec.options(of: c) { #expect(offered.contains(o.flag), "fish: \(c.name) \(o.flag)") }
        }
    }

    @Test func zshReadsItsCompletion() throws {
        let zsh = try Self.need("zsh")
        let script = try Self.printed("--completion zsh", "zsh")
        defer { unlink(script) }
        let (syntax, why) = try Self.sh("\(zsh) -n \(Self.q(script)) 2>&1")
        #expect(syntax == 0, "\(why)")
        // Loaded by compinit from a directory on fpath, as an installed _bleexplr is.
        let dir = tempPath("zsh-fpath")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: script, toPath: dir + "/_bleexplr")
        let (code, out) = try Self.sh("HOME=\(Self.q(dir)) \(zsh) -f -c \(Self.q("fpath=(\(Self.q(dir)) $fpath); autoload -Uz compinit; compinit -u -d \(Self.q(dir))/dump; print -r -- ${_comps[bleexplr]}")) 2>&1")
        #expect(code == 0 && out.trimmingCharacters(in: .whitespacesAndNewlines) == "_bleexplr", "\(out)")
    }

    /// `make deb` packages only a binary whose every library a Debian package provides: the
    /// debug build links the toolchain's Swift runtime (/opt/swift) and is refused, saying why.
    /// (The release build, --static-swift-stdlib, is packaged and run in a fresh root by
    /// `make deb-test`: minutes, not here.)
    @Test func theDebIsOnlyBuiltFromABinaryDebianCanRun() throws {
        guard try Self.sh("ldd \(Self.q(Self.bin)) | grep -q libswiftCore").0 == 0 else { return }   // a static binary under test
        _ = try Self.need("dpkg-shlibdeps")
        let out = tempPath("deb-out")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (code, text) = try Self.sh("\(Self.q("\(Self.root)/packaging/build-deb")) \(Self.q(Self.bin)) \(Self.q(out)) 2>&1")
        #expect(code == 1, "\(text)")
        #expect(text.contains("needs libswift") && text.contains("not a Debian package") && text.contains("--static-swift-stdlib"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: out), "nothing is written")
    }

    /// scripts/install-files, as `make install` and `make uninstall` run it, into a
    /// temporary DESTDIR: the files in their places, then nothing left but directories.
    @Test func installPutsEachFileInPlaceAndUninstallRemovesExactlyThem() throws {
        let dest = tempPath("destdir")
        defer { try? FileManager.default.removeItem(atPath: dest) }
        let script = "\(Self.root)/scripts/install-files"
        // Something of the user's in a shared directory stays.
        try FileManager.default.createDirectory(atPath: dest + "/usr/local/share/man/man1", withIntermediateDirectories: true)
        try "theirs\n".write(toFile: dest + "/usr/local/share/man/man1/other.1", atomically: true, encoding: .utf8)
        var (code, out) = try Self.sh("\(Self.q(script)) install \(Self.q(dest)) /usr/local \(Self.q(Self.bin)) 2>&1")
        #expect(code == 0, "\(out)")
        let expected = ["bin/bleexplr", "share/man/man1/bleexplr.1", "share/bash-completion/completions/bleexplr",
                        "share/zsh/site-functions/_bleexplr", "share/fish/vendor_completions.d/bleexplr.fish"]
        for f in expected { #expect(FileManager.default.fileExists(atPath: "\(dest)/usr/local/\(f)"), "\(f)") }
        #expect(FileManager.default.isExecutableFile(atPath: "\(dest)/usr/local/bin/bleexplr"))
        #expect(try String(contentsOfFile: "\(dest)/usr/local/share/man/man1/bleexplr.1", encoding: .utf8)
                == ManPage.roff(version: Self.sh("\(Self.q(Self.bin)) --version").1.trimmingCharacters(in: .newlines)))
        #expect(try String(contentsOfFile: "\(dest)/usr/local/share/fish/vendor_completions.d/bleexplr.fish", encoding: .utf8)
                == Completions.script(.fish))
        (code, out) = try Self.sh("\(Self.q("\(dest)/usr/local/bin/bleexplr")) --demo scan --duration 1")
        #expect(code == 0 && out.contains("Demo HRM"), "the installed binary runs: \(out)")
        let (_, listed) = try Self.sh("\(Self.q(script)) list \(Self.q(dest)) /usr/local")
        #expect(listed.split(separator: "\n").map(String.init) == expected.map { "\(dest)/usr/local/\($0)" })
        (code, out) = try Self.sh("\(Self.q(script)) uninstall \(Self.q(dest)) /usr/local 2>&1")
        #expect(code == 0, "\(out)")
        let left = try FileManager.default.subpathsOfDirectory(atPath: dest).filter {
            var dir: ObjCBool = false
            return FileManager.default.fileExists(atPath: "\(dest)/\($0)", isDirectory: &dir) && !dir.boolValue
        }
        #expect(left == ["usr/local/share/man/man1/other.1"], "\(left)")
        // /usr (a package) puts zsh's function where Debian's zsh looks for packaged ones.
        let (_, usr) = try Self.sh("\(Self.q(script)) list /pkg /usr")
        #expect(usr.contains("/pkg/usr/share/zsh/vendor-completions/_bleexplr\n"))
    }
}
