import Foundation
import KartpackCore
import KartpackTestSupport
import Testing

@testable import Shapefile

@Suite struct GeometryReadingTests {
    @Test func pointsWithZAndMKeepTheirXY() throws {
        var f = ShapefileFixture(
            shapeType: .pointZ,
            shapes: [.point(1, 2, type: .pointZ, z: 3, m: 4), .point(5, 6, type: .pointZ, z: 7, m: -1e39)])
        f.addNames()
        let r = try readFixture(f)
        #expect(r.features.count == 2)
        let a = r.features[0].geometry
        #expect(a.kind == .point && a.xy == [1, 2])
        #expect(r.schema.geometryKind == .point && r.schema.sourceShapeType == "PointZ")
        #expect(r.features[0].id == 1 && r.features[1].id == 2)
        #expect(r.features[1].provenance.record == 2 && r.features[1].provenance.source == "layer.shp")
        #expect(r.features[0].provenance.offset == 100)
        #expect(r.features[0].properties["NAME"] == .string("r1"))
    }

    @Test func pointMAndPlainPoint() throws {
        let m = try readFixture(ShapefileFixture(shapeType: .pointM, shapes: [.point(1, 2, type: .pointM, m: 9)]))
        #expect(m.features[0].geometry == .point(x: 1, y: 2))
        let p = try readFixture(ShapefileFixture(shapeType: .point, shapes: [.point(-1.5, 2.25)]))
        #expect(p.features[0].geometry == .point(x: -1.5, y: 2.25))
    }

    @Test func multiPointsAllVariants() throws {
        for type in [ShapefileFixture.ShapeType.multiPoint, .multiPointZ, .multiPointM] {
            let hasZ = type == .multiPointZ
            let f = ShapefileFixture(
                shapeType: type,
                shapes: [.multiPoint([0, 0, 1, 1, 2, 2], type: type, z: hasZ ? [5, 6, 7] : nil, m: [1, 2, 3])])
            let r = try readFixture(f)
            let g = try #require(r.features.first?.geometry)
            #expect(g.kind == .multiPoint && g.xy == [0, 0, 1, 1, 2, 2] && g.partStarts == [0])
            #expect(r.schema.geometryKind == .multiPoint)
        }
    }

    @Test func linesSingleAndMultipartWithZMKeepTheirXY() throws {
        let f = ShapefileFixture(
            shapeType: .polyLineZ,
            shapes: [
                .polyLine([[0, 0, 1, 1]], type: .polyLineZ, z: [[1, 2]], m: [[10, 20]]),
                .polyLine([[0, 0, 1, 1], [5, 5, 6, 6, 7, 5]], type: .polyLineZ, z: [[1, 2], [3, 4, 5]]),
            ])
        let r = try readFixture(f)
        #expect(r.features.count == 2)
        let a = r.features[0].geometry
        #expect(a.kind == .lineString && a.xy == [0, 0, 1, 1])
        let b = r.features[1].geometry
        #expect(b.kind == .multiLineString && b.partStarts == [0, 2] && b.pointCount == 5)
        #expect(r.schema.geometryKind == .lineString)
        let m = try readFixture(
            ShapefileFixture(
                shapeType: .polyLineM, shapes: [.polyLine([[0, 0, 3, 4]], type: .polyLineM, m: [[0, 5]])]))
        #expect(m.features[0].geometry.xy == [0, 0, 3, 4])
    }

    @Test func singlePointLinePartIsDroppedAndCounted() throws {
        let r = try readFixture(ShapefileFixture(shapeType: .polyLine, shapes: [.polyLine([[0, 0, 1, 1], [9, 9]])]))
        #expect(r.features[0].geometry.kind == .lineString && r.features[0].geometry.xy == [0, 0, 1, 1])
        #expect(r.stats.repaired[.droppedPart] == 1)
        let e = try readFixture(ShapefileFixture(shapeType: .polyLine, shapes: [.polyLine([[9, 9]])]))
        #expect(e.features.isEmpty && e.stats.skipped[.emptyGeometry] == 1)
    }

    @Test func polygonWithHoleKeepsESRIOrientation() throws {
        let f = ShapefileFixture(
            shapeType: .polygon, shapes: [.polygon([square(0, 0, 10), square(2, 2, 2, ccw: true)])])
        let r = try readFixture(f)
        let g = try #require(r.features.first?.geometry)
        #expect(g.kind == .polygon && g.partStarts == [0, 5] && g.polygonStarts == [0])
        #expect(g.xy == square(0, 0, 10) + square(2, 2, 2, ccw: true))
        #expect(r.stats.repaired.isEmpty)
        #expect(r.schema.geometryKind == .polygon)
    }

    @Test func ringsInOddOrderAndWrongOrientationAreAssignedByContainment() throws {
        // Hole first, wound like a shell; then an outer shell wound like a hole; then a separate island shell.
        let f = ShapefileFixture(
            shapeType: .polygon,
            shapes: [.polygon([square(2, 2, 2), square(0, 0, 10, ccw: true), square(20, 20, 5)])])
        let r = try readFixture(f)
        let g = try #require(r.features.first?.geometry)
        #expect(g.kind == .multiPolygon && g.polygonCount == 2)
        // Shells in file order: the big square (ring 1) with its hole, then the island (ring 2).
        #expect(g.partRange(ofPolygon: 0) == 0..<2 && g.partRange(ofPolygon: 1) == 2..<3)
        let shell = Array(g.xy[0..<10])
        let hole = Array(g.xy[10..<20])
        #expect(signedRingArea(shell[...]) < 0, "shell clockwise")
        #expect(signedRingArea(hole[...]) > 0, "hole counter-clockwise")
        #expect(abs(signedRingArea(shell[...])) == 100 && abs(signedRingArea(hole[...])) == 4)
        #expect(r.stats.repaired[.reorientedRings] == 1)
        #expect(r.stats.repaired[.ringAssignment] == 1)
        #expect(r.diagnostics(.reorientedRings).first?.record == 1)
    }

    @Test func islandInsideLakeIsAShell() throws {
        // Depth parity: shell (0) ⊃ hole (1) ⊃ island shell (2).
        let f = ShapefileFixture(
            shapeType: .polygon,
            shapes: [.polygon([square(0, 0, 100), square(10, 10, 50, ccw: true), square(20, 20, 10)])])
        let g = try #require(try readFixture(f).features.first?.geometry)
        #expect(g.kind == .multiPolygon && g.polygonCount == 2)
        #expect(g.partRange(ofPolygon: 0).count == 2 && g.partRange(ofPolygon: 1).count == 1)
    }

    @Test func holeTouchingShellAtAVertexStaysAHole() throws {
        // The hole shares the shell's corner (0,0): the first vertex is on the boundary, the next decides.
        let hole = [0.0, 0, 5, 2, 2, 5, 0, 0]  // counter-clockwise triangle
        let f = ShapefileFixture(shapeType: .polygon, shapes: [.polygon([square(0, 0, 10), hole])])
        let g = try #require(try readFixture(f).features.first?.geometry)
        #expect(g.kind == .polygon && g.partCount == 2)
    }

    @Test func unclosedRingsAreClosedAndDegenerateRingsDropped() throws {
        let open = [0.0, 0, 0, 10, 10, 10, 10, 0]  // clockwise, not closed
        let degenerate = [50.0, 50, 51, 51, 50, 50, 51, 51]  // 2 distinct points
        let f = ShapefileFixture(shapeType: .polygon, shapes: [.polygon([open, degenerate])])
        let r = try readFixture(f)
        let g = try #require(r.features.first?.geometry)
        #expect(g.kind == .polygon && g.pointCount == 5 && Array(g.xy.suffix(2)) == [0, 0])
        #expect(r.stats.repaired[.closedRing] == 1 && r.stats.repaired[.droppedRing] == 1)
        let e = try readFixture(ShapefileFixture(shapeType: .polygon, shapes: [.polygon([degenerate])]))
        #expect(e.features.isEmpty && e.stats.skipped[.emptyGeometry] == 1)
    }

    @Test func polygonZAndMFollowTheirRingsWhenReordered() throws {
        let hole = square(2, 2, 2, ccw: true)
        let shell = square(0, 0, 10)
        let f = ShapefileFixture(
            shapeType: .polygonZ,
            shapes: [
                .polygon(
                    [hole, shell], type: .polygonZ, z: [[1, 1, 1, 1, 1], [9, 9, 9, 9, 9]],
                    m: [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]])
            ])
        let r = try readFixture(f)
        _ = try #require(r.features.first?.geometry)
        #expect(r.stats.repaired[.ringAssignment] == 1 && r.stats.repaired[.reorientedRings] == nil)
        let pm = try readFixture(
            ShapefileFixture(shapeType: .polygonM, shapes: [.polygon([shell], type: .polygonM, m: [[0, 1, 2, 3, 0]])]))
        #expect(pm.features[0].geometry.kind == .polygon && pm.features[0].geometry.pointCount == 5)
    }

    @Test func nullShapesAreSkippedAndCounted() throws {
        var f = ShapefileFixture(shapeType: .polygon, shapes: [.null, .polygon([square(0, 0, 1)]), .null])
        f.addNames()
        let r = try readFixture(f)
        #expect(r.features.count == 1 && r.features[0].id == 2)
        #expect(r.features[0].properties["NAME"] == .string("r2"), "attributes stay aligned with their shape")
        #expect(r.stats.skipped == [.nullGeometry: 2])
    }

    /// MultiPatch is read as polygons the way GDAL reads it (issue 36): a strip of 4 vertices is 2 triangles, a fan
    /// of 4 is 2, a triangles part of 6 is 2, an outer ring with an inner ring is one polygon with a hole, and a
    /// wall (a vertical triangle, zero area from above) is dropped as a sliver.
    @Test func multiPatchIsReadAsPolygons() throws {
        func patch(_ parts: [[Double]], _ types: [Int32]) -> ShapefileFixture.Shape {
            ShapefileFixture.Shape(
                type: 31, parts: parts, z: parts.map { [Double](repeating: 0, count: $0.count / 2) },
                partTypes: types)
        }
        let strip = patch([[0, 0, 1, 0, 0, 1, 1, 1]], [0])
        let fan = patch([[0, 0, 1, 0, 1, 1, 0, 1]], [1])
        let triangles = patch([[0, 0, 1, 0, 0, 1, 5, 5, 6, 5, 5, 6]], [6])
        let rings = patch([[0, 0, 0, 4, 4, 4, 4, 0, 0, 0], [1, 1, 2, 1, 2, 2, 1, 2, 1, 1]], [2, 3])
        let wall = patch([[0, 0, 1, 1, 2, 2], [0, 0, 1, 0, 0, 1]], [6, 6])
        let r = try readFixture(
            ShapefileFixture(shapeType: .multiPatch, shapes: [strip, fan, triangles, rings, wall]))
        #expect(r.schema.geometryKind == .polygon)
        #expect(r.features.map(\.geometry.polygonCount) == [2, 2, 2, 1, 1])
        #expect(r.features[3].geometry.partCount == 2, "the inner ring is a hole")
        #expect(r.features[1].geometry.xy.prefix(2) == [0, 0], "a fan's triangles share its first vertex")
        #expect(r.stats.repaired[.multipatchAsPolygons] == 5)
        #expect(r.stats.repaired[.droppedSliver] == 1)
        #expect(r.stats.skipped.isEmpty)
    }

    @Test func recordTypeOtherThanTheFilesIsSkipped() throws {
        let f = ShapefileFixture(
            shapeType: .polygon,
            shapes: [
                .polygon([square(0, 0, 1)]), .point(1, 1), .polyLine([[0, 0, 1, 1]]),
                .polygon([square(0, 0, 1)], type: .polygonZ),
            ])
        let r = try readFixture(f)
        // PolygonZ in a Polygon file is the same family and is read.
        #expect(r.features.map(\.id) == [1, 4])
        #expect(r.stats.skipped == [.typeMismatch: 2])
    }

    @Test func unknownRecordTypeIsSkipped() throws {
        var unknown = ShapefileFixture.Shape(type: 99, parts: [])
        unknown.rawContent = [99, 0, 0, 0] + [UInt8](repeating: 0, count: 40)
        let r = try readFixture(ShapefileFixture(shapeType: .polygon, shapes: [unknown, .polygon([square(0, 0, 1)])]))
        #expect(r.features.count == 1 && r.stats.skipped == [.unknownShapeType: 1])
    }

    @Test func nonFiniteCoordinatesAreSkipped() throws {
        let f = ShapefileFixture(
            shapeType: .polyLine,
            shapes: [.polyLine([[0, 0, .nan, 1]]), .polyLine([[0, 0, 1, .infinity]]), .polyLine([[0, 0, 1, 1]])])
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [3])
        #expect(r.stats.skipped == [.nonFiniteCoordinate: 2])
    }

    /// Z and M are not used for tiles: a NaN there keeps the feature (issue 36: NetTopologySuite's Volume2,
    /// go-shp's pointz with Z set to NaN), while a NaN x still skips it.
    @Test func nonFiniteZOrMIsIgnored() throws {
        let z = try readFixture(
            ShapefileFixture(
                shapeType: .pointZ,
                shapes: [
                    .point(1, 1, type: .pointZ, z: .nan, m: 0), .point(2, 2, type: .pointZ, z: 0, m: .nan),
                    .point(.nan, 3, type: .pointZ, z: 0, m: 0),
                ]))
        #expect(z.features.map(\.id) == [1, 2])
        #expect(z.features.first?.geometry.xy == [1, 1])
        #expect(z.stats.skipped == [.nonFiniteCoordinate: 1])
    }

    @Test func brokenPartLayoutsAreSkipped() throws {
        var firstPartNotZero = ShapefileFixture.Shape.polyLine([[0, 0, 1, 1, 2, 2]])
        firstPartNotZero.partStartsOverride = [1]
        var emptyPart = ShapefileFixture.Shape.polyLine([[0, 0, 1, 1], [2, 2, 3, 3]])
        emptyPart.partStartsOverride = [0, 0]
        // Vertices but no parts.
        var noParts: [UInt8] = [3, 0, 0, 0] + [UInt8](repeating: 0, count: 32)
        noParts.appendLE32(0)
        noParts.appendLE32(2)
        for v in [0.0, 0, 1, 1] { noParts.appendLEDouble(v) }
        var noPartsShape = ShapefileFixture.Shape(type: 3, parts: [])
        noPartsShape.rawContent = noParts
        let f = ShapefileFixture(
            shapeType: .polyLine, shapes: [firstPartNotZero, emptyPart, noPartsShape, .polyLine([[0, 0, 1, 1]])])
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [4])
        // shapelib may itself reject an empty part as corrupt; either way the record is skipped with a reason.
        #expect((r.stats.skipped[.badPartLayout] ?? 0) + (r.stats.skipped[.corruptRecord] ?? 0) == 3)
        #expect((r.stats.skipped[.badPartLayout] ?? 0) >= 2)
    }

    @Test func corruptRecordQuotesShapelib() throws {
        // A polygon claiming a million points in a tiny record.
        var content: [UInt8] = [5, 0, 0, 0] + [UInt8](repeating: 0, count: 32)
        content.appendLE32(1)
        content.appendLE32(1_000_000)
        content.appendLE32(0)
        var shape = ShapefileFixture.Shape(type: 5, parts: [])
        shape.rawContent = content
        let r = try readFixture(ShapefileFixture(shapeType: .polygon, shapes: [shape, .polygon([square(0, 0, 1)])]))
        #expect(r.features.count == 1 && r.stats.skipped == [.corruptRecord: 1])
        let d = try #require(r.diagnostics(.corruptRecord).first)
        #expect(d.record == 1 && !d.message.isEmpty)
    }

    @Test func twentyThousandRingsComplete() throws {
        // One big shell with a 100 × 100 grid of holes, plus 100 × 100 separate islands outside it, rings shuffled
        // deterministically: 20 001 rings in one record.
        var rings: [[Double]] = [square(0, 0, 1000)]
        for i in 0..<100 {
            for j in 0..<100 {
                rings.append(square(Double(i) * 10 + 2, Double(j) * 10 + 2, 5, ccw: true))
                rings.append(square(2000 + Double(i) * 10, Double(j) * 10, 5))
            }
        }
        var order = Array(rings.indices)
        var seed: UInt64 = 42
        for k in stride(from: order.count - 1, to: 0, by: -1) {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            order.swapAt(k, Int(seed >> 33) % (k + 1))
        }
        let f = ShapefileFixture(shapeType: .polygon, shapes: [.polygon(order.map { rings[$0] })])
        let r = try readFixture(f)
        let g = try #require(r.features.first?.geometry)
        #expect(g.kind == .multiPolygon)
        #expect(g.polygonCount == 10_001)
        #expect(g.partCount == 20_001)
        // The big shell carries all 10 000 holes.
        let big = (0..<g.polygonCount).first { g.partRange(ofPolygon: $0).count > 1 }
        #expect(big.map { g.partRange(ofPolygon: $0).count } == 10_001)
    }
}

extension Array where Element == UInt8 {
    mutating func appendLE32(_ v: Int32) {
        let u = UInt32(bitPattern: v)
        append(contentsOf: [UInt8(u & 0xFF), UInt8(u >> 8 & 0xFF), UInt8(u >> 16 & 0xFF), UInt8(u >> 24)])
    }
    mutating func appendLEDouble(_ v: Double) {
        for k in 0..<8 { append(UInt8(v.bitPattern >> (8 * UInt64(k)) & 0xFF)) }
    }
}
