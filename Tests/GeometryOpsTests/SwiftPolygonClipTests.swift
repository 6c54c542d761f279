import GeometryAlgorithms
import KartpackCore
import KartpackTestSupport
import Testing

@testable import GeometryOps

/// `TileClipper.clipPolygons(_:boxes:handle:)`, the tile descent's clip of pieces held in Swift, gives what the
/// GEOS-handle `clip(_:)` gives (copied out), and its Swift moments equal the GEOS-side ones.
@Suite struct SwiftPolygonClipTests {
    static let rects = [
        Bounds(minX: 0, minY: 0, maxX: 10, maxY: 10), Bounds(minX: -2, minY: 3, maxX: 4, maxY: 12),
        Bounds(minX: 30, minY: 30, maxX: 40, maxY: 40), Bounds(minX: -10, minY: -10, maxX: 30, maxY: 30),
    ]

    /// Valid input: the soup's polygons made valid by GEOS (they overlap) and copied out.
    static func validSoup(_ engine: GeometryEngine, seed: UInt64) throws -> Geometry {
        let raw = PolygonSoup.make(seed: seed, count: 150)
        let h = try engine.prepare(raw)
        let valid = try #require(try engine.makeValid(h, family: .polygon))
        return try #require(try engine.geometry(valid, family: .polygon))
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func sameAsTheGEOSHandleClip(_ seed: UInt64) throws {
        let engine = GeometryEngine()
        let g = try Self.validSoup(engine, seed: seed)
        let handle = try engine.prepare(g)
        let boxes = RectangleClipper.polygonBoxes(g)
        for rect in Self.rects {
            let clipper = try TileClipper(engine: engine, rect: rect)
            let viaGEOS = try clipper.clip(handle).map { try engine.geometry($0, family: .polygon) } ?? nil
            var asked = false
            let swift = try clipper.clipPolygons(g, boxes: boxes) { () throws(GeometryError) in
                asked = true
                return handle
            }
            switch swift {
            case .unchanged: #expect(viaGEOS == g, "rect \(rect)")
            case .empty: #expect(viaGEOS == nil, "rect \(rect)")
            case .clipped(let out): #expect(out == viaGEOS, "rect \(rect)")
            }
            #expect(!asked, "valid input needs no GEOS fallback (rect \(rect))")
        }
    }

    /// An invalid polygon whose cut cannot be assembled (a U cut into two pieces and a hole inside neither) goes
    /// to GEOS through `handle`, with GEOS's answer (here: GEOS refuses it, the same way for both).
    @Test func anInconsistentCutAsksForTheHandle() throws {
        let engine = GeometryEngine()
        let u = TestShapes.ring([(-5, -5), (9, -5), (9, 3), (5, 3), (5, -3), (3, -3), (3, 3), (-5, 3)])
        let shape = Geometry.polygons([[u, TestShapes.rectRing(6, 6, 8, 8)]])
        let rect = Bounds(minX: 0, minY: 0, maxX: 10, maxY: 10)
        let clipper = try TileClipper(engine: engine, rect: rect)
        var asked = 0
        let swift = Result { () throws(GeometryError) -> Geometry? in
            let r = try clipper.clipPolygons(shape, boxes: RectangleClipper.polygonBoxes(shape)) {
                () throws(GeometryError) in
                asked += 1
                return try engine.prepare(shape)
            }
            if case .clipped(let g) = r { return g }
            return nil
        }
        #expect(asked == 1)
        #expect(clipper.fallbackCount == 1)
        let reference = try TileClipper(engine: engine, rect: rect)
        let handle = try engine.prepare(shape)
        let viaGEOS = Result { () throws(GeometryError) -> Geometry? in
            guard let h = try reference.clip(handle) else { return nil }
            return try engine.geometry(h, family: .polygon)
        }
        #expect(reference.fallbackCount == 1)
        switch (swift, viaGEOS) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a.description == b.description)
        default: Issue.record("different outcomes: \(swift) vs \(viaGEOS)")
        }
    }

    @Test(arguments: [21, 22] as [UInt64])
    func swiftMomentsEqualGEOSMoments(_ seed: UInt64) throws {
        let engine = GeometryEngine()
        let g = try Self.validSoup(engine, seed: seed)
        let handle = try engine.prepare(g)
        let boxes = RectangleClipper.polygonBoxes(g)
        for rect in Self.rects {
            var calculator = RectMomentCalculator(rect: rect)
            let measured = calculator.moments(engine.ctx, handle.pointer)
            let viaGEOS = try #require(measured)
            for m in [calculator.moments(of: g), calculator.moments(of: g, boxes: boxes)] {
                #expect(m.area == viaGEOS.area && m.mx == viaGEOS.mx && m.my == viaGEOS.my, "rect \(rect)")
            }
        }
    }
}
