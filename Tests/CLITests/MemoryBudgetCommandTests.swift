import Foundation
import KartpackTestSupport
import Testing

/// `--memory-budget` and `--scratch` through the real binary (issue 10): the external sort of tile pieces gives
/// the same package bytes as the in-memory sort, cleans up, and refuses unusable scratch folders.
@Suite struct MemoryBudgetCommandTests {
    private var forest: [String] {
        ["avdelningar", "vagar", "fornminnen", "hansyn"].map {
            RepositoryPaths.sampleForest.appendingPathComponent("\($0).shp").path
        }
    }

    private func report(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
    }

    @Test(arguments: ["pmtiles", "mbtiles"])
    func aTinyBudgetSpillsManyRunsAndGivesTheSameBytes(ext: String) throws {
        let dir = try TemporaryDirectory()
        let scratch = dir.file("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        var packages: [Data] = []
        for (budget, threads) in [("2G", "1"), ("64K", "1"), ("64K", "2"), ("300K", "2")] {
            let out = dir.file("out-\(budget)-\(threads).\(ext)")
            let r = try runKartpack(
                ["convert"] + forest + [
                    "-o", out, "--min-zoom", "6", "--max-zoom", "13", "--name", "same", "--threads", threads,
                    "--memory-budget", budget, "--scratch", scratch, "--report", dir.file("r.json"), "--quiet",
                ])
            #expect(r.status == 0, "\(r.stderr)")
            packages.append(try Data(contentsOf: URL(fileURLWithPath: out)))
            let json = try report(dir.file("r.json"))
            let sort = json["sort"] as? [String: Any]
            let runs = sort?["spilledRuns"] as? Int ?? -1
            if budget == "2G" {
                #expect(runs == 0)
                #expect(sort?["scratchBytes"] as? Int == 0)
                #expect(sort?["tileScratchBytes"] as? Int == 0)
                #expect(sort?["recordScratchBytes"] as? Int == 0)
            } else {
                #expect(runs >= (budget == "64K" ? 4 : 2), "budget \(budget): \(runs) runs")
                #expect(sort?["scratchBytes"] as? Int ?? 0 > 0)
                // Finished tiles past a sixteenth of the budget wait in the scratch folder too.
                #expect(sort?["tileScratchBytes"] as? Int ?? 0 > 0)
                // So do the feature records, past a thirty-second of the budget per layer.
                if budget == "64K" { #expect(sort?["recordScratchBytes"] as? Int ?? 0 > 0) }
            }
            #expect(sort?["budgetBytes"] as? Int == (budget == "2G" ? 2 << 30 : budget == "64K" ? 65536 : 300 << 10))
            #expect(json["peakRSSBytes"] as? Int ?? 0 > 1 << 20)
        }
        #expect(Set(packages).count == 1, "package bytes differ between budgets or thread counts")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty)
    }

    @Test(arguments: ["0", "12Q", "1K", "-5M", ""])
    func aBadBudgetExits64(_ budget: String) throws {
        let dir = try TemporaryDirectory()
        let r = try runKartpack(["convert", forest[0], "-o", dir.file("x.pmtiles"), "--memory-budget", budget])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("--memory-budget"))
    }

    @Test func aMissingScratchFolderExits73BeforeAnyWork() throws {
        let dir = try TemporaryDirectory()
        let r = try runKartpack(
            ["convert"] + forest + [
                "-o", dir.file("x.pmtiles"), "--memory-budget", "64K", "--scratch", dir.file("nope"),
            ])
        #expect(r.status == 73, "\(r.stderr)")
        #expect(r.stderr.contains(dir.file("nope")) && r.stderr.contains("--scratch"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.pmtiles")))
    }

    @Test func sigtermWhileSpillingLeavesNoScratchFile() throws {
        let dir = try TemporaryDirectory()
        let scratch = dir.file("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: RepositoryPaths.kartpackBinary)
        p.arguments =
            ["convert"] + forest + [
                "-o", dir.file("x.pmtiles"), "--min-zoom", "0", "--max-zoom", "14", "--threads", "1",
                "--memory-budget", "64K", "--scratch", scratch, "--quiet",
            ]
        p.standardError = FileHandle.nullDevice
        try p.run()
        // The scratch file is open and already unlinked while the run spills.
        var sawUnlinked = false
        let deadline = Date().addingTimeInterval(20)
        while p.isRunning && Date() < deadline && !sawUnlinked {
            let fds = "/proc/\(p.processIdentifier)/fd"
            for fd in (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? [] {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\(fd)")) ?? ""
                if target.contains("x.pmtiles.data.tmp-") && target.hasSuffix("(deleted)") { sawUnlinked = true }
            }
            usleep(2_000)
        }
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(sawUnlinked, "no unlinked scratch file seen while the run spilled")
        if sawUnlinked { #expect(p.terminationStatus == 143 || p.terminationStatus == 0) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.pmtiles")) || p.terminationStatus == 0)
    }

    @Test func aPipelineMemoryBudgetIsUsedAndABadOneIsRefused() throws {
        let dir = try TemporaryDirectory()
        for (i, value) in [#""64K""#, "65536"].enumerated() {
            let json = """
                { "version": 1, "sources": [ { "path": "\(forest[0])", "layer": "stands" } ],
                  "tiles": { "minZoom": 8, "maxZoom": 13 }, "memoryBudget": \(value),
                  "output": { "path": "\(dir.file("p\(i).pmtiles"))" } }
                """
            try Data(json.utf8).write(to: URL(fileURLWithPath: dir.file("p\(i).json")))
            let r = try runKartpack(["run", dir.file("p\(i).json"), "--report", dir.file("r\(i).json"), "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            let conversion = try report(dir.file("r\(i).json"))["conversion"] as? [String: Any]
            let sort = conversion?["sort"] as? [String: Any]
            #expect(sort?["budgetBytes"] as? Int == 65536)
            #expect(sort?["spilledRuns"] as? Int ?? 0 > 0)
        }
        let bad = """
            { "version": 1, "sources": [ { "path": "\(forest[0])" } ], "memoryBudget": "lots",
              "output": { "path": "\(dir.file("bad.pmtiles"))" } }
            """
        try Data(bad.utf8).write(to: URL(fileURLWithPath: dir.file("bad.json")))
        let r = try runKartpack(["validate", dir.file("bad.json")])
        #expect(r.status != 0)
        #expect(r.stderr.contains("memoryBudget") || r.stdout.contains("memoryBudget"))
    }
}
