import Foundation
import KartpackCore
import KartpackJSON
import Publishing
import Testing
import TileArchive

@testable import ConvertEngine

/// The merge completes the metadata shard's counts of the zooms it skipped from the range shards' notes: repair
/// kinds OR-ed per feature, collapsed zooms leaving the class out of `classes_by_zoom`; a feature no part tiled at
/// a skipped zoom refuses the merge.
@Suite struct ShardFeatureNotesTests {
    /// The metadata shard of a plan split at 11, zooms 8–14: it skips 11–13.
    static func first() -> ShardFeatureNotes {
        var n = ShardFeatureNotes(holdsMetadata: true, lowestZoom: 8, skippedZooms: [11, 12, 13])
        let classes: [String?] = ["wood", "wood", "wood", "wood", "wood", "wood", "wood"]
        n.add(
            input: "stands", record: 1, repairs: [.makeValid], collapsedAt: [8], layer: "forest", zooms: 8...14,
            classes: classes)
        n.add(
            input: "stands", record: 2, repairs: [], collapsedAt: [], layer: "forest", zooms: 8...14, classes: classes)
        return n
    }

    static func metadata(_ summary: String) -> ArchiveMetadata {
        ArchiveMetadata(
            name: "forest", description: nil, attribution: nil, version: "1.0.0", type: "overlay", bounds: nil,
            center: nil, minZoom: 8, maxZoom: 14, vectorLayers: [], generator: nil,
            extra: [("kartpack", .string(summary))])
    }

    static let summary =
        #"{"inputs":{"stands":{"records":2,"written":2,"rejected":{},"repaired":{"make_valid":1}}},"#
        + #""layers":{"forest":{"features":2,"geometry":"polygon","classes":{"wood":2},"classes_by_zoom":{"#
        + #""8":{"wood":1},"9":{"wood":2},"10":{"wood":2},"11":{"wood":2},"12":{"wood":2},"13":{"wood":2},"#
        + #""14":{"wood":2}}}},"dropped_by_zoom":{}}"#

    @Test func notesRoundTripThroughBytes() throws {
        let n = Self.first()
        #expect(ShardFeatureNotes(bytes: n.bytes) == n)
        var range = ShardFeatureNotes(holdsMetadata: false, lowestZoom: 11, skippedZooms: [])
        range.add(
            input: "stands", record: 7, repairs: [.gridRepair], collapsedAt: [11, 12], layer: "forest", zooms: 8...14,
            classes: [])
        #expect(ShardFeatureNotes(bytes: range.bytes) == range)
        #expect(ShardFeatureNotes(bytes: Array(range.bytes.dropLast())) == nil)
    }

    @Test func theMergeAddsRepairsAndLeavesCollapsedClassesOut() throws {
        // Record 1: a grid repair at zoom 12 (found by the shard from 11) and nothing left at zoom 11; record 2:
        // the make_valid kind again (already counted by the first shard) from two parts.
        var a = ShardFeatureNotes(holdsMetadata: false, lowestZoom: 11, skippedZooms: [])
        a.add(
            input: "stands", record: 1, repairs: [.makeValid, .gridRepair], collapsedAt: [11], layer: "", zooms: 8...14,
            classes: [])
        a.add(input: "stands", record: 2, repairs: [.makeValid], collapsedAt: [], layer: "", zooms: 8...14, classes: [])
        var b = ShardFeatureNotes(holdsMetadata: false, lowestZoom: 13, skippedZooms: [])
        b.add(input: "stands", record: 2, repairs: [.makeValid], collapsedAt: [], layer: "", zooms: 8...14, classes: [])
        let done = try Self.first().completed(Self.metadata(Self.summary), with: [("a", a), ("b", b)])
        let text = try #require(done.extra.first { $0.key == "kartpack" }?.value.stringValue)
        #expect(text.contains(#""repaired":{"grid_repair":1,"make_valid":2}"#), "\(text)")
        #expect(text.contains(#""10":{"wood":2},"11":{"wood":1},"12":{"wood":2}"#), "\(text)")
    }

    @Test func aZoomLeftWithoutAnyClassLosesItsKey() throws {
        var a = ShardFeatureNotes(holdsMetadata: false, lowestZoom: 11, skippedZooms: [])
        for r in [1, 2] {
            a.add(input: "stands", record: r, repairs: [], collapsedAt: [12], layer: "", zooms: 8...14, classes: [])
        }
        let done = try Self.first().completed(Self.metadata(Self.summary), with: [("a", a)])
        let text = try #require(done.extra.first { $0.key == "kartpack" }?.value.stringValue)
        #expect(text.contains(#""11":{"wood":2},"13":{"wood":2}"#), "\(text)")
    }

    /// A zoom the first shard found collapsed itself (a point feature, tiled at every zoom) is not taken twice.
    @Test func aZoomTheFirstShardFoundCollapsedIsNotTakenAgain() throws {
        var first = ShardFeatureNotes(holdsMetadata: true, lowestZoom: 8, skippedZooms: [11, 12, 13])
        let classes: [String?] = ["wood", "wood", "wood", "wood", "wood", "wood", "wood"]
        for r in [1, 2] {
            first.add(
                input: "stands", record: r, repairs: r == 1 ? [.makeValid] : [], collapsedAt: r == 1 ? [11] : [],
                layer: "forest", zooms: 8...14, classes: classes)
        }
        var a = ShardFeatureNotes(holdsMetadata: false, lowestZoom: 11, skippedZooms: [])
        a.add(
            input: "stands", record: 1, repairs: [.makeValid], collapsedAt: [11], layer: "", zooms: 8...14, classes: [])
        a.add(input: "stands", record: 2, repairs: [], collapsedAt: [11], layer: "", zooms: 8...14, classes: [])
        let done = try first.completed(Self.metadata(Self.summary), with: [("a", a)])
        let text = try #require(done.extra.first { $0.key == "kartpack" }?.value.stringValue)
        #expect(text.contains(#""11":{"wood":1}"#), "\(text)")
    }

    /// Two inputs of one layer name (two folders' `stands.shp`) are apart in the notes: one's range notes do not
    /// stand for the other's features (refused until the other's come too); the repairs count under the name.
    @Test func inputsOfOneNameStayApart() throws {
        let a = ShardFeatureNotes.inputKey(name: "stands", path: "a/stands.shp")
        let b = ShardFeatureNotes.inputKey(name: "stands", path: "b/stands.shp")
        #expect(ShardFeatureNotes.inputName(a) == "stands")
        var first = ShardFeatureNotes(holdsMetadata: true, lowestZoom: 8, skippedZooms: [11, 12, 13])
        first.add(input: a, record: 1, repairs: [], collapsedAt: [], layer: "forest", zooms: 8...14, classes: [])
        first.add(input: b, record: 1, repairs: [], collapsedAt: [], layer: "forest", zooms: 8...14, classes: [])
        var range = ShardFeatureNotes(holdsMetadata: false, lowestZoom: 11, skippedZooms: [])
        range.add(input: a, record: 1, repairs: [.gridRepair], collapsedAt: [], layer: "", zooms: 8...14, classes: [])
        #expect(throws: ShardError.self) {
            _ = try first.completed(Self.metadata(Self.summary), with: [("r", range)])
        }
        range.add(input: b, record: 1, repairs: [], collapsedAt: [], layer: "", zooms: 8...14, classes: [])
        let done = try first.completed(Self.metadata(Self.summary), with: [("r", range)])
        let text = try #require(done.extra.first { $0.key == "kartpack" }?.value.stringValue)
        #expect(text.contains(#""repaired":{"grid_repair":1,"make_valid":1}"#), "\(text)")
    }

    /// A feature that no part tiled from zoom 11 (a missing part's notes, or a part tiling from 13 only) refuses.
    @Test func aFeatureNoPartTiledRefuses() throws {
        var b = ShardFeatureNotes(holdsMetadata: false, lowestZoom: 13, skippedZooms: [])
        for r in [1, 2] {
            b.add(input: "stands", record: r, repairs: [], collapsedAt: [], layer: "", zooms: 8...14, classes: [])
        }
        for others in [[], [("b", b)]] {
            #expect(throws: ShardError.self) {
                _ = try Self.first().completed(Self.metadata(Self.summary), with: others)
            }
        }
    }

    /// Nothing to complete: the metadata comes back as it was, even if the summary could not be rewritten.
    @Test func nothingChangedLeavesTheMetadataAlone() throws {
        var a = ShardFeatureNotes(holdsMetadata: false, lowestZoom: 11, skippedZooms: [])
        a.add(input: "stands", record: 1, repairs: [.makeValid], collapsedAt: [], layer: "", zooms: 8...14, classes: [])
        a.add(input: "stands", record: 2, repairs: [], collapsedAt: [], layer: "", zooms: 8...14, classes: [])
        let m = Self.metadata("{ not json")
        let done = try Self.first().completed(m, with: [("a", a)])
        #expect(done.extra.first?.value == m.extra.first?.value)
    }
}

/// The notes travel in the part file, and a merge whose range part lacks them refuses and publishes nothing.
@Suite struct ShardPartNotesTests {
    static func part(
        _ path: String, shard: Int, range: ShardKeyRange, metadata: JSONValue, notes: ShardFeatureNotes?
    ) throws {
        let header = ShardPartHeader(
            planDigest: "p", shard: shard, shards: 2, tiles: ShardTiles([range]), outputName: "forest.pmtiles",
            format: .pmtiles,
            metadata: metadata)
        _ = try ShardPart.write(path: path, header: header, order: .hilbert, notes: notes) { _ in }
    }

    @Test func aRangePartWithoutNotesRefusesTheMerge() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let split = ShardZooms.firstKey(zoom: 11, order: .hilbert)
        let metadata = ShardFeatureNotesTests.metadata(ShardFeatureNotesTests.summary).shardJSON
        let first = ShardFeatureNotesTests.first()
        try Self.part(
            dir + "/p0", shard: 0, range: ShardKeyRange(lowerBound: 0, upperBound: split), metadata: metadata,
            notes: first)
        try Self.part(
            dir + "/p1", shard: 1, range: ShardKeyRange(lowerBound: split, upperBound: nil), metadata: .null,
            notes: nil)
        let reader = try ShardPartReader(path: dir + "/p0")
        try reader.forEachTile { _, _, _ in }
        #expect(reader.notes == first)
        let out = dir + "/forest.pmtiles"
        #expect(throws: ShardError.self) {
            _ = try ShardMerger(parts: [dir + "/p0", dir + "/p1"], output: out, force: false).run()
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A part written by a Kartpack of another part format (format 1 had no feature notes) is named as such.
    @Test func aPartOfAnotherFormatSaysSo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("part-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let old = dir + "/old"
        try Data("KARTPACK-SHARD-PART 1\n\u{0}\u{0}\u{0}\u{0}".utf8).write(to: URL(fileURLWithPath: old))
        let junk = dir + "/junk"
        try Data("PMTiles\u{3}-not-a-part-at-all".utf8).write(to: URL(fileURLWithPath: junk))
        do {
            _ = try ShardPartReader(path: old)
            Issue.record("a format-1 part was read")
        } catch {
            #expect("\(error)".contains("a part of format 1, this Kartpack reads format \(ShardPart.formatVersion)"))
        }
        do {
            _ = try ShardPartReader(path: junk)
            Issue.record("junk was read as a part")
        } catch {
            #expect("\(error)".contains("no part header"))
        }
    }
}
