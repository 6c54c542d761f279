import KartpackCore
import KartpackJSON

/// One run of tiles: the order keys (`TileOrder.sortKey`, the PMTiles TileID or packed z/x/y) from `lowerBound` up
/// to, not including, `upperBound` (nil: to the end).
package struct ShardKeyRange: Sendable, Hashable {
    package var lowerBound: UInt64
    package var upperBound: UInt64?

    package init(lowerBound: UInt64, upperBound: UInt64?) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    package func contains(_ key: UInt64) -> Bool { key >= lowerBound && upperBound.map { key < $0 } ?? true }

    package var text: String { "\(lowerBound)..<" + (upperBound.map(String.init) ?? "end") }
}

/// The tiles of one shard: key ranges of the archive's tile order, ascending, apart (ranges that meet are joined)
/// and not empty. A plan's shards together hold every key exactly once (`ShardSet.checkContiguous`).
///
/// The first shard holds one range from key 0: every zoom below the split zoom. A range shard holds the tiles under
/// one area at each zoom from the split zoom up, one range per zoom (`ShardSplitter`), so a feature is read and
/// tiled by the shard whose area it lies in, not by one shard per zoom.
package struct ShardTiles: Sendable, Hashable {
    package private(set) var ranges: [ShardKeyRange]

    /// Every tile: the one shard of a one-shard plan.
    package static let all = ShardTiles([ShardKeyRange(lowerBound: 0, upperBound: nil)])

    /// The tiles of `ranges` (in any order; they must not overlap), without the empty ones, joined where they meet.
    package init(_ ranges: [ShardKeyRange]) {
        var joined: [ShardKeyRange] = []
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound })
        where r.upperBound.map({ $0 > r.lowerBound }) ?? true {
            if let last = joined.last, last.upperBound == r.lowerBound {
                joined[joined.count - 1].upperBound = r.upperBound
            } else {
                joined.append(r)
            }
        }
        self.ranges = joined
    }

    /// Whether the tile with order key `key` is the shard's.
    package func contains(_ key: UInt64) -> Bool {
        // The first range that ends past the key holds it, or none does.
        let i = ranges.partitioningIndex { $0.upperBound.map { $0 > key } ?? true }
        return i < ranges.count && ranges[i].lowerBound <= key
    }

    /// Whether some key from `lower` up to, not including, `upper` is the shard's.
    package func intersects(_ lower: UInt64, _ upper: UInt64) -> Bool {
        ranges.contains { $0.lowerBound < upper && ($0.upperBound.map { $0 > lower } ?? true) }
    }

    /// Whether every key from `lower` up to, not including, `upper` is the shard's.
    package func covers(_ lower: UInt64, _ upper: UInt64) -> Bool {
        ranges.contains { $0.lowerBound <= lower && ($0.upperBound.map { $0 >= upper } ?? true) }
    }

    /// True for the shard that holds key 0 (the first shard, which holds the package metadata).
    package var holdsFirstTile: Bool { ranges.first?.lowerBound == 0 }

    /// True for the one shard of a one-shard plan.
    package var holdsEveryTile: Bool { self == Self.all }

    package var text: String { ranges.isEmpty ? "none" : ranges.map(\.text).joined(separator: ", ") }

    /// As a plan and a part header write it: `[{"from": "K", "to": "K" | null}, …]` (keys as strings: JSON numbers
    /// are doubles to many readers).
    package var json: JSONValue {
        .array(
            ranges.map { r in
                .object([
                    ("from", .string(String(r.lowerBound))), ("to", r.upperBound.map { .string(String($0)) } ?? .null),
                ])
            })
    }

    /// Reads `json`; nil when a range is malformed, ends before it starts or overlaps another.
    package init?(json: JSONValue?) {
        guard let items = json?.arrayValue else { return nil }
        var ranges: [ShardKeyRange] = []
        for item in items {
            guard let from = item["from"]?.stringValue.flatMap({ UInt64($0) }) else { return nil }
            var to: UInt64?
            if let t = item["to"], t != .null {
                guard let v = t.stringValue.flatMap({ UInt64($0) }), v > from else { return nil }
                to = v
            }
            ranges.append(ShardKeyRange(lowerBound: from, upperBound: to))
        }
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        for i in sorted.indices.dropFirst() {
            guard let end = sorted[i - 1].upperBound, end <= sorted[i].lowerBound else { return nil }
        }
        self.init(ranges)
    }
}
