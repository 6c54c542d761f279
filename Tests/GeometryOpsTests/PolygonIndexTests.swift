import KartpackCore
import Testing

@testable import GeometryOps

@Suite struct PolygonIndexTests {
    /// ~200 star-shaped polygons (half with a hole, some multipolygons) scattered over [0, 1000]², overlapping.
    static func polygons(_ rng: inout SplitMix64) -> [Geometry] {
        (0..<200).map { i in
            let cx = Double.random(in: 0...1000, using: &rng)
            let cy = Double.random(in: 0...1000, using: &rng)
            let n = Int.random(in: 5...16, using: &rng)
            let radii = (0..<n).map { _ in Double.random(in: 20...80, using: &rng) }
            var rings = [TestShapes.starRing(cx: cx, cy: cy, radii: radii)]
            if i % 2 == 0 {
                rings.append(TestShapes.starRing(cx: cx, cy: cy, radii: Array(repeating: 10, count: 8)).reversedPairs())
            }
            if i % 7 == 0 {
                return .polygons([rings, [TestShapes.rectRing(cx + 100, cy + 100, cx + 130, cy + 120)]])
            }
            return .polygons([rings])
        }
    }

    @Test func matchesBruteForce() throws {
        var rng = SplitMix64(seed: 42)
        let polygons = Self.polygons(&rng)
        let engine = GeometryEngine()
        let index = try PolygonIndex(engine: engine, polygons: polygons)
        #expect(index.count == 200)
        var hitsTotal = 0
        for _ in 0..<2000 {
            let x = Double.random(in: -50...1150, using: &rng)
            let y = Double.random(in: -50...1150, using: &rng)
            let found = try index.containing(x: x, y: y)
            let expected = polygons.indices.filter { TestShapes.contains(polygons[$0], x: x, y: y) }
            #expect(found == expected, "(\(x), \(y))")
            hitsTotal += found.count
        }
        // The check is meaningful only if many points hit something.
        #expect(hitsTotal > 500)
    }

    @Test func rejectsNonPolygonsAndNonFiniteQueries() throws {
        let engine = GeometryEngine()
        #expect(throws: GeometryError.self) { try PolygonIndex(engine: engine, polygons: [.lines([[0, 0, 1, 1]])]) }
        let index = try PolygonIndex(
            engine: engine,
            polygons: [
                .polygons([[TestShapes.rectRing(0, 0, 1, 1)]]), Geometry(kind: .polygon, xy: [], partStarts: []),
            ])
        #expect(try index.containing(x: 0.5, y: 0.5) == [0])
        #expect(try index.containing(x: 1, y: 0.5) == [0])  // boundary counts
        #expect(try index.containing(x: 2, y: 0.5) == [])
        #expect(throws: GeometryError.self) { try index.containing(x: .nan, y: 0) }
    }
}
