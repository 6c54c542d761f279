import Foundation
import KartpackTestSupport
import Testing

/// Running out of file descriptors (issue 15): inputs are opened only while they are read, so 60 inputs need no
/// more descriptors than one; a limit too low for even that ends with exit 74 naming the limit — never a data
/// reason (`bad_dbf_header`, "PROJ cannot find proj.db"), never a trap, never a published package.
@Suite struct DescriptorLimitCommandTests {
    /// A folder of 60 small Shapefile sets (copies of the sample's points layer) and a pipeline over them.
    private static func sixty(in dir: TemporaryDirectory) throws -> (folder: String, pipeline: String) {
        let fm = FileManager.default
        let folder = dir.file("sixty")
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: false)
        var sources: [String] = []
        for k in 1...60 {
            let base = String(format: "p%02d", k)
            for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
                try fm.copyItem(
                    atPath: RepositoryPaths.sampleForest.appendingPathComponent("fornminnen.\(ext)").path,
                    toPath: "\(folder)/\(base).\(ext)")
            }
            sources.append("{\"path\": \"sixty/\(base).shp\", \"layer\": \"\(base)\"}")
        }
        let pipeline = dir.file("sixty.json")
        try """
        {"version": 1, "sources": [\(sources.joined(separator: ", "))], "tiles": {"minZoom": 0, "maxZoom": 6},
         "output": {"format": "pmtiles", "path": "run.pmtiles"}}
        """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        return (folder, pipeline)
    }

    /// The command lines, each writing `OUT` in the folder.
    private static func commands(_ folder: String, _ pipeline: String) -> [(name: String, line: String, out: String)] {
        [
            ("convert", "$KP convert '\(folder)' -o out.pmtiles --max-zoom 6", "out.pmtiles"),
            ("import", "$KP import '\(folder)' -o imp.pmtiles --max-zoom 6", "imp.pmtiles"),
            ("run", "$KP run '\(pipeline)'", "run.pmtiles"),
        ]
    }

    private static func run(_ line: String, limit: Int, in dir: TemporaryDirectory) throws -> ProcessResult {
        try runShell("ulimit -n \(limit); \(line)", currentDirectory: dir.path)
    }

    @Test func sixtyInputsFitInTwentyFourDescriptors() throws {
        let dir = try TemporaryDirectory()
        let (folder, pipeline) = try Self.sixty(in: dir)
        for c in Self.commands(folder, pipeline) {
            let r = try Self.run(c.line, limit: 24, in: dir)
            #expect(r.status == 0, "\(c.name) under ulimit -n 24: \(r.stderr)")
            let check = try runKartpack(["inspect", dir.file(c.out), "--format", "json"])
            #expect(check.status == 0, "\(c.name): \(check.stderr)")
            #expect(check.stdout.contains("\"p60\""), "\(c.name): the last layer is in the package")
        }
    }

    @Test(arguments: [8, 10, 12])
    func tooFewDescriptorsExit74NamingTheLimit(_ limit: Int) throws {
        let dir = try TemporaryDirectory()
        let (folder, pipeline) = try Self.sixty(in: dir)
        for c in Self.commands(folder, pipeline) {
            let r = try Self.run(c.line, limit: limit, in: dir)
            #expect(r.status == 74, "\(c.name) under ulimit -n \(limit): exit \(r.status): \(r.stderr)")
            #expect(r.stderr.contains("too many open files"), "\(c.name): \(r.stderr)")
            #expect(r.stderr.contains("limit is \(limit) (ulimit -n)"), "\(c.name): \(r.stderr)")
            for blame in ["bad .dbf header", "proj.db", "bad_dbf_header", "Fatal error", "Backtracing"] {
                #expect(!r.stderr.contains(blame), "\(c.name): blames \(blame): \(r.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: dir.file(c.out)), "\(c.name): nothing is published")
        }
    }

    @Test func oneInputNeedsAsManyDescriptorsAsSixty() throws {
        // The descriptors in use do not grow with the number of inputs: at the lowest limit that converts one
        // input, sixty convert too.
        let dir = try TemporaryDirectory()
        let (folder, _) = try Self.sixty(in: dir)
        var lowest: Int?
        for limit in 12...24 {
            let line = "$KP convert '\(folder)/p01.shp' -o one.pmtiles --max-zoom 6 --force"
            let r = try Self.run(line, limit: limit, in: dir)
            if r.status == 0 {
                lowest = limit
                break
            }
            #expect(r.status == 74, "one input under ulimit -n \(limit): \(r.stderr)")
        }
        let limit = try #require(lowest, "one input converts under some limit up to 24")
        let r = try Self.run("$KP convert '\(folder)' -o all.pmtiles --max-zoom 6", limit: limit, in: dir)
        #expect(r.status == 0, "sixty inputs under ulimit -n \(limit): \(r.stderr)")
    }
}
