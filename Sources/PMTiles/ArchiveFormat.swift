/// A tile package container: the one format enum of the project (options, writers, readers, summaries).
public enum ArchiveFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// PMTiles v3.
    case pmtiles
    /// MBTiles 1.3.
    case mbtiles

    /// The format implied by a file name's extension (case-insensitive), nil when it is neither.
    public static func from(path: String) -> ArchiveFormat? {
        let lower = path.lowercased()
        if lower.hasSuffix(".pmtiles") { return .pmtiles }
        if lower.hasSuffix(".mbtiles") { return .mbtiles }
        return nil
    }

    /// The order this format's writer needs its tiles in (what its writer's `tileOrder` says).
    public var tileOrder: TileOrder {
        switch self {
        case .pmtiles: .hilbert
        case .mbtiles: .zxy
        }
    }

    /// How this format's writer stores tiles (what its writer's `tileCompression` says).
    public var tileCompression: TileCompression { .gzip }

    /// Files named `<package><suffix>` that belong to the package and must not outlive or sit beside it: SQLite's
    /// write-ahead log, its index and the rollback journal for MBTiles (a reader that opens the file without
    /// `immutable` applies them); none for PMTiles.
    public var sidecarSuffixes: [String] {
        switch self {
        case .pmtiles: []
        case .mbtiles: ["-wal", "-shm", "-journal"]
        }
    }
}
