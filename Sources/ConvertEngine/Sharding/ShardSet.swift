import Foundation
import KartpackCore
import KartpackJSON

/// The checks that a set of parts makes exactly one package: one plan, every shard once, ranges that together
/// follow each other from the first tile to the last, the same package name, format and metadata. Refusals name
/// the shards and files.
package enum ShardSet {
    /// The parts in shard order, or why they do not make one package (`ShardError.partsDoNotFit`).
    package static func check(_ parts: [ShardPartReader]) throws -> [ShardPartReader] {
        guard let first = parts.first else { throw ShardError.partsDoNotFit(reason: "no part given") }
        func fail(_ why: String) -> ShardError { .partsDoNotFit(reason: why) }
        let name = { (p: ShardPartReader) in "\(p.path) (shard \(p.header.shard)/\(p.header.shards))" }
        for p in parts.dropFirst() {
            if p.header.planDigest != first.header.planDigest {
                throw fail(
                    "\(name(p)) was built from another plan (\(p.header.planDigest.prefix(12))) than \(name(first)) "
                        + "(\(first.header.planDigest.prefix(12))): a plan's inputs, options or ranges differ")
            }
            if p.header.shards != first.header.shards || p.header.format != first.header.format
                || p.header.outputName != first.header.outputName
            {
                throw fail("\(name(p)) and \(name(first)) disagree on the shard count, format or package name")
            }
            if p.header.metadata != .null, first.header.metadata != .null, p.header.metadata != first.header.metadata {
                throw fail(
                    "\(name(p)) and \(name(first)) hold different package metadata: they were built from different "
                        + "inputs or by different Kartpack versions")
            }
        }
        let count = first.header.shards
        var byShard: [Int: ShardPartReader] = [:]
        for p in parts {
            guard (0..<count).contains(p.header.shard) else { throw fail("\(name(p)) is not a shard of \(count)") }
            if let other = byShard[p.header.shard] {
                throw fail("shard \(p.header.shard)/\(count) is given twice: \(other.path) and \(p.path)")
            }
            byShard[p.header.shard] = p
        }
        let missing = (0..<count).filter { byShard[$0] == nil }
        if !missing.isEmpty {
            throw fail(
                "shard" + (missing.count == 1 ? " " : "s ") + missing.map { "\($0)/\(count)" }.joined(separator: ", ")
                    + (missing.count == 1 ? " is" : " are") + " missing")
        }
        let ordered = (0..<count).compactMap { byShard[$0] }
        try checkContiguous(ordered.map { (shard: $0.header.shard, tiles: $0.header.tiles) }, fail: fail)
        guard ordered[0].header.metadata != .null else {
            throw fail("\(name(ordered[0])) holds no package metadata (the first shard's part holds it)")
        }
        return ordered
    }

    /// Checks that the shards' ranges together start at key 0, follow each other without a gap or an overlap and
    /// that the last has no end: every tile is exactly one shard's.
    static func checkContiguous(_ shards: [(shard: Int, tiles: ShardTiles)], fail: (String) -> ShardError) throws {
        let ranges = inKeyOrder(shards)
        var expected: UInt64? = 0
        var before: Int?
        for (shard, r) in ranges {
            guard let e = expected else { throw fail("shard \(shard)'s tiles \(r.text) start after the last tile") }
            if r.lowerBound < e {
                throw fail("shard \(shard)'s tiles \(r.text) overlap shard \(before.map(String.init) ?? "?")'s")
            }
            if r.lowerBound > e {
                throw fail("no shard holds the tiles \(e)..<\(r.lowerBound), before shard \(shard)'s")
            }
            expected = r.upperBound
            before = shard
        }
        if let e = expected { throw fail("no shard holds the tiles from \(e) on") }
    }

    /// Every range of the shards, each with its shard, in key order (ties by shard): the order the merge writes them
    /// in, and the one `checkContiguous` walks.
    package static func inKeyOrder(_ shards: [(shard: Int, tiles: ShardTiles)]) -> [(shard: Int, range: ShardKeyRange)]
    {
        shards.flatMap { s in s.tiles.ranges.map { (shard: s.shard, range: $0) } }
            .sorted { ($0.range.lowerBound, $0.shard) < ($1.range.lowerBound, $1.shard) }
    }
}
