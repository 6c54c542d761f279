import Foundation
import KartpackTestSupport
import Testing

/// With two threads a thinned zoom's last round runs beside the next zoom's cut-off search (`DeferredRound`) and a
/// tile searched alone tries its next probe ahead (`FitProbes`), issue 34: the package bytes are those of one
/// thread, through the real binary.
@Suite struct ThinnedZoomThreadsCommandTests {
    private var forest: [String] {
        ["avdelningar", "vagar", "fornminnen", "hansyn"].map {
            RepositoryPaths.sampleForest.appendingPathComponent("\($0).shp").path
        }
    }

    /// Tight limits thin every low zoom. With `--coalesce` the tiles a round at the fitted cut-off makes can be over
    /// the limit again (the search's trials of a zoom's first round merge nothing yet): at 3,000 bytes two deferred
    /// rounds were over a limit when this was written, so their zooms were encoded again, in order.
    @Test(arguments: [
        ["--coalesce", "--max-tile-bytes", "3000"],
        ["--coalesce", "--max-tile-features", "20"],
        ["--max-tile-bytes", "1500"],
    ])
    func twoThreadsGiveTheBytesOfOne(limits: [String]) throws {
        let dir = try TemporaryDirectory()
        var packages: [Data] = []
        var reports: [[String: Any]] = []
        for threads in ["1", "2"] {
            let out = dir.file("t\(threads)/same.pmtiles")
            try FileManager.default.createDirectory(atPath: dir.file("t\(threads)"), withIntermediateDirectories: true)
            let r = try runKartpack(
                ["convert"] + forest + [
                    "-o", out, "--min-zoom", "0", "--max-zoom", "12", "--threads", threads, "--quiet",
                    "--report", dir.file("r\(threads).json"),
                ] + limits)
            #expect(r.status == 0, "\(r.stderr)")
            packages.append(try Data(contentsOf: URL(fileURLWithPath: out)))
            let data = try Data(contentsOf: URL(fileURLWithPath: dir.file("r\(threads).json")))
            reports.append(try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:])
        }
        #expect(packages[0] == packages[1], "package bytes differ between one and two threads")
        let zooms = reports.map { ($0["zooms"] as? [[String: Any]]) ?? [] }
        func line(_ z: [String: Any]) -> String {
            let dropped = ((z["dropped"] as? [String: Any]) ?? [:]).map { "\($0.key)=\($0.value)" }.sorted()
            return "\(z["zoom"] ?? "")/\(z["features"] ?? "")/\(z["bytes"] ?? "")/\(dropped)"
        }
        #expect(zooms[0].map(line) == zooms[1].map(line), "zoom statistics differ between one and two threads")
        let thinned = zooms[0].filter { ($0["dropped"] as? [String: Any])?.isEmpty == false }
        #expect(thinned.count >= 3, "the limits thin several zooms (\(thinned.count))")
    }
}
