import KartpackTestSupport
import Foundation
import KartpackCore

/// Shapes and helpers shared by the GeometryOps tests.
enum TestShapes {
    /// A closed axis-aligned rectangle ring, counter-clockwise.
    static func rectRing(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [Double] {
        [x0, y0, x1, y0, x1, y1, x0, y1, x0, y0]
    }

    /// A closed ring from (x, y) pairs, closing it.
    static func ring(_ points: [(Double, Double)]) -> [Double] {
        var xy = points.flatMap { [$0.0, $0.1] }
        xy += [points[0].0, points[0].1]
        return xy
    }

    /// The bowtie `POLYGON((0 0, 2 2, 2 0, 0 2, 0 0)) * scale`: two triangles of area `scale²` each.
    static func bowtie(scale: Double = 1) -> Geometry {
        .polygons([[ring([(0, 0), (2 * scale, 2 * scale), (2 * scale, 0), (0, 2 * scale)])]])
    }

    /// A star-shaped ring (simple) around a centre; radii in `radii`, counter-clockwise.
    static func starRing(cx: Double, cy: Double, radii: [Double]) -> [Double] {
        let n = radii.count
        var points: [(Double, Double)] = []
        for (i, r) in radii.enumerated() {
            let a = 2 * Double.pi * Double(i) / Double(n)
            points.append((cx + r * cos(a), cy + r * sin(a)))
        }
        return ring(points)
    }

    /// Area of a flat polygonal geometry: shells minus holes (absolute ring areas), in Swift.
    static func area(_ g: Geometry) -> Double {
        var total = 0.0
        for j in 0..<g.polygonCount {
            for (k, i) in g.partRange(ofPolygon: j).enumerated() {
                let r = g.pointRange(ofPart: i)
                let a = abs(signedRingArea(g.xy[(2 * r.lowerBound)..<(2 * r.upperBound)]))
                total += k == 0 ? a : -a
            }
        }
        return total
    }

    /// Even-odd point-in-polygon over every ring of a flat polygonal geometry (holes included).
    static func contains(_ g: Geometry, x: Double, y: Double) -> Bool {
        var inside = false
        for i in 0..<g.partCount {
            let r = g.pointRange(ofPart: i)
            var j = r.upperBound - 1
            for k in r {
                let (xk, yk) = g.point(k)
                let (xj, yj) = g.point(j)
                if (yk > y) != (yj > y), x < (xj - xk) * (y - yk) / (yj - yk) + xk { inside.toggle() }
                j = k
            }
        }
        return inside
    }

    /// A wobbly disc of radius about 100 with two round holes (400 + 2 × 60 vertices).
    static func discWithHoles() -> Geometry {
        let radii = (0..<400).map { 100 + 0.3 * sin(Double($0) * 1.7) }
        let shell = starRing(cx: 0, cy: 0, radii: radii)
        let hole1 = starRing(cx: -40, cy: 0, radii: Array(repeating: 15, count: 60)).reversedPairs()
        let hole2 = starRing(cx: 40, cy: 10, radii: Array(repeating: 20, count: 60)).reversedPairs()
        return .polygons([[shell, hole1, hole2]])
    }
}

/// The shared deterministic generator.
typealias SplitMix64 = KartpackTestSupport.SplitMix64
