import Foundation
import KartpackCore
import MallocTuning
import Reprojection

/// Every subcommand, in the order `kartpack --help` lists them.
enum Commands {
    static var all: [any Command.Type] {
        [
            ConvertCommand.self, ImportCommand.self, RunCommand.self, InspectCommand.self, ValidateCommand.self,
            StyleCommand.self, PreviewCommand.self, PackageCommand.self, VerifyCommand.self, ExtractCommand.self,
            QueryCommand.self, ServeCommand.self, PlanCommand.self, MergeCommand.self,
        ]
    }
}

func mainHelp() -> String {
    var s =
        "usage: kartpack <command> [options]\n\nKartpack turns Shapefiles into vector-tile packages (PMTiles, "
        + "MBTiles).\n\ncommands:\n"
    for c in Commands.all {
        s += "  " + c.name.padding(toLength: 12, withPad: " ", startingAt: 0) + c.summary + "\n"
    }
    s += "\n`kartpack <command> --help` describes a command. Exit codes follow sysexits (see the README).\n"
    return s
}

/// This binary's path, for child processes: /proc/self/exe, unless that is a wrapper such as valgrind's tool, in
/// which case the path we were started by.
func helperExecutable() -> String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let arg0 = CommandLine.arguments[0]
    if !(exe as NSString).lastPathComponent.hasPrefix("kartpack"), arg0.contains("/") {
        return URL(fileURLWithPath: arg0).standardizedFileURL.path
    }
    return exe
}

func runMain() -> Int32 {
    // Closed descriptors 0-2 are filled with /dev/null before anything is opened (so no package or input can get
    // descriptor 1), and SIGPIPE is ignored: console failures become exit 74/141 at the end, never a trap.
    StandardStreams.protectDescriptors()
    // Too few descriptors to start at all (libdispatch would trap): say so, exit 74.
    if let e = OpenFileLimit.lacksHeadroom(8) {
        StandardStreams.write("kartpack: cannot start: \(OpenFileLimit.message(errno: e))\n", to: .error)
        return ExitCode.ioError.rawValue
    }
    var args = Array(CommandLine.arguments.dropFirst())
    // Hidden: resolve an untrusted .prj (or a user-given CRS text) from stdin in this short-lived child process (see
    // IsolatedCRS).
    if args.first == "__resolve-crs" {
        let override = args.count >= 2 && args[1] == "--override"
        return IsolatedCRS.serveChild(
            prjFile: args.count >= 3 && args[1] == "--file" ? args[2] : nil, override: override)
    }
    // Untrusted .prj files are parsed in a child process of this same binary.
    IsolatedCRS.helperExecutable = helperExecutable()
    // The heap's tuning (arenas, mmap threshold) is process-wide: set once, before any worker thread exists.
    ProcessHeap.configure(threads: ProcessInfo.processInfo.activeProcessorCount)
    // A write beyond a file-size limit must fail with EFBIG (a clear I/O error), not kill the process.
    signal(SIGXFSZ, SIG_IGN)
    // A parent (cron, a test runner) may have left SIGINT/SIGTERM/SIGHUP blocked; the mask is inherited across exec and
    // would silently defeat the cleanup on those signals. Unblock them before any thread starts.
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    sigaddset(&signals, SIGHUP)
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    guard let first = args.first else {
        Console.error("no command given")
        Console.errRaw(mainHelp())
        return ExitCode.usage.rawValue
    }
    if first == "--help" || first == "-h" || first == "help" {
        Console.out(mainHelp(), terminator: "")
        return 0
    }
    if first == "--version" {
        Console.out(Kartpack.generator)
        return 0
    }
    guard let type = Commands.all.first(where: { $0.name == first }) else {
        Console.error("unknown command '\(first)'")
        Console.errRaw(mainHelp())
        return ExitCode.usage.rawValue
    }
    args.removeFirst()
    if ParsedArguments.asksForHelp(args, options: type.options) {
        Console.out(type.help, terminator: "")
        return 0
    }
    do {
        let command = try type.init(arguments: args)
        return try command.run().rawValue
    } catch let e as UsageError {
        Console.error(e.message)
        Console.errRaw("run 'kartpack \(type.name) --help' for usage\n")
        return ExitCode.usage.rawValue
    } catch let e as any KartpackError {
        Console.error(e.description)
        return e.exitCode.rawValue
    } catch {
        Console.error("internal error: \(error)")
        return ExitCode.software.rawValue
    }
}

let status = runMain()
let final = StandardStreams.exitCode(after: status)
if final != status, StandardStreams.failure(of: .output) != nil, let why = StandardStreams.failureSummary() {
    // stderr may still work when stdout failed: say why the exit code is not 0.
    StandardStreams.write("kartpack: cannot write the output (\(why)); the command's work is done\n", to: .error)
}
exit(final)
