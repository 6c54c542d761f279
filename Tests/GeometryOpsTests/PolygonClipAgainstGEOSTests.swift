import Foundation
import KartpackCore
import KartpackTestSupport
import Testing

@testable import GeometryOps

/// The Swift polygon clip behind `TileClipper` (`RectangleClipper.clipPolygons`) against GEOS: valid output
/// (GEOS isValid), the same region as OverlayNG's intersection, and no fallback to GEOS.
@Suite struct PolygonClipAgainstGEOSTests {
    /// Clips `g` (made valid first) to each rectangle and compares with GEOS; returns how many had a result.
    @discardableResult
    static func compare(
        _ g: Geometry, rects: [Bounds], engine: GeometryEngine, tolerance: Double = 1e-6
    ) throws -> Int {
        let raw = try engine.prepare(g)
        guard let h = try engine.isValid(raw) ? raw : engine.makeValid(raw, family: .polygon) else { return 0 }
        var results = 0
        for rect in rects {
            let clipper = try TileClipper(engine: engine, rect: rect)
            let fast = try clipper.clip(h)
            let exact = try engine.intersection(h, engine.rectangle(rect), family: .polygon)
            #expect(clipper.fallbackCount == 0, "\(rect)")
            guard let fast else {
                let left = try exact.map { try engine.area($0) } ?? 0
                #expect(left < tolerance, "\(rect)")
                continue
            }
            let reason = try engine.validityReason(fast)
            #expect(reason == "Valid Geometry", "\(rect)")
            let expected = try exact.map { try engine.area($0) } ?? 0
            #expect(abs(try engine.area(fast) - expected) < tolerance, "\(rect)")
            if let exact {
                // Same region, not merely the same area.
                let overlap = try engine.intersection(fast, exact, family: .polygon)
                let shared = try overlap.map { try engine.area($0) } ?? 0
                #expect(abs(shared - expected) < tolerance, "\(rect)")
            }
            results += 1
        }
        return results
    }

    /// Random rings on a small integer grid, made valid by GEOS (multipolygons with holes and many points
    /// where rings touch), clipped to integer rectangles: vertices and edges fall exactly on the sides.
    @Test func randomGridPolygons() throws {
        var rng = SplitMix64(seed: 15)
        let engine = GeometryEngine()
        var results = 0
        for _ in 0..<150 {
            let n = Int.random(in: 4...24, using: &rng)
            var pts: [(Double, Double)] = []
            for _ in 0..<n {
                pts.append((Double(Int.random(in: 0...20, using: &rng)), Double(Int.random(in: 0...20, using: &rng))))
            }
            guard Set(pts.map { "\($0.0),\($0.1)" }).count >= 3 else { continue }
            let shape = Geometry.polygons([[TestShapes.ring(pts)]])
            var rects: [Bounds] = []
            for _ in 0..<6 {
                let x = Double(Int.random(in: -2...15, using: &rng))
                let y = Double(Int.random(in: -2...15, using: &rng))
                rects.append(
                    Bounds(
                        minX: x, minY: y, maxX: x + Double(Int.random(in: 1...12, using: &rng)),
                        maxY: y + Double(Int.random(in: 1...12, using: &rng))))
            }
            results += try Self.compare(shape, rects: rects, engine: engine)
        }
        #expect(results > 300)
    }

    /// Random star polygons with holes, and rectangles anywhere (not on a grid).
    @Test func randomStarsWithHoles() throws {
        var rng = SplitMix64(seed: 21)
        let engine = GeometryEngine()
        let polygons = PolygonIndexTests.polygons(&rng)
        var results = 0
        for (i, p) in polygons.enumerated() where i % 2 == 0 {
            var rects: [Bounds] = []
            let b = try #require(p.bounds)
            for _ in 0..<4 {
                let x = Double.random(in: (b.minX - 20)...(b.maxX), using: &rng)
                let y = Double.random(in: (b.minY - 20)...(b.maxY), using: &rng)
                rects.append(Bounds(minX: x, minY: y, maxX: x + Double.random(in: 5...90, using: &rng), maxY: y + 40))
            }
            results += try Self.compare(p, rects: rects, engine: engine)
        }
        #expect(results > 150)
    }

    /// The issue-15 shapes, small enough for GEOS (its validity test and overlay are quadratic on the star).
    @Test func sawToothAndStar() throws {
        let engine = GeometryEngine()
        var saw: [(Double, Double)] = []
        let m = 4_000
        for i in 0..<m { saw.append((Double(i) / Double(m - 1) * 100, i % 2 == 0 ? 100 : 50)) }
        saw += [(100, -20), (0, -20)]
        var star: [(Double, Double)] = []
        for k in 0..<m {
            let a = 2 * Double.pi * Double(k) / Double(m)
            let r = k % 2 == 0 ? 100.0 : 10.0
            star.append((r * cos(a), r * sin(a)))
        }
        let rects = [
            Bounds(minX: 10, minY: 60, maxX: 90, maxY: 90), Bounds(minX: -5, minY: -30, maxX: 50.5, maxY: 75),
            Bounds(minX: -50, minY: -50, maxX: 0, maxY: 0), Bounds(minX: -5, minY: -5, maxX: 5, maxY: 5),
            Bounds(minX: 20, minY: -60, maxX: 30, maxY: 60),
        ]
        #expect(
            try Self.compare(.polygons([[TestShapes.ring(saw)]]), rects: Array(rects.prefix(2)), engine: engine) == 2)
        #expect(try Self.compare(.polygons([[TestShapes.ring(star)]]), rects: rects, engine: engine) == 5)
    }
}
