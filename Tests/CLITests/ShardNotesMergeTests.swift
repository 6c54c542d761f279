import Foundation
import KartpackJSON
import KartpackTestSupport
import Testing

/// Split below the max zoom, shard 0 makes no pieces at the zooms it leaves to the range shards, so its own counts
/// there are short; the merge completes them from the parts' feature notes into the one-machine package.
@Suite struct ShardNotesMergeTests {
    /// The `kartpack` run summary in a part's header (shard 0's: the metadata before the merge completes it).
    static func summary(ofPart path: String) throws -> String {
        let d = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let start = "KARTPACK-SHARD-PART 1\n".utf8.count
        let n = d[start..<start + 4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        let header = try JSONParser.parse(Array(d[start + 4..<start + 4 + n]))
        let extra = header["metadata"]?["extra"]?.arrayValue ?? []
        return extra.first { $0.arrayValue?.first?.stringValue == "kartpack" }?.arrayValue?[1].stringValue ?? ""
    }

    /// The forest sample with its stylesheet, zooms 6–14 split at 11: an avdelningar stand is grid-repaired only at
    /// a zoom from 11 up, which shard 0 does not tile; the merge counts it as one machine does.
    @Test func theMergeCountsTheRepairsShardZeroDidNotSee() throws {
        let dir = try TemporaryDirectory()
        let inputs = try FileManager.default.contentsOfDirectory(atPath: ShardCommandTests.sample)
            .filter { $0.hasSuffix(".shp") }.sorted().map { ShardCommandTests.sample + "/" + $0 }
        let options = [
            "--min-zoom", "6", "--max-zoom", "14", "--style", RepositoryPaths.root.path + "/SampleData/forest.kss",
        ]
        let expected = try ShardCommandTests.whole(inputs, name: "forest.pmtiles", options: options, in: dir)
        let plan = dir.file("plan.json")
        let out = dir.file("forest.pmtiles")
        let p = try runKartpack(
            ["plan"] + inputs + ["-o", out] + options + ["--shards", "4", "--plan", plan, "--split-zoom", "11"])
        #expect(p.status == 0, "\(p.stderr)")
        var parts: [String] = []
        for i in 0..<4 {
            let part = dir.file("part-\(i).kpart")
            let r = try runKartpack(["convert", "--plan", plan, "--shard", "\(i)/4", "-o", part, "--quiet"])
            #expect(r.status == 0, "shard \(i): \(r.stderr)")
            parts.append(part)
        }
        try? FileManager.default.removeItem(atPath: out)
        let m = try runKartpack(["merge"] + parts + ["-o", out])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == expected)
        // Shard 0's own count is short by the repair found only at zooms 11–13.
        let own = try Self.summary(ofPart: parts[0])
        let short = #""avdelningar":{"records":129,"written":129,"rejected":{},"repaired":{"grid_repair":5}}"#
        #expect(own.contains(short), "\(own.prefix(300))")
    }
}
