import Foundation
import KartpackTestSupport
import Testing

/// Crash reproducers found by the fuzzers (docs/fuzzing.md), one file each under
/// `SampleData/fuzz-seeds/regressions/{package,shapefile}/`; `scripts/fuzz-replay.sh` replays them through the fuzz
/// entry points on every test run and `scripts/fuzz-long.sh` feeds them back to the fuzzers.
///
/// Each input runs through the real `kartpack inspect` in a child process (under `timeout`), so a regression shows
/// up as a failed test (a signal or a trap instead of exit 0 or 65) instead of killing the whole test run.
@Suite struct FuzzRegressionTests {
    static let folder = RepositoryPaths.root.appendingPathComponent("SampleData/fuzz-seeds/regressions")

    /// The reproducers of one fuzz target, by file name.
    static func inputs(_ target: String) -> [String] {
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(target).path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Runs `kartpack ARGS` with a 30 s limit and no Swift backtracer (a crash should end the child quickly).
    static func inspect(_ arguments: [String]) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        return try runProcess(
            "/usr/bin/timeout", ["30", RepositoryPaths.kartpackBinary] + arguments, environment: environment)
    }

    /// The outcome must be an answer: a report (0) or a rejection (65), never a signal, trap or timeout (124).
    static func expectAnswer(
        _ result: ProcessResult, _ input: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            result.status == 0 || result.status == 65,
            "\(input): exit \(result.status)\n\(result.stderr.suffix(2000))", sourceLocation: sourceLocation)
        #expect(
            !result.stderr.contains("Fatal error"), "\(input): \(result.stderr.suffix(2000))",
            sourceLocation: sourceLocation)
    }

    /// Splits a FuzzShapefile input (flag byte, then `.shp`, `.shx`, `.dbf`, `.prj`, `.cpg`, each a 4-byte
    /// little-endian length and the bytes, cut at the end of the input) into `folder/f.*`; flag bits 0–3 say which
    /// of `.shx` … `.cpg` exist.
    static func unframe(_ bytes: [UInt8], into folder: TemporaryDirectory) throws -> String {
        let extensions = ["shp", "shx", "dbf", "prj", "cpg"]
        let flags = bytes.first ?? 0
        var at = bytes.isEmpty ? 0 : 1
        for (k, ext) in extensions.enumerated() {
            var length = 0
            if at + 4 <= bytes.count {
                length = Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
                at += 4
            } else {
                at = bytes.count
            }
            let end = min(bytes.count, at + length)
            if k == 0 || flags & (1 << (k - 1)) != 0 {
                try Data(bytes[at..<end]).write(to: URL(fileURLWithPath: folder.file("f.\(ext)")))
            }
            at = end
        }
        return folder.file("f.shp")
    }

    @Test("a package reproducer gets a report or a rejection", arguments: inputs("package"))
    func packageReproducer(_ name: String) throws {
        let dir = try TemporaryDirectory(prefix: "kartpack-fuzz-regression")
        let source = Self.folder.appendingPathComponent("package/\(name)")
        let bytes = try Data(contentsOf: source)
        for ext in ["pmtiles", "mbtiles"] {
            let path = dir.file("input.\(ext)")
            try bytes.write(to: URL(fileURLWithPath: path))
            Self.expectAnswer(try Self.inspect(["inspect", path, "--format", "json"]), "\(name) as .\(ext)")
        }
    }

    @Test("a Shapefile reproducer gets a report or a rejection", arguments: inputs("shapefile"))
    func shapefileReproducer(_ name: String) throws {
        let dir = try TemporaryDirectory(prefix: "kartpack-fuzz-regression")
        let bytes = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent("shapefile/\(name)")))
        let shp = try Self.unframe(bytes, into: dir)
        Self.expectAnswer(try Self.inspect(["inspect", shp, "--format", "json"]), name)
    }

    /// The fuzzer's own Shapefile seeds (every hostile-input class, slightly broken) through the same path, which
    /// also checks the framing above: a report accounts for every record.
    @Test("a Shapefile seed gets a balanced report or a rejection", arguments: seeds("shapefile"))
    func shapefileSeed(_ name: String) throws {
        let dir = try TemporaryDirectory(prefix: "kartpack-fuzz-seed")
        let url = Self.folder.deletingLastPathComponent().appendingPathComponent("shapefile/\(name)")
        let shp = try Self.unframe(try [UInt8](Data(contentsOf: url)), into: dir)
        let result = try Self.inspect(["inspect", shp, "--format", "json"])
        Self.expectAnswer(result, name)
        guard result.status == 0 else { return }
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let layer = try #require((report?["layers"] as? [[String: Any]])?.first, "\(name): no layer")
        let records = try #require(layer["records"] as? Int)
        let features = try #require(layer["features"] as? Int)
        let skipped = (layer["skipped"] as? [String: Int] ?? [:]).values.reduce(0, +)
        #expect(records == features + skipped, "\(name): \(records) records, \(features) features, \(skipped) skipped")
    }

    /// The committed seeds of one fuzz target, by file name.
    static func seeds(_ target: String) -> [String] {
        let path = folder.deletingLastPathComponent().appendingPathComponent(target).path
        return ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { !$0.hasPrefix(".") }
            .sorted()
    }

    /// Found by FuzzPackage: PackageInspector converted the PMTiles header's tile counts (UInt64) with `Int(_:)`,
    /// which traps above `Int.max`. Those counts are statistics: the tile listing must be the one of the intact
    /// archive (or the file is rejected).
    @Test func tileCountsAboveIntMaxKeepTheListing() throws {
        let intact = Self.folder.deletingLastPathComponent().appendingPathComponent("package/points-z12.pmtiles").path
        let patched = Self.folder.appendingPathComponent("package/inspect-tile-contents-over-int-max.pmtiles").path
        let good = try Self.inspect(["inspect", intact, "--format", "json"])
        try #require(good.status == 0, "\(good.stderr)")
        let bad = try Self.inspect(["inspect", patched, "--format", "json"])
        Self.expectAnswer(bad, "inspect-tile-contents-over-int-max.pmtiles")
        guard bad.status == 0 else { return }
        func listing(_ json: String) throws -> String {
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            let value: [String: Any] = [
                "zooms": object?["zooms"] ?? NSNull(), "tiles": object?["tiles"] ?? NSNull(),
                "largestTiles": object?["largestTiles"] ?? NSNull(),
            ]
            return String(
                decoding: try JSONSerialization.data(
                    withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
        }
        let expected = try listing(good.stdout)
        #expect(expected.contains("12/2271/1092"))
        #expect(try listing(bad.stdout) == expected)
    }
}
