import Foundation
import KartpackTestSupport
import Testing

/// Each input is opened once per run (issue 33): the input probe's readers are the ones the read phase reads
/// (`OpenedLayers`). Counted with `strace` on the real binary: every `openat` of each `.shp` and `.dbf`. A data pass
/// that needs every record before the read (`--id-policy skip` with an id field, `--max-zoom auto`) opens its own
/// reader: one more each, and no more.
@Suite struct InputOpenCountTests {
    static let layers = ["avdelningar", "vagar", "fornminnen"]

    /// The `openat` calls of the run per sample file name (`avdelningar.shp` → 1), the CRS child included.
    static func opens(_ extra: [String], out: String) throws -> [String: Int] {
        let dir = try TemporaryDirectory(prefix: "open-count")
        let trace = dir.file("trace")
        let inputs = layers.map { RepositoryPaths.sampleForest.appendingPathComponent("\($0).shp").path }
        let r = try runProcess(
            "/usr/bin/strace",
            ["-f", "-qq", "-e", "trace=openat", "-o", trace, RepositoryPaths.kartpackBinary, "convert"] + inputs
                + ["-o", dir.file(out), "--quiet"] + extra)
        try #require(r.status == 0, "\(r.stderr)")
        var counts: [String: Int] = [:]
        for line in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n") {
            guard let start = line.firstIndex(of: "\""),
                let end = line[line.index(after: start)...].firstIndex(of: "\"")
            else { continue }
            let name = (String(line[line.index(after: start)..<end]) as NSString).lastPathComponent
            counts[name, default: 0] += 1
        }
        return counts
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")))
    func aConvertOpensEachInputOnce() throws {
        let counts = try Self.opens(["--max-zoom", "10"], out: "once.pmtiles")
        for layer in Self.layers {
            #expect(counts["\(layer).shp"] == 1, "\(layer).shp: \(counts["\(layer).shp"] ?? 0) opens")
            #expect(counts["\(layer).dbf"] == 1, "\(layer).dbf: \(counts["\(layer).dbf"] ?? 0) opens")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")))
    func aPassOverEveryRecordBeforeTheReadOpensItsOwnReader() throws {
        let counts = try Self.opens(["--max-zoom", "auto"], out: "auto.pmtiles")
        for layer in Self.layers {
            #expect(counts["\(layer).shp"] == 2, "\(layer).shp: \(counts["\(layer).shp"] ?? 0) opens")
        }
    }
}
