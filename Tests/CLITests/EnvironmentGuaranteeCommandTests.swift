import Foundation
import Glibc
import KartpackTestSupport
import Testing

/// The guarantees of issue 15 about the process's surroundings, proven through the real binary: FIFOs where a
/// regular file is expected, outputs that collide with inputs, two writers of one package, leftovers of killed runs,
/// a 255-byte output name, and EMFILE in `validate` and a zip `import` (docs/diagnostics.md, *Hostile
/// surroundings*). Every wait is a poll with a generous hang guard: a loaded 2-core machine only makes them slower.
@Suite struct EnvironmentGuaranteeCommandTests {
    /// How long any single command may take before it counts as hung (it is killed then).
    private static let hangGuard: TimeInterval = 300

    // MARK: - Helpers

    /// How a started command ended.
    private struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// A folder `data` in `dir` with copies of sample layers.
    private static func copyLayers(_ layers: [String], to dir: TemporaryDirectory) throws -> String {
        let data = dir.file("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        for layer in layers {
            for ext in ["shp", "shx", "dbf", "prj", "cpg"] where !exists("\(data)/\(layer).\(ext)") {
                try FileManager.default.copyItem(
                    atPath: RepositoryPaths.sampleForest.appendingPathComponent("\(layer).\(ext)").path,
                    toPath: "\(data)/\(layer).\(ext)")
            }
        }
        return data
    }

    /// A pipeline `plan.json` in `dir` over `data/fornminnen.shp`, writing `output`.
    private static func pipeline(in dir: TemporaryDirectory, output: String = "plan.pmtiles") throws -> String {
        _ = try copyLayers(["fornminnen"], to: dir)
        let path = dir.file("plan.json")
        try """
        {"version": 1, "sources": [{"path": "data/fornminnen.shp", "layer": "fornminnen"}],
         "tiles": {"minZoom": 0, "maxZoom": 6}, "output": {"format": "pmtiles", "path": "\(output)"}}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    private static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    private static func mkfifo(_ path: String) throws {
        guard Glibc.mkfifo(path, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    /// A started `kartpack` whose output goes to files in `dir` (no pipe can fill up and block it).
    private static func start(_ arguments: [String], in dir: TemporaryDirectory, tag: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: RepositoryPaths.kartpackBinary)
        p.arguments = arguments
        p.currentDirectoryURL = URL(fileURLWithPath: dir.path)
        p.standardInput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: dir.file("\(tag).out"), contents: nil)
        _ = FileManager.default.createFile(atPath: dir.file("\(tag).err"), contents: nil)
        p.standardOutput = FileHandle(forWritingAtPath: dir.file("\(tag).out"))
        p.standardError = FileHandle(forWritingAtPath: dir.file("\(tag).err"))
        try p.run()
        return p
    }

    /// Polls `condition` every 50 ms until it holds (true) or `timeout` seconds pass (false).
    private static func poll(
        _ timeout: TimeInterval = hangGuard, every interval: TimeInterval = 0.05, _ condition: () -> Bool
    ) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: interval)
        }
        return condition()
    }

    /// Waits for `p` to end within the hang guard; a process still running then is killed and counts as hung
    /// (nil).
    private static func finish(_ p: Process, in dir: TemporaryDirectory, tag: String) -> Outcome? {
        let ended = poll(hangGuard) { !p.isRunning }
        guard ended else {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            return nil
        }
        p.waitUntilExit()
        let out = (try? String(contentsOfFile: dir.file("\(tag).out"), encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: dir.file("\(tag).err"), encoding: .utf8)) ?? ""
        return Outcome(status: p.terminationStatus, stdout: out, stderr: err)
    }

    /// Runs `kartpack` to its end under the hang guard: nil when it hung (it is killed then).
    private static func bounded(_ arguments: [String], in dir: TemporaryDirectory, tag: String = "cmd") throws
        -> Outcome?
    {
        finish(try start(arguments, in: dir, tag: tag), in: dir, tag: tag)
    }

    /// A /proc file's text, read to its end (their size is 0, so readers that trust `st_size` see nothing).
    private static func procText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out += chunk[..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// True while process `pid` holds a `flock` (read from /proc/locks, which takes no lock itself: probing with
    /// `flock -n` could make the run under test lose its own lock race).
    private static func holdsAFlock(_ pid: Int32) -> Bool {
        guard let text = procText("/proc/locks") else { return false }
        return text.split(separator: "\n").contains { line in
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            return f.count > 4 && f[1] == "FLOCK" && f[4] == Substring(String(pid))
        }
    }

    /// The names in `folder` containing `fragment`.
    private static func names(in folder: String, containing fragment: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.contains(fragment) }.sorted()
    }

    /// A long-running convert: municipalities and roads to zoom 15 with one thread take seconds even on a fast
    /// machine.
    private static func heavyConvert(_ data: String, output: String) -> [String] {
        [
            "convert", "\(data)/kommuner.shp", "\(data)/vagar.shp", "-o", output, "--max-zoom", "15", "--threads", "1",
            "--quiet",
        ]
    }

    // MARK: - 1. FIFOs where a regular file is expected

    @Test func aReportOntoAFIFOIsRefusedWithoutBlocking() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.copyLayers(["fornminnen"], to: dir)
        let plan = try Self.pipeline(in: dir)
        let fifo = dir.file("report.fifo")
        try Self.mkfifo(fifo)
        let commands: [(name: String, args: [String], out: String)] = [
            ("convert", ["convert", "\(data)/fornminnen.shp", "-o", "c.pmtiles", "--max-zoom", "6"], "c.pmtiles"),
            ("import", ["import", data, "-o", "i.pmtiles", "--max-zoom", "6"], "i.pmtiles"),
            ("run", ["run", plan], "plan.pmtiles"),
        ]
        for c in commands {
            let r = try #require(try Self.bounded(c.args + ["--report", fifo], in: dir), "\(c.name) blocked on a FIFO")
            #expect(r.status == 73, "\(c.name): exit \(r.status): \(r.stderr)")
            #expect(r.stderr.contains("report.fifo") && r.stderr.contains("FIFO"), "\(c.name): \(r.stderr)")
            #expect(!Self.exists(dir.file(c.out)), "\(c.name): nothing is published")
        }
    }

    @Test func aPipelineFileThatIsAFIFOIsRefusedWithoutBlocking() throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.file("plan.json")
        try Self.mkfifo(fifo)
        for command in ["run", "validate"] {
            let r = try #require(try Self.bounded([command, fifo], in: dir), "\(command) blocked on a FIFO pipeline")
            #expect(r.status == 66, "\(command): exit \(r.status): \(r.stderr) \(r.stdout)")
            #expect((r.stderr + r.stdout).contains("FIFO"), "\(command): \(r.stderr) \(r.stdout)")
        }
    }

    @Test func aPipelineOutputOrStyleThatIsAFIFOIsRefusedWithoutBlocking() throws {
        let dir = try TemporaryDirectory()
        let plan = try Self.pipeline(in: dir, output: "out.pmtiles")
        try Self.mkfifo(dir.file("out.pmtiles"))
        let r = try #require(try Self.bounded(["run", plan], in: dir), "run blocked on a FIFO output")
        #expect(r.status == 73, "run: exit \(r.status): \(r.stderr)")
        #expect(r.stderr.contains("FIFO"), "\(r.stderr)")

        let package = dir.file("p.pmtiles")
        let made = try runKartpack(["convert", dir.file("data/fornminnen.shp"), "-o", package, "--max-zoom", "6"])
        #expect(made.status == 0, "\(made.stderr)")
        try Self.mkfifo(dir.file("style.json"))
        let sheet = RepositoryPaths.root.appendingPathComponent("SampleData/forest.kss").path
        let s = try #require(
            try Self.bounded(["style", sheet, "--package", package, "-o", dir.file("style.json")], in: dir),
            "style blocked on a FIFO")
        #expect(s.status == 73, "style: exit \(s.status): \(s.stderr)")
    }

    // MARK: - 2. Outputs that are inputs

    @Test func aReportOntoAnInputOrTheOutputIsRefusedAndTouchesNothing() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.copyLayers(["fornminnen", "vagar"], to: dir)
        let out = dir.file("out.pmtiles")
        let shp = "\(data)/fornminnen.shp"
        #expect(try runKartpack(["convert", shp, "-o", out, "--max-zoom", "6", "--quiet"]).status == 0)
        let package = try Self.bytes(out)
        let watched = ["shp", "shx", "dbf", "prj", "cpg"].map { "\(data)/fornminnen.\($0)" } + ["\(data)/vagar.dbf"]
        let before = try watched.map(Self.bytes)
        let cases: [(inputs: [String], report: String)] = [
            ([shp], "\(data)/fornminnen.dbf"), ([shp], "\(data)/fornminnen.shp"), ([shp], "\(data)/fornminnen.prj"),
            ([shp], "\(data)/fornminnen.cpg"), ([shp], out), ([data], "\(data)/vagar.dbf"),
            ([shp], "\(data)/../data/fornminnen.shx"),
        ]
        for command in ["convert", "import"] {
            for c in cases {
                // `import` reads folders and zips: it gets the folder holding the same files.
                let inputs = command == "import" ? [data] : c.inputs
                let r = try runKartpack(
                    [command] + inputs + ["-o", out, "--force", "--max-zoom", "6", "--report", c.report])
                #expect(r.status == 64, "\(command) --report \(c.report): exit \(r.status): \(r.stderr)")
                #expect(try Self.bytes(out) == package, "\(command) --report \(c.report): the package is untouched")
                #expect(try watched.map(Self.bytes) == before, "\(command) --report \(c.report): inputs untouched")
            }
        }
        #expect(Self.names(in: dir.path, containing: ".tmp-").isEmpty)
    }

    @Test func aStyleOutputOntoItsSheetOrPackageIsRefused() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.copyLayers(["fornminnen"], to: dir)
        let package = dir.file("p.pmtiles")
        #expect(try runKartpack(["convert", "\(data)/fornminnen.shp", "-o", package, "--max-zoom", "6"]).status == 0)
        let sheet = dir.file("forest.kss")
        try FileManager.default.copyItem(
            atPath: RepositoryPaths.root.appendingPathComponent("SampleData/forest.kss").path, toPath: sheet)
        try FileManager.default.copyItem(
            atPath: RepositoryPaths.root.appendingPathComponent("SampleData/icons").path, toPath: dir.file("icons"))
        let icon = dir.file("icons/fornlamning.svg")
        let watched = [package, sheet, icon]
        let before = try watched.map(Self.bytes)
        for target in [sheet, package, icon] {
            let r = try runKartpack(["style", sheet, "--package", package, "-o", target])
            #expect(r.status == 64, "style -o \(target): exit \(r.status): \(r.stderr)")
            #expect(try watched.map(Self.bytes) == before, "style -o \(target): nothing is touched")
        }
        // The sprite files go next to the style: a sheet whose icon is one of them is refused too.
        try FileManager.default.copyItem(atPath: icon, toPath: dir.file("icons/sprite.png"))
        let clash = dir.file("clash.kss")
        try (try String(contentsOfFile: sheet, encoding: .utf8))
            .replacingOccurrences(of: "icons/fornlamning.svg", with: "icons/sprite.png")
            .write(toFile: clash, atomically: true, encoding: .utf8)
        let r = try runKartpack(["style", clash, "--package", package, "-o", dir.file("icons/style.json")])
        #expect(r.status == 64, "sprite onto an icon: exit \(r.status): \(r.stderr)")
        #expect(!Self.exists(dir.file("icons/style.json")))
    }

    // MARK: - 3. Two writers of one package

    @Test func aConvertWhileAnotherHoldsTheLockExits75AtOnce() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.copyLayers(["fornminnen"], to: dir)
        for command in ["convert", "import"] {
            let out = dir.file("\(command).pmtiles")
            // The test process itself holds the lock (as another run would: `flock` on `<output>.lock`).
            let fd = open(out + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            try #require(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0, "the test holds the lock")
            defer { close(fd) }
            let input = command == "convert" ? "\(data)/fornminnen.shp" : data
            let r = try #require(try Self.bounded([command, input, "-o", out, "--max-zoom", "6"], in: dir))
            #expect(r.status == 75, "\(command): exit \(r.status): \(r.stderr)")
            #expect(r.stderr.contains("lock"), "\(r.stderr)")
            #expect(!Self.exists(out))
        }
    }

    @Test func twoConvertsToOneOutputTakeTurns() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.copyLayers(["kommuner", "vagar", "fornminnen"], to: dir)
        let out = dir.file("shared.pmtiles")
        let first = try Self.start(Self.heavyConvert(data, output: out), in: dir, tag: "first")
        defer { kill(first.processIdentifier, SIGKILL) }
        let pid = first.processIdentifier
        // Wait until the first run holds the output's lock, then freeze it there: the second run meets a live
        // holder however slow the machine is.
        let holding = Self.poll { Self.holdsAFlock(pid) || !first.isRunning }
        try #require(holding && first.isRunning, "the first convert took the lock and is still running")
        kill(pid, SIGSTOP)
        let second = try #require(
            try Self.bounded(
                ["convert", "\(data)/fornminnen.shp", "-o", out, "--max-zoom", "6"], in: dir, tag: "second"),
            "the second convert waited for the lock instead of exiting 75")
        kill(pid, SIGCONT)
        #expect(second.status == 75, "second: exit \(second.status): \(second.stderr)")
        #expect(second.stderr.contains("lock"), "\(second.stderr)")
        let done = try #require(Self.finish(first, in: dir, tag: "first"), "the first convert hung")
        #expect(done.status == 0, "first: \(done.stderr)")
        let info = try runKartpack(["inspect", out, "--format", "json"])
        #expect(info.status == 0 && info.stdout.contains("\"kommuner\""), "the first run's package: \(info.stderr)")
        #expect(Self.names(in: dir.path, containing: ".tmp-").isEmpty)
    }

    // MARK: - 4. Leftovers of killed runs

    @Test func theNextConvertRemovesWhatAKilledConvertLeft() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.copyLayers(["kommuner", "vagar", "fornminnen"], to: dir)
        let out = dir.file("swept.pmtiles")
        // The package is staged only while it is written, a few tens of milliseconds: poll often, and when the
        // victim still finished between two polls (a fast build, a loaded machine) try again rather than fail.
        var pid: Int32 = 0
        var mine = ""
        var killed = false
        for attempt in 0..<8 where !killed {
            try? FileManager.default.removeItem(atPath: out)
            let victim = try Self.start(Self.heavyConvert(data, output: out), in: dir, tag: "victim\(attempt)")
            pid = victim.processIdentifier
            mine = "swept.pmtiles.tmp-\(pid)-"
            let staged = Self.poll(every: 0.002) {
                !Self.names(in: dir.path, containing: mine).isEmpty || !victim.isRunning
            }
            kill(pid, SIGKILL)
            victim.waitUntilExit()
            killed = staged && victim.terminationReason == .uncaughtSignal
        }
        try #require(killed, "killed while staging its package")
        let left = Self.names(in: dir.path, containing: mine)
        #expect(!left.isEmpty)

        // Files that are not provably abandoned leftovers of this output stay: one whose writer is alive, one of
        // another output (even with a dead writer), one that only looks similar.
        let alive = Process()
        alive.executableURL = URL(fileURLWithPath: "/bin/sleep")
        alive.arguments = ["600"]
        try alive.run()
        defer {
            // SIGKILL: a test runner started with SIGTERM ignored hands that on to its children (a CI run once
            // waited the whole 600 s here).
            kill(alive.processIdentifier, SIGKILL)
            alive.waitUntilExit()
        }
        let keep = [
            "swept.pmtiles.tmp-\(alive.processIdentifier)-0123abcd", "other.pmtiles.tmp-\(pid)-0123abcd",
            "swept.pmtiles.tmp-\(pid)-notahex!", "swept.pmtiles.bak",
        ]
        for name in keep { _ = FileManager.default.createFile(atPath: dir.file(name), contents: Data("x".utf8)) }

        let next = try #require(
            try Self.bounded(["convert", "\(data)/fornminnen.shp", "-o", out, "--max-zoom", "6"], in: dir, tag: "next"))
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stderr.contains("left by a run that was killed"), "\(next.stderr)")
        #expect(Self.names(in: dir.path, containing: mine).filter { !keep.contains($0) }.isEmpty, "swept")
        for name in keep { #expect(Self.exists(dir.file(name)), "\(name) is kept") }
    }

    @Test func theNextImportRemovesTheExtractionFolderOfAKilledImport() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.copyLayers(["kommuner", "vagar", "fornminnen"], to: dir)
        let zip = dir.file("export.zip")
        let zipped = try runProcess(
            "/usr/bin/zip",
            ["-q", "-j", zip]
                + ["kommuner", "vagar", "fornminnen"].flatMap { layer in
                    ["shp", "shx", "dbf", "prj", "cpg"].map { "\(data)/\(layer).\($0)" }
                })
        try #require(zipped.status == 0, "\(zipped.stderr)")
        let temp = dir.file("temp")
        try FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: false)
        func importing(_ output: String) -> [String] {
            [
                "import", zip, "-o", dir.file(output), "--temp-dir", temp, "--max-zoom", "15", "--threads", "1",
                "--quiet",
            ]
        }
        func folders(of pid: Int32) -> [String] { Self.names(in: temp, containing: "kartpack-import-\(pid)-") }
        // Set up: its `owner` marker is written before `export/` is made. A process stopped between `mkdtemp` and
        // the marker leaves a folder no later import may prove abandoned (seen under a loaded parallel test run).
        func setUp(_ pid: Int32) -> Bool {
            folders(of: pid).contains { Self.exists(temp + "/" + $0 + "/export") }
        }

        // One import is killed, another is only stopped (its owner is alive): both leave an extraction folder.
        let victim = try Self.start(importing("a.pmtiles"), in: dir, tag: "victim")
        let paused = try Self.start(importing("b.pmtiles"), in: dir, tag: "paused")
        defer { kill(paused.processIdentifier, SIGKILL) }
        let extracting = Self.poll {
            (setUp(victim.processIdentifier) || !victim.isRunning)
                && (setUp(paused.processIdentifier) || !paused.isRunning)
        }
        kill(victim.processIdentifier, SIGKILL)
        kill(paused.processIdentifier, SIGSTOP)
        victim.waitUntilExit()
        try #require(extracting && paused.isRunning && victim.terminationReason == .uncaughtSignal)
        let killedFolders = folders(of: victim.processIdentifier)
        let pausedFolders = folders(of: paused.processIdentifier)
        #expect(killedFolders.count == 1 && pausedFolders.count == 1, "\(killedFolders) \(pausedFolders)")

        let next = try #require(
            try Self.bounded(
                ["import", zip, "-o", dir.file("c.pmtiles"), "--temp-dir", temp, "--max-zoom", "6"],
                in: dir, tag: "next"))
        #expect(next.status == 0, "\(next.stderr)")
        #expect(folders(of: victim.processIdentifier).isEmpty, "the killed import's folder is removed")
        #expect(folders(of: paused.processIdentifier) == pausedFolders, "a live import's folder is kept")
        kill(paused.processIdentifier, SIGKILL)
        paused.waitUntilExit()
        let again = try #require(
            try Self.bounded(
                [
                    "import", zip, "-o", dir.file("c.pmtiles"), "--temp-dir", temp, "--max-zoom", "6",
                    "--force",
                ], in: dir, tag: "again"))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Self.names(in: temp, containing: "kartpack-import-").isEmpty, "every abandoned folder is gone")
    }

    // MARK: - 6. NAME_MAX

    @Test(arguments: ["pmtiles", "mbtiles"])
    func anOutputNameOf255BytesConverts(_ format: String) throws {
        let dir = try TemporaryDirectory()
        let data = try Self.copyLayers(["fornminnen"], to: dir)
        let name = String(repeating: "å", count: (255 - format.utf8.count - 1) / 2)
        let fill = String(repeating: "a", count: 255 - format.utf8.count - 1 - name.utf8.count)
        let out = dir.file(name + fill + "." + format)
        #expect((out as NSString).lastPathComponent.utf8.count == 255)
        for round in 0..<2 {
            let args = ["convert", "\(data)/fornminnen.shp", "-o", out, "--max-zoom", "6", "--force"]
            let r = try #require(try Self.bounded(args, in: dir, tag: "r\(round)"))
            #expect(r.status == 0, "round \(round): \(r.stderr)")
            let info = try runKartpack(["inspect", out, "--format", "json"])
            #expect(info.status == 0 && info.stdout.contains("\"fornminnen\""), "\(info.stderr)")
        }
        let left = Self.names(in: dir.path, containing: ".tmp-") + Self.names(in: dir.path, containing: "-journal")
        #expect(left.isEmpty, "\(left)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { $0.utf8.count <= 255 })
    }

    // MARK: - EMFILE in validate and a zip import

    /// A folder of 60 copies of the points layer, zipped, and a pipeline over the copies.
    private static func sixty(in dir: TemporaryDirectory) throws -> (zip: String, pipeline: String) {
        let data = try copyLayers(["fornminnen"], to: dir)
        var files: [String] = []
        var sources: [String] = []
        for k in 1...60 {
            let base = String(format: "p%02d", k)
            for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
                try FileManager.default.copyItem(atPath: "\(data)/fornminnen.\(ext)", toPath: "\(data)/\(base).\(ext)")
                files.append("\(data)/\(base).\(ext)")
            }
            sources.append("{\"path\": \"data/\(base).shp\", \"layer\": \"\(base)\"}")
        }
        let zip = dir.file("sixty.zip")
        let zipped = try runProcess("/usr/bin/zip", ["-q", "-j", zip] + files)
        guard zipped.status == 0 else { throw POSIXError(.EIO) }
        let pipeline = dir.file("sixty.json")
        try """
        {"version": 1, "sources": [\(sources.joined(separator: ", "))], "tiles": {"minZoom": 0, "maxZoom": 6},
         "output": {"format": "pmtiles", "path": "run.pmtiles"}}
        """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        return (zip, pipeline)
    }

    @Test func tooFewDescriptorsForAZipImportExit74NamingTheLimit() throws {
        let dir = try TemporaryDirectory()
        let (zip, _) = try Self.sixty(in: dir)
        // The limits are counted from the descriptors the shell inherits (a test runner may leave a few open), and
        // raised one at a time until the import succeeds: every lower limit must fail cleanly, and some of them only
        // once the import is under way.
        var pastStart: [Int] = []
        var succeeded = false
        let inherited = try runShell("ls /proc/self/fd | wc -l", currentDirectory: dir.path)
        let base = max(3, (Int(inherited.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 4) - 1)
        for limit in (base + 4)...(base + 40) where !succeeded {
            let line = "$KP import '\(zip)' -o imp.pmtiles --max-zoom 6 --quiet --temp-dir '\(dir.path)'"
            let r = try runShell("ulimit -n \(limit); \(line)", currentDirectory: dir.path)
            if r.status == 0 {
                succeeded = true
                continue
            }
            #expect(r.status == 74, "import under ulimit -n \(limit): exit \(r.status): \(r.stderr)")
            #expect(r.stderr.contains("the process limit is \(limit) (ulimit -n)"), "ulimit -n \(limit): \(r.stderr)")
            for blame in ["Fatal error", "Backtracing", "bad .dbf header", "proj.db", ": Too many open files"] {
                #expect(!r.stderr.contains(blame), "ulimit -n \(limit): \(r.stderr)")
            }
            #expect(!Self.exists(dir.file("imp.pmtiles")))
            if !r.stderr.contains("cannot start") { pastStart.append(limit) }
        }
        #expect(succeeded, "the import succeeds with at most 40 descriptors more than the shell inherits")
        #expect(!pastStart.isEmpty, "a limit from \(base + 4) lets the import start, then run out")
        #expect(Self.names(in: dir.path, containing: "kartpack-import-").isEmpty, "no extraction folder is left")
    }

    /// The parent pid of process `pid`, from /proc/PID/stat.
    private static func parent(of pid: Int32) -> Int32? {
        guard let stat = procText("/proc/\(pid)/stat"),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// True when process `pid` has a child (the CRS helper `validate` starts for a source's `.prj`).
    private static func hasChild(_ pid: Int32) -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.contains { Int32($0).map { parent(of: $0) == pid } ?? false }
    }

    /// True when process `pid` has a file below `folder` open.
    private static func hasOpen(_ pid: Int32, below folder: String) -> Bool {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.contains { fd in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? "")
                .hasPrefix(folder + "/")
        }
    }

    @Test func validateOutOfDescriptorsExits74NamingTheLimit() throws {
        // `kartpack` refuses to start without 8 free descriptors and `validate` never needs more, so `ulimit -n`
        // cannot starve it half way; lowering the limit of the running process (prlimit) can. It is lowered once
        // validate reads a source or runs its CRS helper, i.e. past the start-up check. A machine so fast that
        // validate ends between two polls gets another try.
        let dir = try TemporaryDirectory()
        let (_, pipeline) = try Self.sixty(in: dir)
        let data = try #require(Self.realPath(dir.file("data")))
        var result: Outcome?
        for attempt in 0..<3 where result == nil {
            let p = try Self.start(["validate", pipeline], in: dir, tag: "validate\(attempt)")
            defer { kill(p.processIdentifier, SIGKILL) }
            let pid = p.processIdentifier
            let busy = Self.poll { Self.hasChild(pid) || Self.hasOpen(pid, below: data) || !p.isRunning }
            guard busy, p.isRunning else {
                p.waitUntilExit()
                continue
            }
            let lowered = try runProcess("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=4:4"])
            try #require(lowered.status == 0, "\(lowered.stderr)")
            result = Self.finish(p, in: dir, tag: "validate\(attempt)")
            try #require(result != nil, "validate hung")
        }
        let r = try #require(result, "validate was caught while checking its sources")
        #expect(r.status == 74, "exit \(r.status): \(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains("the process limit is 4 (ulimit -n)"), "\(r.stderr)")
        #expect(!r.stderr.contains("cannot start") && !r.stdout.contains("error(s)"), "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count <= 5, "a few lines, not one per source: \(r.stderr)")
    }

    private static func realPath(_ path: String) -> String? {
        guard let p = Glibc.realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
