import KartpackCore

/// Opens a package for reading: by its extension (`.pmtiles`, `.mbtiles`, any case), and for any other name by
/// its content (a PMTiles header, else an SQLite file).
/// - Throws: `.cannotOpen` (missing, unreadable, not a regular file), `.invalidArchive`, `.unsupported`.
public func openTileArchive(path: String) throws(TileArchiveError) -> any TileArchiveReading {
    switch ArchiveFormat.from(path: path) {
    case .pmtiles: return try PMTilesReader(path: path)
    case .mbtiles: return try MBTilesReader(path: path)
    case nil:
        do throws(TileArchiveError) {
            return try PMTilesReader(path: path)
        } catch {
            if case .cannotOpen = error { throw error }
            return try MBTilesReader(path: path)
        }
    }
}
