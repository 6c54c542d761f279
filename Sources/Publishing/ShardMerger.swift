import Foundation
import KartpackCore
import TileArchive
import ConvertEngine

/// `kartpack merge`: joins the parts of every shard of a plan into the package the one-machine build makes, byte
/// for byte: the same archive writer takes the same tiles in the same order (the parts' key ranges in key order,
/// each part's tiles in archive order) and the same metadata (every part holds it), through the same staging and
/// atomic publish.
///
/// Before anything is written the parts are checked as a set (`ShardSet`: one plan, every shard once, contiguous
/// ranges, one metadata) and against the output (the plan's package name and format); while tiles are copied each
/// is checked to be in its shard's ranges and order, and each part's checksum at its end. The metadata's counts of
/// the zooms the first shard did not tile are completed from the parts' feature notes (`ShardFeatureNotes`). Any
/// refusal leaves nothing at the output (a previous package stays as it was).
package struct ShardMerger {
    package var parts: [String]
    package var output: String
    package var force: Bool
    package var temporaryDirectory: String?

    package init(parts: [String], output: String, force: Bool, temporaryDirectory: String? = nil) {
        self.parts = parts
        self.output = output
        self.force = force
        self.temporaryDirectory = temporaryDirectory
    }

    /// Merges and publishes; returns the package's summary.
    package func run(checkCancelled: () throws -> Void = {}) throws -> ArchiveSummary {
        let readers = try parts.map { try ShardPartReader(path: $0) }
        let ordered = try ShardSet.check(readers)
        let header = ordered[0].header
        let name = (output as NSString).lastPathComponent
        guard name == header.outputName else {
            throw ShardError.wrongOutput(
                path: output,
                reason: "the plan builds \(header.outputName); merge into a file of that name (its metadata names it)")
        }
        guard ArchiveFormat.from(path: output) == header.format else {
            throw ShardError.wrongOutput(path: output, reason: "the parts hold a \(header.format.rawValue) package")
        }
        guard let metadata = ArchiveMetadata(shardJSON: header.metadata) else {
            throw ShardError.damaged(path: ordered[0].path, reason: "its package metadata cannot be read")
        }
        try OutputTarget.check(output, force: force)
        let staged = try StagedPackage(target: output, staleSidecarSuffixes: header.format.sidecarSuffixes)
        defer { staged.discard() }
        let writer: any TileArchiveWriting
        switch header.format {
        case .pmtiles:
            writer = try PMTilesWriter(path: staged.path, overwrite: true, temporaryDirectory: temporaryDirectory)
        case .mbtiles: writer = try MBTilesWriter(path: staged.path, overwrite: true)
        }
        let order = header.format.tileOrder
        let summary: ArchiveSummary
        do {
            // Every shard's ranges in key order: the package's tiles come from the parts range by range, each part
            // read once, front to back (a range shard holds one range a zoom).
            // (`ordered[i]` is shard i: `ShardSet.check`.)
            let spans = ShardSet.inKeyOrder(ordered.map { (shard: $0.header.shard, tiles: $0.header.tiles) })
            func misplaced(_ t: ShardPartReader.Tile, in part: ShardPartReader) -> ShardError {
                .damaged(path: part.path, reason: "tile \(t.tile) is outside its ranges or order")
            }
            var next = try ordered.map { try $0.nextTile() }
            var written = 0
            for span in spans {
                let part = ordered[span.shard]
                while let t = next[span.shard], span.range.contains(t.key) {
                    guard order.sortKey(t.tile) == t.key else { throw misplaced(t, in: part) }
                    try writer.write(z: t.tile.z, x: t.tile.x, y: t.tile.y, data: t.bytes)
                    next[span.shard] = try part.nextTile()
                    if let n = next[span.shard], n.key <= t.key { throw misplaced(n, in: part) }
                    written += 1
                    if written % 4096 == 0 { try checkCancelled() }
                }
            }
            // A tile left over lies in none of its part's ranges.
            for (i, t) in next.enumerated() {
                if let t { throw misplaced(t, in: ordered[i]) }
            }
            try checkCancelled()
            summary = try writer.finish(metadata: try completed(metadata, ordered))
        } catch {
            writer.abort()
            throw error
        }
        try staged.publish(overwrite: force)
        var published = summary
        published.path = output
        return published
    }

    /// The first part's metadata with the counts of the zooms its shard did not tile taken from every part's
    /// feature notes (`ShardFeatureNotes.completed`); read after the parts' tiles (the notes come before them).
    private func completed(_ metadata: ArchiveMetadata, _ parts: [ShardPartReader]) throws -> ArchiveMetadata {
        guard let first = parts.first?.notes else { return metadata }
        return try first.completed(metadata, with: parts.dropFirst().compactMap { p in p.notes.map { (p.path, $0) } })
    }
}
