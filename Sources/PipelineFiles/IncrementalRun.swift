import ConvertEngine
import Foundation
import KartpackCore
import TileArchive

/// What a `run` did with its tiles (`PipelineRunReport.incremental`, docs/run.md's *Incremental builds*).
package struct IncrementalReport: Encodable, Sendable, Equatable {
    /// True when every tile was encoded (`reason` says why); false when unchanged tiles were copied.
    package var full: Bool
    /// Why the build was full: `--full`, no previous package or tile index, a damaged or other-version index, a
    /// package that is not the one the index describes, other options, output layers, Kartpack version or output
    /// format.
    package var reason: String?
    /// Tiles with features encoded tonight, copied from the previous package, and gone since it.
    package var tilesReencoded: Int
    package var tilesCopied: Int
    package var tilesRemoved: Int
    /// Tiles of zooms thinned last night whose first round (at the cut-off inherited from the zoom above) was not
    /// encoded: what it found came from the index (counted too when the round ran again: no tile was over a limit).
    package var firstRoundTilesReplayed = 0
    /// Tiles whose signature was taken from the index without being made: every piece of the tile is of a feature
    /// last night's package had as it is (`featuresUnchanged`), as many pieces as last night, at a zoom that keeps
    /// every feature.
    package var tilesUnsigned = 0
    /// The zooms encoded whole, as a build without reuse encodes them (Pipelines/README.md, *Zooms encoded
    /// whole*): every zoom below the max of a full build that could be thinned, and on an incremental night a zoom
    /// thinned last night where the zoom above encoded whole or re-encoded at least half its tiles.
    package var zoomsEncodedWhole: [Int] = []
    /// The zooms above every zoom last night thinned, where an unchanged feature's pieces stay unread in the piece
    /// store (Pipelines/README.md, *Pieces left in the store*); the features whose pieces stayed there, and the
    /// tiles no change touched, copied without their pieces being read.
    package var zoomsUnread: [Int] = []
    package var featuresUnread = 0
    package var tilesCopiedUnread = 0
    /// The tile index written next to the package (`PACKAGE.tileindex`): its size, and its size per feature
    /// written (0 when nothing was published).
    package var indexBytes: Int
    package var indexBytesPerFeature: Double
    /// Features read back from last night's piece store (`PACKAGE.piecestore`) instead of being reprojected,
    /// repaired and tiled, and features tiled tonight (new, changed, re-classified, rejected, or every feature
    /// when the store was not used: `pieceStoreUnused` says why).
    package var featuresReused = 0
    package var featuresTiled = 0
    /// Records of the store found damaged (their features were tiled).
    package var pieceRecordsDamaged = 0
    /// Features (in their output layers; a label point counts apart) last night's package had with the same
    /// pieces and record.
    package var featuresUnchanged = 0
    package var pieceStoreUnused: String?
    /// The piece store written next to the package: its size and size per feature written (0 when none was
    /// written: `pieceStoreNotWritten` says why).
    package var pieceStoreBytes = 0
    package var pieceStoreBytesPerFeature: Double = 0
    package var pieceStoreNotWritten: String?

    /// The one line `run` prints about it.
    package var summary: String {
        let tiles = "\(tilesReencoded) tiles re-encoded, \(tilesCopied) copied, \(tilesRemoved) removed"
        return full ? "full build (\(reason ?? "")): \(tiles)" : "incremental build: \(tiles)"
    }
}

/// `run`'s incremental builds: the tile index next to the package is read before the build (`reuse`) and
/// replaced after it is published (`finish`).
package enum IncrementalRun {
    /// The piece store of a run into `output` (`PieceReuse`): last night's is read unless `full`.
    package static func pieces(output: String, full: Bool, memoryBudget: Int) -> PieceReuse {
        PieceReuse(packagePath: output, readLast: !full, limit: PieceReuse.limit(memoryBudget: memoryBudget))
    }

    /// The reuse of a run into `output`: last night's index and package, unless `full` or they cannot be used
    /// (then every tile is encoded and the reason is reported).
    /// Tells the piece store which zooms a feature unchanged since last night may leave in it (`LazyPieces`):
    /// those above every zoom last night thinned, when last night's tile index is used; with
    /// `KARTPACK_CHECK_UNSIGNED` they are read all the same and the rule checked.
    package static func leavePieces(_ reuse: TileReuse, in pieces: PieceReuse) {
        pieces.lazyZooms = reuse.lazyZooms(maxZoom: TileCoordinate.maxZoom)
        pieces.checkingLazy = reuse.checkUnsigned
    }

    package static func reuse(output: String, full: Bool) -> TileReuse {
        if full { return TileReuse(fullBecause: "--full was given") }
        guard RegularFile.kind(at: output) != nil else { return TileReuse(fullBecause: "there is no previous package") }
        let index: TileIndex
        do { index = try TileIndex.read(path: TileIndex.path(forPackage: output)) } catch {
            return TileReuse(fullBecause: error.description)
        }
        guard let file = TileDigest.ofFile(output), file.digest == index.packageDigest,
            file.length == index.packageLength
        else {
            return TileReuse(fullBecause: "the package is not the one its tile index describes")
        }
        do { return TileReuse(index: index, package: try openTileArchive(path: output)) } catch {
            return TileReuse(fullBecause: "the previous package cannot be read: \(error)")
        }
    }

    /// Says what the build did and, when it was published, writes its index next to the package (atomically; an
    /// index that cannot be written is removed, so the next night builds in full rather than trust it).
    package static func finish(
        _ reuse: TileReuse, pieces: PieceReuse, output: String, featuresWritten: Int, published: Bool
    ) -> IncrementalReport {
        let counts = reuse.counts
        var report = IncrementalReport(
            full: reuse.fullReason != nil, reason: reuse.fullReason, tilesReencoded: counts.reencoded,
            tilesCopied: counts.copied, tilesRemoved: counts.removed,
            firstRoundTilesReplayed: counts.firstRoundReplayed, tilesUnsigned: counts.unsigned,
            zoomsEncodedWhole: counts.wholeZooms, indexBytes: 0, indexBytesPerFeature: 0)
        (report.zoomsUnread, report.featuresUnread) = (counts.unreadZooms, counts.featuresUnread)
        report.tilesCopiedUnread = counts.copiedUnread
        let store = pieces.finish(published: published)
        (report.featuresReused, report.featuresTiled) = (pieces.reused, pieces.tiled)
        report.pieceRecordsDamaged = pieces.damaged
        report.featuresUnchanged = pieces.unchanged
        report.pieceStoreUnused = pieces.unusedReason
        (report.pieceStoreBytes, report.pieceStoreNotWritten) = (store.bytes, store.problem)
        report.pieceStoreBytesPerFeature = (Double(store.bytes) / Double(max(1, featuresWritten)) * 10).rounded() / 10
        guard published else { return report }
        let path = TileIndex.path(forPackage: output)
        var index = reuse.index(features: featuresWritten)
        guard let file = TileDigest.ofFile(output) else {
            _ = unlink(path)
            return report
        }
        index.packageDigest = file.digest
        index.packageLength = file.length
        let bytes = index.encoded()
        do { try index.write(to: path) } catch {
            _ = unlink(path)
            return report
        }
        report.indexBytes = bytes.count
        report.indexBytesPerFeature = (Double(bytes.count) / Double(max(1, featuresWritten)) * 100).rounded() / 100
        return report
    }
}
