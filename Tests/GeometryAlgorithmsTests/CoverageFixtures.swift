import KartpackTestSupport
import GeometryAlgorithms

/// Coverages on the tile grid for the shared-border tests.
enum CoverageFixtures {
    /// Orients a polygon's rings the MVT way: exterior positive, holes negative signed area.
    static func oriented(_ rings: [[TilePoint]]) -> [[TilePoint]] {
        rings.enumerated().map { k, r in
            let a = doubledSignedArea(r)
            return (k == 0) == (a > 0) ? r : r.reversed()
        }
    }

    /// A jittered grid of `columns × rows` cells tiling `frame`-sized square cells from `origin`: every cell edge
    /// gets `bends` extra vertices offset up to `amplitude` units sideways (none on the outer border, which stays
    /// straight), inner grid vertices move up to `jitter` units. With probability `islandChance` a cell gets an
    /// island: a small polygon of its own that is also the cell's hole (radius `islandRadius`). Returns the
    /// features (cell, then its island) and the outer frame.
    static func jitteredGrid(
        columns: Int, rows: Int, cell: Int32, origin: TilePoint = TilePoint(0, 0), bends: Int = 3,
        amplitude: Int32 = 8, jitter: Int32 = 15, islandChance: Double = 0, islandRadius: ClosedRange<Int32> = 3...12,
        rng: inout SplitMix64
    ) -> (features: [CoverageFeature], frame: TileRect) {
        func r(_ range: ClosedRange<Int32>) -> Int32 {
            range.lowerBound == range.upperBound ? range.lowerBound : Int32.random(in: range, using: &rng)
        }
        var vx = [[Int32]](repeating: [], count: columns + 1)
        var vy = [[Int32]](repeating: [], count: columns + 1)
        for i in 0...columns {
            for j in 0...rows {
                let inner = i > 0 && i < columns && j > 0 && j < rows
                vx[i].append(origin.x + Int32(i) * cell + (inner ? r(-jitter...jitter) : 0))
                vy[i].append(origin.y + Int32(j) * cell + (inner ? r(-jitter...jitter) : 0))
            }
        }
        func edge(_ a: TilePoint, _ b: TilePoint, border: Bool) -> [TilePoint] {
            var pts: [TilePoint] = []
            let dx = Double(b.x - a.x), dy = Double(b.y - a.y)
            let len = max(1, (dx * dx + dy * dy).squareRoot())
            for k in 1...max(1, bends) where bends > 0 {
                let t = Double(k) / Double(bends + 1)
                let off = border ? 0 : Double(r(-amplitude...amplitude))
                let p = TilePoint(
                    Int32((Double(a.x) + dx * t - dy / len * off).rounded()),
                    Int32((Double(a.y) + dy * t + dx / len * off).rounded()))
                if pts.last != p && p != a && p != b { pts.append(p) }
            }
            return pts
        }
        func v(_ i: Int, _ j: Int) -> TilePoint { TilePoint(vx[i][j], vy[i][j]) }
        // h[i][j]: v(i,j) → v(i+1,j); vv[i][j]: v(i,j) → v(i,j+1).
        let h = (0..<columns).map { i in (0...rows).map { j in edge(v(i, j), v(i + 1, j), border: j == 0 || j == rows) }
        }
        let vv = (0...columns).map { i in
            (0..<rows).map { j in edge(v(i, j), v(i, j + 1), border: i == 0 || i == columns) }
        }
        var features: [CoverageFeature] = []
        for j in 0..<rows {
            for i in 0..<columns {
                var ring = [v(i, j)] + h[i][j] + [v(i + 1, j)] + vv[i + 1][j]
                ring += [v(i + 1, j + 1)] + h[i][j + 1].reversed() + [v(i, j + 1)] + vv[i][j].reversed()
                if islandChance > 0, Double.random(in: 0..<1, using: &rng) < islandChance {
                    let cx = (v(i, j).x + v(i + 1, j + 1).x) / 2, cy = (v(i, j).y + v(i + 1, j + 1).y) / 2
                    let island = polygon(centre: TilePoint(cx, cy), radius: r(islandRadius), corners: 12)
                    features.append([oriented([ring, island])])
                    features.append([oriented([island])])
                } else {
                    features.append([oriented([ring])])
                }
            }
        }
        let frame = TileRect(
            minX: origin.x, minY: origin.y, maxX: origin.x + Int32(columns) * cell, maxY: origin.y + Int32(rows) * cell)
        return (features, frame)
    }

    /// A regular polygon with `corners` vertices (rounded to the grid, duplicates removed); with `wiggle`, every
    /// other vertex moves that far in and the others out.
    static func polygon(centre c: TilePoint, radius: Int32, corners: Int, wiggle: Double = 0) -> [TilePoint] {
        var out: [TilePoint] = []
        for k in 0..<corners {
            let a = Double(k) / Double(corners) * 2 * Double.pi
            let r = Double(radius) + (k % 2 == 0 ? wiggle : -wiggle)
            let p = TilePoint(c.x + Int32((r * cos(a)).rounded()), c.y + Int32((r * sin(a)).rounded()))
            if out.last != p && out.first != p { out.append(p) }
        }
        return out
    }

    /// Reverses every ring with probability 1/2 and starts it at a random vertex.
    static func shuffledRings(_ features: [CoverageFeature], rng: inout SplitMix64) -> [CoverageFeature] {
        features.map { polygons in
            polygons.map { rings in
                rings.map { ring in
                    var r = Bool.random(using: &rng) ? Array(ring.reversed()) : ring
                    let s = Int.random(in: 0..<r.count, using: &rng)
                    r = Array(r[s...] + r[..<s])
                    return r
                }
            }
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
