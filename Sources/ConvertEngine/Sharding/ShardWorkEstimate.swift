import KartpackCore
import TileArchive

/// What a plan knows of the work in each tile before any feature is read: from every record's stored box
/// (projected to Web Mercator), vertex and part counts and attribute bytes (`ShardPlanner.estimateWork`), the
/// features that reach each tile of each zoom and an upper bound of the bytes they could encode to there.
///
/// Each feature is tallied at its *level*: the highest zoom at which its extent, grown by the tile buffer, covers
/// at most `levelTiles` tiles (the max zoom for nearly every feature), once in each of those tiles. A tile's tally
/// at a lower zoom is the sum of its children's and its own (a feature in two children counts twice: the sums only
/// err high). A feature above its level — larger than a few tiles there — is counted in every tile of every zoom
/// above it (`everywhere`), so the densest tile can only be overestimated; it adds nothing to the ranges' weights
/// above its level (few features are that large, and a range only holds more or less of them).
///
/// Two uses: the range shards' cut points by estimated feature pieces (`cellWeights`, `ShardSplitter`), and the
/// lowest zoom the plan may split at without a tile over the limits (`lowestUnthinnedZoom`).
package struct ShardWorkEstimate: Sendable {
    /// Tiles a feature may cover at its level.
    static let levelTiles = 4

    /// One zoom's tiles: the features that reach them and the bytes bound.
    struct Tally: Sendable {
        var features = 0
        var bytes = 0
    }

    package let zooms: ClosedRange<Int>
    let buffer: Double
    let extent: Int
    /// Per zoom (index `z - zooms.lowerBound`), the features tallied at that level, by packed column and row.
    private var levels: [[UInt64: Tally]]
    /// Per zoom, what features below their level add to every tile of it.
    private var everywhere: [Tally]
    /// Features added.
    package private(set) var features = 0

    /// An empty estimate for `zooms`, with the tile `buffer` and `extent` of the build (`ConvertOptions`).
    package init(zooms: ClosedRange<Int>, buffer: Double, extent: Int) {
        self.zooms = zooms
        self.buffer = buffer
        self.extent = extent
        levels = Array(repeating: [:], count: zooms.count)
        everywhere = Array(repeating: Tally(), count: zooms.count)
    }

    static func pack(_ x: Int, _ y: Int) -> UInt64 { UInt64(UInt32(x)) << 32 | UInt64(UInt32(y)) }

    /// Adds a feature: its extent in Web Mercator metres, its vertices and parts (rings or lines) and the most
    /// bytes its attributes can take in a tile (`attributeBytes`).
    package mutating func add(box: Bounds, points: Int, parts: Int, attributeBytes: Int) {
        guard !box.isEmpty, box.minX.isFinite, box.maxX.isFinite, box.minY.isFinite, box.maxY.isFinite else { return }
        features += 1
        var level = zooms.upperBound
        var tiles = range(box, zoom: level)
        while let t = tiles, t.count > Self.levelTiles, level > zooms.lowerBound {
            level -= 1
            tiles = range(box, zoom: level)
        }
        let size = max(box.maxX - box.minX, box.maxY - box.minY)
        let bytes = Self.bytesBound(size: size, zoom: level, extent: extent, points: points, parts: parts)
        let tally = Tally(features: 1, bytes: bytes + attributeBytes)
        if let t = tiles, t.count <= Self.levelTiles {
            let i = level - zooms.lowerBound
            for tile in t {
                let k = Self.pack(tile.x, tile.y)
                levels[i][k, default: Tally()].features += tally.features
                levels[i][k, default: Tally()].bytes += tally.bytes
            }
        } else {
            level = zooms.lowerBound - 1  // larger than a few tiles even at the lowest zoom
        }
        for z in max(level + 1, zooms.lowerBound)..<(zooms.upperBound + 1) {
            everywhere[z - zooms.lowerBound].features += tally.features
            everywhere[z - zooms.lowerBound].bytes += tally.bytes
        }
    }

    /// The tiles of `zoom` a feature's extent, grown by the buffer and two tile units, reaches.
    func range(_ box: Bounds, zoom z: Int) -> TileRange? {
        let unit = SphericalMercator.tileSize(zoom: z) / Double(extent)
        return SphericalMercator.tileRange(covering: box.expanded(by: (buffer + 2) * unit), zoom: z)
    }

    /// The most bytes a feature's geometry can encode to in one tile of `zoom`: each vertex two zigzag varints of a
    /// delta no longer than the feature (in tile units; at most the tile and its buffer, a clipped piece's span),
    /// each part a command and a count at each end, and the feature's own framing.
    static func bytesBound(size: Double, zoom z: Int, extent: Int, points: Int, parts: Int) -> Int {
        let units = size / (SphericalMercator.tileSize(zoom: z) / Double(extent))
        let span = min(units, Double(3 * extent)) + 2
        let coordinate = span < 64 ? 1 : span < 8192 ? 2 : 3
        return points * 2 * coordinate + parts * 8 + 24
    }

    /// Every zoom's tallies with the children's summed in (the lowest zoom first), before `everywhere`.
    private func summed() -> [[UInt64: Tally]] {
        var out = levels
        for i in stride(from: out.count - 1, to: 0, by: -1) {
            for (k, t) in out[i] {
                let parent = Self.pack(Int(k >> 32) / 2, Int(k & 0xffff_ffff) / 2)
                out[i - 1][parent, default: Tally()].features += t.features
                out[i - 1][parent, default: Tally()].bytes += t.bytes
            }
        }
        return out
    }

    /// The densest tile of each zoom (the lowest first): the most features and the most bytes any one tile can
    /// hold, as the estimate bounds them.
    package func densest() -> [(zoom: Int, features: Int, bytes: Int)] {
        summed().enumerated().map { i, tiles in
            let top = tiles.values.reduce(Tally()) {
                Tally(features: max($0.features, $1.features), bytes: max($0.bytes, $1.bytes))
            }
            return (zooms.lowerBound + i, top.features + everywhere[i].features, top.bytes + everywhere[i].bytes)
        }
    }

    /// The lowest zoom from which up the densest tile's bounds stay under `maxFeatures` and `maxBytes` times
    /// `margin` at every zoom (nil: not even at the max zoom). The bounds only grow towards the lower zooms, so
    /// every zoom above the answer is under them too.
    package func lowestUnthinnedZoom(maxFeatures: Int, maxBytes: Int, margin: Double) -> Int? {
        var lowest: Int?
        for d in densest().reversed() {
            guard Double(d.features) <= Double(maxFeatures) * margin, Double(d.bytes) <= Double(maxBytes) * margin
            else { break }
            lowest = d.zoom
        }
        return lowest
    }

    /// The cells of `cells` (by index) weighted by the tiles under them at the zooms from `from` up, each tile by the
    /// features (pieces) estimated in it and one for the tile itself: what the range shards' areas balance.
    package func cellWeights(_ cells: ShardCells, from: Int) -> [(index: UInt64, weight: Double)] {
        var weights: [UInt64: Double] = [:]
        for (i, tiles) in summed().enumerated() where zooms.lowerBound + i >= from {
            let z = zooms.lowerBound + i
            for (k, t) in tiles {
                guard let cell = cells.index(of: TileCoordinate(z: z, x: Int(k >> 32), y: Int(k & 0xffff_ffff))) else {
                    continue
                }
                weights[cell, default: 0] += Double(t.features + 1)
            }
        }
        return weights.sorted { $0.key < $1.key }.map { (index: $0.key, weight: $0.value) }
    }
}
