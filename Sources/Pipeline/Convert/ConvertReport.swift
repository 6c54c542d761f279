import KartpackCore

/// The outcome of `kartpack convert`: what `--report FILE.json` holds and the end-of-run summary shows.
/// Keys are documented in `docs/convert.md`.
public struct ConvertReport: Codable, Sendable {
    /// Counts for one input file.
    public struct Input: Codable, Sendable {
        public var path: String
        public var layer: String
        public var crs: String?
        public var encoding: String?
        /// Records in the file (index entries).
        public var records: Int
        /// Features present in the package at the layer's max zoom.
        public var written: Int
        /// Records not written, by reason code: `records = written + Σ rejected`.
        public var rejected: [String: Int]
        /// Features repaired, by kind.
        public var repaired: [String: Int]
        /// Attribute values stored as null, by reason.
        public var coercedToNull: [String: Int]
        /// Features written per style class (the class at the feature's highest zoom; `""` for none).
        public var classes: [String: Int]
        /// Set when the whole file was rejected.
        public var error: String?
        /// The stable reason code of `error` (`missing_prj`, `empty_layer`, `bad_dbf_header`, …).
        public var errorCode: String?
    }
    /// Tiles and drops at one zoom level.
    public struct Zoom: Codable, Sendable {
        public var zoom: Int
        public var tiles: Int
        public var bytes: Int
        public var largestTileBytes: Int
        public var features: Int
        /// Features left out of this zoom, by reason (`collapsed`, `dropped_by_size_limit`,
        /// `dropped_by_feature_limit`).
        public var dropped: [String: Int]
        /// Fraction of features kept by the tile-limit thinning at this zoom (1 = all).
        public var keptFraction: Double
        /// Tiles written above the size or feature limit (only at max zoom, where nothing is dropped).
        public var tilesOverLimit: Int
    }

    public var kartpack: String
    public var output: String
    public var format: String
    public var inputs: [Input]
    public var featuresRead: Int
    public var featuresWritten: Int
    public var rejected: [String: Int]
    public var repaired: [String: Int]
    public var zooms: [Zoom]
    public var tiles: Int
    public var tileContents: Int
    public var bytes: Int
    public var seconds: Double
    /// Wall time per stage in seconds: `features` (read, reproject, tile), `sort`, `encode`, `write`.
    public var timings: [String: Double]
    /// Every warning code with its count.
    public var warnings: [String: Int]
    public var exitCode: Int32
    /// False when nothing was written (every input rejected or no feature left).
    public var published: Bool
}

extension Dictionary where Key == String, Value == Int {
    /// Adds another count table into this one.
    mutating func add(_ other: [String: Int]) {
        for (k, v) in other { self[k, default: 0] += v }
    }
}
