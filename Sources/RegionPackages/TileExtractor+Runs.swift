import KartpackCore
import TileArchive
import ConvertEngine

extension TileExtractor {
    /// Most tiles one extraction copies (each is held in memory until the part is written, ~40 bytes apiece
    /// besides blobs that runs share).
    static let maxTiles = 1 << 23
    /// Most tile ids and area tiles looked at while expanding run-length entries.
    static let maxRunWork = 1 << 27

    /// Visits every tile of `source` up to `maxZoom` that touches the area, with its stored bytes; `body` returns
    /// false to stop.
    ///
    /// A PMTiles run-length entry stands for `runLength` consecutive tiles sharing one blob: each of its tiles that
    /// touches the area is visited, not only the run's first tile (which may lie outside the area).
    /// - Throws: `too_many_tiles` (exit 65) past `maxTiles` tiles or `maxRunWork` ids looked at, or the reader's
    ///   error.
    static func forEachTileTouching(
        _ test: TileTest, in source: any TileArchiveReading, maxZoom: Int,
        _ body: (TileCoordinate, [UInt8]) -> Bool
    ) throws {
        var count = 0
        func tooMany(_ what: String) -> InputRejection {
            InputRejection(
                code: .tooManyTiles,
                message: "\(source.path): the area holds more than \(what); extract a smaller area or fewer zooms")
        }
        guard let pm = source as? PMTilesReader else {
            var overflow = false
            try source.forEachStoredTile { t, bytes in
                guard t.z <= maxZoom, test.touches(t) else { return true }
                count += 1
                guard count <= maxTiles else {
                    overflow = true
                    return false
                }
                return body(t, bytes)
            }
            if overflow { throw tooMany("\(maxTiles) tiles") }
            return
        }
        var budget = maxRunWork
        var failure: (any Error)?
        try pm.forEachEntry { e in
            guard e.key.z <= maxZoom else { return true }
            var blob: [UInt8]?
            let completed = PMTilesTileID.forEachTile(
                inRun: e.entry.tileID, count: UInt64(e.entry.runLength), maxZoom: maxZoom, budget: &budget,
                within: test.candidates(zoom:)
            ) { t in
                guard test.touches(t) else { return true }
                count += 1
                guard count <= maxTiles else {
                    failure = tooMany("\(maxTiles) tiles")
                    return false
                }
                do throws(TileArchiveError) {
                    if blob == nil { blob = try pm.data(for: e) }
                } catch {
                    failure = error
                    return false
                }
                return body(t, blob ?? [])
            }
            if budget < 0, failure == nil { failure = tooMany("\(maxRunWork) candidate tiles in run-length entries") }
            return completed
        }
        if let failure { throw failure }
    }
}

extension TileExtractor.TileTest {
    /// The tiles at zoom `z` whose boxes may touch the area: its covering range grown by one tile each way (the
    /// range is half-open at tile edges, `touches` is not).
    package func candidates(zoom z: Int) -> TileRange? {
        guard let r = SphericalMercator.tileRange(covering: box, zoom: z) else { return nil }
        let last = (1 << z) - 1
        return TileRange(
            z: z, minX: max(0, r.minX - 1), minY: max(0, r.minY - 1), maxX: min(last, r.maxX + 1),
            maxY: min(last, r.maxY + 1))
    }
}
