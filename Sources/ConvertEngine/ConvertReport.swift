import KartpackCore

/// The outcome of `kartpack convert`: what `--report FILE.json` holds and the end-of-run summary shows.
/// Keys are documented in `docs/convert.md`.
package struct ConvertReport: Codable, Sendable {
    /// Counts for one input file.
    package struct Input: Codable, Sendable {
        package var path: String
        package var layer: String
        package var crs: String?
        package var encoding: String?
        /// Records in the file (index entries).
        package var records: Int
        /// Features present in the package at the layer's max zoom.
        package var written: Int
        /// Records not written, by reason code: `records = written + Σ rejected`.
        package var rejected: [ReasonCode: Int]
        /// Features repaired, by kind.
        package var repaired: [ReasonCode: Int]
        /// Attribute values stored as null, by reason.
        package var coercedToNull: [ReasonCode: Int]
        /// Features written per style class (the class at the feature's highest zoom; `""` for none).
        package var classes: [String: Int]
        /// Set when the whole file was rejected.
        package var error: String?
        /// The stable reason code of `error` (`missing_prj`, `empty_layer`, `bad_dbf_header`, …).
        package var errorCode: ReasonCode?
        /// For a rejected file, where `records` comes from: `reader` (the file opened, then failed), `shx`, `shp`
        /// (a scan of its record headers) or `dbf` (its header), or `unknown` when no count could be read and
        /// `records` is 0. Absent for a file that was read.
        package var recordsSource: String? = nil
        /// In a clipped run (`--clip`, `--bbox`, a region package), the records found inside the clip region: those
        /// written plus those rejected after the clip stage left something of them. These, not the whole file,
        /// are the counts in the package's metadata, so a region's package depends only on its own features;
        /// records clipped away (`outside_region`) or rejected before the clip are counted above only.
        package var insideClip: InsideClip? = nil
        /// In a shard of a plan, the records whose features have no piece in the shard's tiles (`ShardFootprint`):
        /// not tiled here, so `records = written + Σ rejected + outsideShard`.
        package var outsideShard: Int? = nil
    }
    /// The records of an input inside the clip region: `records = written + Σ rejected`.
    package struct InsideClip: Codable, Sendable, Equatable {
        package var records: Int
        package var written: Int
        package var rejected: [ReasonCode: Int]
        /// Repairs made by the pipeline to the features written (read-time repairs are counted per file above).
        package var repaired: [ReasonCode: Int]
    }
    /// Tiles and drops at one zoom level.
    package struct Zoom: Codable, Sendable {
        package var zoom: Int
        package var tiles: Int
        package var bytes: Int
        package var largestTileBytes: Int
        package var features: Int
        /// Features left out of this zoom, by reason (`dropped_by_size_limit`, `dropped_by_feature_limit`,
        /// `dropped_by_max_points`).
        package var dropped: [ReasonCode: Int]
        /// Fraction of features kept by the tile-limit thinning at this zoom (1 = all).
        package var keptFraction: Double
        /// Tiles written above the size or feature limit (where nothing is dropped: the max zoom, or features at their
        /// own highest zoom).
        package var tilesOverLimit: Int
        /// Polygon pieces that kept their unsimplified rings because the shared-border simplification of their tile
        /// and layer failed the validity guard (absent with `--no-shared-borders`).
        package var sharedBorderFallbacks: Int? = nil
        /// Small-feature reduction per output layer: pieces left out and pieces drawn as a square (absent when no
        /// piece of the zoom was small, or with `--no-small-features`).
        package var smallFeatures: [String: SmallFeatures]? = nil
        /// Features left out by the tile limits whose area or length was merged into a kept neighbour in at least
        /// one tile (absent without `--coalesce`); not counted in `dropped`.
        package var coalesced: Int? = nil
        /// Protected features (`thinning: never`) the tile limits left out, because the protected features of a
        /// tile alone were over a limit (counted in `dropped` too; absent when none was).
        package var protectedDropped: Int? = nil
    }

    /// What small-feature reduction did in one layer at one zoom (counted per tile piece, like `features`).
    package struct SmallFeatures: Codable, Sendable, Equatable {
        /// Small pieces left out.
        package var reduced: Int
        /// Small pieces drawn as a square (polygons) or a dash (lines) of the small-feature size.
        package var keptAsPixel: Int
    }

    package var kartpack: String
    package var output: String
    package var format: String
    package var inputs: [Input]
    package var featuresRead: Int
    package var featuresWritten: Int
    package var rejected: [ReasonCode: Int]
    package var repaired: [ReasonCode: Int]
    package var zooms: [Zoom]
    package var tiles: Int
    package var tileContents: Int
    package var bytes: Int
    package var seconds: Double
    /// Wall time per stage in seconds: `features` (read, reproject, tile), `sort`, `encode`, `write`.
    package var timings: [String: Double]
    /// Every warning code with its count.
    package var warnings: [ReasonCode: Int]
    package var exitCode: Int32
    /// False when nothing was written (every input rejected or no feature left).
    package var published: Bool
    /// The external sort of tile pieces (absent when the run stopped before it).
    package var sort: Sort?
    /// The zoom `--max-zoom auto` chose and why (absent without `auto`).
    package var maxZoomChosen: MaxZoomChoice?
    /// The process's peak resident memory in bytes at the end of the run (`getrusage`, children not included).
    package var peakRSSBytes: Int?

    /// What the *order* phase did with the memory budget.
    package struct Sort: Codable, Sendable {
        /// The memory budget for tile pieces (`--memory-budget`).
        package var budgetBytes: Int
        /// Sorted runs written to the scratch folder (0: everything fitted in memory).
        package var spilledRuns: Int
        /// Bytes written to the scratch file (after compression).
        package var scratchBytes: Int
        /// Bytes of finished tiles written to the scratch folder while they waited to be published (0: they were
        /// held in memory, up to a sixteenth of the budget).
        package var tileScratchBytes = 0
        /// Bytes of coded feature records written to the scratch folder once a layer's records passed a
        /// thirty-second of the budget (0: they were held in memory).
        package var recordScratchBytes = 0
    }

    /// Creates a value from each of its stored properties.
    package init(
        kartpack: String,
        output: String,
        format: String,
        inputs: [Input],
        featuresRead: Int,
        featuresWritten: Int,
        rejected: [ReasonCode: Int],
        repaired: [ReasonCode: Int],
        zooms: [Zoom],
        tiles: Int,
        tileContents: Int,
        bytes: Int,
        seconds: Double,
        timings: [String: Double],
        warnings: [ReasonCode: Int],
        exitCode: Int32,
        published: Bool,
        sort: Sort? = nil,
        maxZoomChosen: MaxZoomChoice? = nil,
        peakRSSBytes: Int? = nil
    ) {
        self.kartpack = kartpack
        self.output = output
        self.format = format
        self.inputs = inputs
        self.featuresRead = featuresRead
        self.featuresWritten = featuresWritten
        self.rejected = rejected
        self.repaired = repaired
        self.zooms = zooms
        self.tiles = tiles
        self.tileContents = tileContents
        self.bytes = bytes
        self.seconds = seconds
        self.timings = timings
        self.warnings = warnings
        self.exitCode = exitCode
        self.published = published
        self.sort = sort
        self.maxZoomChosen = maxZoomChosen
        self.peakRSSBytes = peakRSSBytes
    }
}

extension Dictionary where Value == Int {
    /// Adds another count table into this one.
    package mutating func add(_ other: [Key: Int]) {
        for (k, v) in other { self[k, default: 0] += v }
    }
}
