internal import CLibFuzzer
import Foundation

/// The `main` of every fuzz target (see docs/fuzzing.md).
///
/// Each target defines `@_cdecl("LLVMFuzzerTestOneInput")` and calls `FuzzDriver.main()` from its `@main`.
///
/// - Built by `scripts/fuzz-long.sh` (`-sanitize=fuzzer,address -DKARTPACK_FUZZING`), `main()` hands the command
///   line to libFuzzer's driver (`LLVMFuzzerRunDriver`), so every libFuzzer flag works (`-max_total_time=60 corpus/`,
///   `-runs=0 crash-…`). SwiftPM links Linux executables with `main` aliased to the module's own entry point, so
///   the target needs a `@main` even though libFuzzer brings its own `main`.
/// - Built normally (`swift build`), `main()` replays the files given as arguments (folders: every file inside,
///   in name order) through the same test function, once each, and prints what it ran. A crash reproduces the
///   same way without sanitizers.
public enum FuzzDriver {
    /// Runs libFuzzer (fuzzing build) or replays the argument files (normal build); never returns.
    public static func main(name: String) -> Never {
        #if KARTPACK_FUZZING
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput))
        #else
            exit(replay(name: name, arguments: Array(CommandLine.arguments.dropFirst())))
        #endif
    }

    /// Replays each input file through the target's `LLVMFuzzerTestOneInput`; returns the exit status (64 for a
    /// usage error, 66 for a missing input).
    public static func replay(name: String, arguments: [String]) -> Int32 {
        let paths = arguments.filter { !$0.hasPrefix("-") }
        guard !paths.isEmpty else {
            FileHandle.standardError.write(
                Data(
                    """
                    usage: \(name) FILE|FOLDER...   replays inputs through the fuzz target (normal build)
                           scripts/fuzz-long.sh \(name) [SECONDS]   fuzzes it (libFuzzer + AddressSanitizer build)

                    """.utf8))
            return 64
        }
        var files: [String] = []
        for path in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                FileHandle.standardError.write(Data("\(name): \(path): no such file or folder\n".utf8))
                return 66
            }
            if isDir.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                for n in names.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
                    let full = (path as NSString).appendingPathComponent(n)
                    var sub: ObjCBool = false
                    if FileManager.default.fileExists(atPath: full, isDirectory: &sub), !sub.boolValue {
                        files.append(full)
                    }
                }
            } else {
                files.append(path)
            }
        }
        let clock = ContinuousClock()
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("\(name): \(file): unreadable\n".utf8))
                return 66
            }
            let started = clock.now
            _ = data.withUnsafeBytes { LLVMFuzzerTestOneInput($0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
            let ms = (clock.now - started).components
            let millis = ms.seconds * 1000 + ms.attoseconds / 1_000_000_000_000_000
            print("\(name): ok \(file) (\(data.count) bytes, \(millis) ms)")
        }
        print("\(name): replayed \(files.count) input(s) without a crash")
        return 0
    }

    /// Stops the process with a message on stderr: a broken invariant the fuzzer must report as a crash.
    public static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("kartpack fuzz invariant broken: \(message)\n".utf8))
        abort()
    }
}
