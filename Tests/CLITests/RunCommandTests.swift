import Foundation
import KartpackTestSupport
import Testing

/// `kartpack run`: nightly behaviour with real processes.
@Suite struct RunCommandTests {
    /// A pipeline in its own folder with copies of two sample layers, so tests can change input bytes.
    private func makePipeline(
        _ dir: TemporaryDirectory, maxZoom: Int = 13, extra: String = "", layers: [String] = ["vagar", "fornminnen"]
    ) throws -> String {
        let data = dir.file("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        for layer in layers {
            for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
                try FileManager.default.copyItem(
                    atPath: RepositoryPaths.sampleForest.appendingPathComponent("\(layer).\(ext)").path,
                    toPath: "\(data)/\(layer).\(ext)")
            }
        }
        let json = """
            { "version": 1,
              "sources": [ \(layers.map { #"{ "path": "data/\#($0).shp", "layer": "\#($0)" "#
                  + #"}"# }.joined(separator: ", ")) ],
              "tiles": { "minZoom": 8, "maxZoom": \(maxZoom) },
              "output": { "path": "out/plan.pmtiles", "name": "Test plan" }\(extra) }
            """
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        let path = dir.file("plan.json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test func buildsThenSkipsWhenUpToDateAndRebuildsAfterAnInputChange() throws {
        let dir = try TemporaryDirectory()
        let plan = try makePipeline(dir)
        let out = dir.file("out/plan.pmtiles")
        let first = try runKartpack(["run", plan, "--report", dir.file("r1.json")])
        #expect(first.status == 0, "\(first.stderr)")
        let built = try bytes(out)
        let report = try JSONSerialization.jsonObject(with: bytes(dir.file("r1.json"))) as? [String: Any]
        #expect(report?["upToDate"] as? Bool == false)
        #expect((report?["inputs"] as? [[String: Any]])?.count == 10)
        #expect((report?["inputs"] as? [[String: Any]])?.allSatisfy { ($0["sha256"] as? String)?.count == 64 } == true)

        let second = try runKartpack(["run", plan])
        #expect(second.status == 0)
        #expect(second.stderr.contains("up to date"))
        #expect(try bytes(out) == built)

        // One byte of one attribute changes: rebuilt.
        let dbf = dir.file("data/vagar.dbf")
        var d = try bytes(dbf)
        d[d.count - 3] = d[d.count - 3] == 0x41 ? 0x42 : 0x41
        try d.write(to: URL(fileURLWithPath: dbf))
        let third = try runKartpack(["run", plan, "--quiet"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try bytes(out) != built)

        let forced = try runKartpack(["run", plan, "--force", "--quiet"])
        #expect(forced.status == 0)
        let dry = try runKartpack(["run", plan, "--dry-run", "--set", "tiles.maxZoom=12"])
        #expect(dry.status == 0)
        #expect(dry.stderr.contains("dry run"))
    }

    @Test func aSecondConcurrentRunExits75AtOnce() throws {
        let dir = try TemporaryDirectory()
        let plan = try makePipeline(dir)
        let lock = dir.file("out/plan.pmtiles.lock")
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["-n", lock, "sleep", "20"]
        try holder.run()
        defer { holder.terminate() }
        Thread.sleep(forTimeInterval: 0.5)
        let start = Date()
        let r = try runKartpack(["run", plan])
        #expect(r.status == 75, "\(r.stderr)")
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(r.stderr.contains("lock"))
    }

    @Test func killAndTermLeaveThePreviousPackageIntact() throws {
        let dir = try TemporaryDirectory()
        // Municipalities down to zoom 18 take about 4 s with one thread on a quiet machine (zoom 17 took about 1 s
        // by the eighth session, too close to the kill after 1 s): long enough to be interrupted.
        let plan = try makePipeline(dir, maxZoom: 18, layers: ["kommuner", "vagar"])
        let out = dir.file("out/plan.pmtiles")
        #expect(try runKartpack(["run", plan, "--set", "tiles.maxZoom=10", "--quiet"]).status == 0)
        let previous = try bytes(out)
        for signal in [SIGKILL, SIGTERM] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: RepositoryPaths.kartpackBinary)
            p.arguments = ["run", plan, "--quiet", "--threads", "1"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            Thread.sleep(forTimeInterval: 1.0)
            kill(p.processIdentifier, signal)
            p.waitUntilExit()
            #expect(
                p.terminationReason == (signal == SIGKILL ? .uncaughtSignal : .exit), "the run ended before the signal")
            #expect(try bytes(out) == previous, "signal \(signal)")
            if signal == SIGTERM {
                #expect(p.terminationStatus == 143, "SIGTERM exit status")
                let left = try FileManager.default.contentsOfDirectory(atPath: dir.file("out")).filter {
                    $0.contains(".tmp-")
                }
                #expect(left.isEmpty, "\(left)")
            }
            let info = try runKartpack(["inspect", out, "--format", "json"])
            #expect(info.status == 0)
        }
    }

    @Test func badPipelinesExit78WithTheJSONPath() throws {
        let dir = try TemporaryDirectory()
        let plan = try makePipeline(dir, extra: #", "tiles2": {}"#)
        let r = try runKartpack(["run", plan])
        #expect(r.status == 78)
        #expect(r.stderr.contains("tiles2"))
        let v = try runKartpack(["validate", plan])
        #expect(v.status == 78)
        let okDir = try TemporaryDirectory()
        let ok = try makePipeline(okDir)
        let good = try runKartpack(["validate", ok])
        #expect(good.status == 0, "\(good.stdout)")
        let set = try runKartpack(["validate", ok, "--set", "tiles.maxZom=3"])
        #expect(set.status == 78)
        #expect(set.stdout.contains("maxZom"))
    }

    @Test func jsonLogLinesAreJSON() throws {
        let dir = try TemporaryDirectory()
        let plan = try makePipeline(dir)
        let r = try runKartpack(["run", plan, "--log-format", "json"])
        #expect(r.status == 0)
        let lines = r.stderr.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(obj?["level"] != nil && obj?["message"] != nil)
        }
    }

    @Test func aFullDiskIsAClearErrorAndTheOldPackageStays() throws {
        let dir = try TemporaryDirectory()
        for ext in ["pmtiles", "mbtiles"] {
            let out = dir.file("f.\(ext)")
            let inputs = ["vagar", "fornminnen", "avdelningar"].map {
                RepositoryPaths.sampleForest.appendingPathComponent("\($0).shp").path
            }
            #expect(try runKartpack(["convert"] + inputs + ["-o", out, "--max-zoom", "10", "--quiet"]).status == 0)
            let old = try bytes(out)
            // RLIMIT_FSIZE makes writes past 50 kB fail with EFBIG, as a full disk fails them with ENOSPC.
            let r = try runProcess(
                "/usr/bin/prlimit",
                ["--fsize=50000", RepositoryPaths.kartpackBinary, "convert"] + inputs
                    + ["-o", out, "--max-zoom", "14", "--force", "--quiet"])
            #expect(r.status == 74, "\(ext): \(r.stderr)")
            #expect(try bytes(out) == old)
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
                $0.contains(".tmp-") || $0.hasSuffix("-journal")
            }
            #expect(left.isEmpty, "\(left)")
        }
    }
}
