import Explorer
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The target every input goes to: FUZZ_TARGET (a `FuzzTarget` name), or, without it,
/// the one the input's first byte picks (the rest of the input is its input).
let fixedTarget: FuzzTarget? = {
    guard let name = getenv("FUZZ_TARGET").map({ String(cString: $0) }), !name.isEmpty else { return nil }
    guard let t = FuzzTarget(rawValue: name) else {
        fputs("FuzzDecoders: no target \(name); targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " "))\n", stderr)
        exit(2)
    }
    return t
}()

/// libFuzzer entry: every parser of untrusted input (FuzzTargets.swift). A text that
/// would reach the terminal unsafe is a finding too, so it traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let target: FuzzTarget
    if let fixed = fixedTarget {
        target = fixed
    } else {
        guard let first = bytes.first else { return 0 }
        target = FuzzTarget.allCases[Int(first) % FuzzTarget.allCases.count]
        bytes.removeFirst()
    }
    let input = bytes
    let texts = MainActor.assumeIsolated { target.run(input) }
    // Printable ASCII, most of the text, is safe as it is: only the rest is looked at scalar by scalar.
    for text in texts where !text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) && text.unicodeScalars.contains(where: TerminalSafe.isUnsafe) {
        fatalError("\(target) gave unsafe text from \(hex(bytes)): \(text.debugDescription)")
    }
    return 0
}

#if FUZZING
/// libFuzzer's driver (LLVM 11+). SwiftPM links executables with their entry point renamed
/// to `<module>_main`, so libFuzzer's own `main` is not the one that runs: start the
/// driver from ours.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(_ argc: UnsafeMutablePointer<CInt>,
               _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
               _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@_cdecl("FuzzDecoders_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runDriver(&argc, &argv, { fuzzOneInput($0, $1) })
}
#else
/// Without `-sanitize=fuzzer` (the package's normal build) this is a corpus replayer:
/// `FUZZ_TARGET=NAME FuzzDecoders FILE...` runs each file through the same entry point.
@main
enum ReplayCorpus {
    static func main() {
        var count = 0
        for path in CommandLine.arguments.dropFirst() {
            let bytes: Bytes
            do { bytes = try FileBytes.read(path, limit: 64 << 20) } catch {
                fputs("FuzzDecoders: \(error)\n", stderr)
                exit(2)
            }
            _ = bytes.withUnsafeBufferPointer { fuzzOneInput($0.baseAddress, $0.count) }
            count += 1
        }
        print("replayed \(count) input\(count == 1 ? "" : "s")")
    }
}
#endif
