import GeoPackage
import GeometryAlgorithms
import KartpackCore
import Testing

@Suite struct GeometryBlobTests {
    func header(_ b: [UInt8]) throws(GeometryBlobIssue) -> GeoPackageBinaryHeader {
        let result = b.withUnsafeBytes { buffer in
            Result { () throws(GeometryBlobIssue) in try GeoPackageBinaryHeader(buffer) }
        }
        return try result.get()
    }

    func issue(_ b: [UInt8]) -> ReasonCode? {
        do {
            _ = try header(b)
            return nil
        } catch { return error.code }
    }

    func geometry(_ wkb: [UInt8], limits: WKBReader.Limits = .init()) -> GeometryAssembly {
        wkb.withUnsafeBytes { buffer in
            do throws(GeometryBlobIssue) {
                return WKBGeometry.build(try WKBReader.read(buffer, limits: limits))
            } catch {
                return .skipped(code: error.code, message: error.message)
            }
        }
    }

    func code(_ wkb: [UInt8], limits: WKBReader.Limits = .init()) -> ReasonCode? {
        if case .skipped(let c, _) = geometry(wkb, limits: limits) { return c }
        return nil
    }

    func built(_ wkb: [UInt8]) -> Geometry? {
        if case .built(let g, _) = geometry(wkb) { return g }
        return nil
    }

    @Test func headerFieldsAndEnvelopeKinds() throws {
        let wkb = WKBBytes.point(1, 2)
        for (kind, offset) in [(0, 8), (1, 40), (2, 56), (3, 56), (4, 72)] {
            let h = try header(WKBBytes.blob(wkb, srs: 3006, envelope: UInt8(kind)))
            #expect(h.envelopeKind == kind && h.wkbOffset == offset && h.srsID == 3006 && !h.isEmpty)
        }
        let big = try header(WKBBytes.blob(wkb, srs: 3006, little: false))
        #expect(big.srsID == 3006, "the header's byte order flag decides how the SRS id is read")
        #expect(try header(WKBBytes.blob(wkb, empty: true)).isEmpty)
    }

    @Test func brokenHeadersAreRejectedWithReasons() {
        let good = WKBBytes.blob(WKBBytes.point(1, 2))
        #expect(issue(Array(good.prefix(7))) == .badGeometryBlob)
        #expect(issue([0x58] + good.dropFirst()) == .badGeometryBlob, "bad magic")
        var version = good
        version[2] = 1
        #expect(issue(version) == .badGeometryBlob)
        var reserved = good
        reserved[3] |= 0x80
        #expect(issue(reserved) == .badGeometryBlob)
        var extended = good
        extended[3] |= 0x20
        #expect(issue(extended) == .unsupportedGeometryType)
        var envelope = good
        envelope[3] = (5 << 1) | 1
        #expect(issue(envelope) == .badGeometryBlob, "envelope kinds 5-7 are invalid")
        let shortEnvelope = Array(WKBBytes.blob([], envelope: 4).prefix(40))
        #expect(issue(shortEnvelope) == .badGeometryBlob)
    }

    @Test func pointsInEveryDimensionAndByteOrder() {
        for (type, dims) in [(1, 2), (1001, 3), (2001, 3), (3001, 4), (0x8000_0001, 3), (0xC000_0001, 4)] {
            let g = built(WKBBytes.point(3, 4, type: UInt32(type), dims: dims))
            #expect(g == Geometry.point(x: 3, y: 4), "type \(type)")
        }
        #expect(built(WKBBytes.point(3, 4, little: false)) == Geometry.point(x: 3, y: 4))
        // EWKB with an SRID: the 4 bytes after the type are skipped.
        var w = WKBBytes()
        w.head(0x2000_0001)
        w.u32(4326)
        w.points([(5, 6)], count: false)
        #expect(built(w.bytes) == Geometry.point(x: 5, y: 6))
    }

    @Test func linesPolygonsAndMultis() throws {
        let line = try #require(built(WKBBytes.line([(0, 0), (1, 1), (1, 1), (2, 0)], type: 1002, dims: 3)))
        #expect(line.kind == .lineString && line.pointCount == 3, "duplicates removed, Z dropped")
        let poly = try #require(built(WKBBytes.polygon([WKBBytes.square, WKBBytes.hole], type: 3003, dims: 4)))
        #expect(poly.kind == .polygon && poly.partCount == 2 && poly.pointCount == 10)
        let multi = WKBBytes.collection(
            6, [WKBBytes.polygon([WKBBytes.square]), WKBBytes.polygon([WKBBytes.square.map { ($0.0 + 20, $0.1) }])])
        #expect(built(multi)?.kind == .multiPolygon)
        let points = WKBBytes.collection(4, [WKBBytes.point(1, 1), WKBBytes.point(2, 2)])
        #expect(built(points) == Geometry(kind: .multiPoint, xy: [1, 1, 2, 2], partStarts: [0]))
        let lines = WKBBytes.collection(5, [WKBBytes.line([(0, 0), (1, 1)]), WKBBytes.line([(2, 2), (3, 3)])])
        #expect(built(lines)?.kind == .multiLineString)
    }

    @Test func collectionsOfOneFamilyAreReadMixedOnesSkipped() {
        let nested = WKBBytes.collection(7, [WKBBytes.collection(7, [WKBBytes.point(1, 1)]), WKBBytes.point(2, 2)])
        #expect(built(nested) == Geometry(kind: .multiPoint, xy: [1, 1, 2, 2], partStarts: [0]))
        let mixed = WKBBytes.collection(7, [WKBBytes.point(1, 1), WKBBytes.polygon([WKBBytes.square])])
        #expect(code(mixed) == .mixedGeometryCollection)
        #expect(code(WKBBytes.collection(7, [])) == .emptyGeometry)
        #expect(code(WKBBytes.point(.nan, .nan)) == .emptyGeometry, "POINT EMPTY")
        #expect(code(WKBBytes.polygon([])) == .emptyGeometry)
    }

    @Test func hostileWKBIsRefusedNotAllocated() {
        // A count of 2^32 - 1 points in a few bytes: refused before anything is reserved.
        var huge = WKBBytes()
        huge.head(2)
        huge.u32(0xFFFF_FFFF)
        huge.f64(1)
        #expect(code(huge.bytes) == .badWkb)
        var rings = WKBBytes()
        rings.head(3)
        rings.u32(0x7FFF_FFFF)
        #expect(code(rings.bytes) == .badWkb)
        var members = WKBBytes()
        members.head(7)
        members.u32(1_000_000)
        #expect(code(members.bytes) == .badWkb)
        #expect(code(Array(WKBBytes.point(1, 2).prefix(12))) == .badWkb, "truncated")
        #expect(code([7]) == .badWkb)
        #expect(code([2] + WKBBytes.point(1, 2).dropFirst()) == .badWkb, "byte order 2")
        #expect(code(WKBBytes.point(1, 2, type: 99)) == .badWkb)
        #expect(code(WKBBytes.point(1, 2, type: 4001)) == .badWkb, "no dimension 4000")
        // A MultiPoint holding a polygon.
        #expect(code(WKBBytes.collection(4, [WKBBytes.polygon([WKBBytes.square])])) == .badWkb)
        // Deep nesting: 40 collections, over the limit of 32.
        var deep = WKBBytes.point(1, 1)
        for _ in 0..<40 { deep = WKBBytes.collection(7, [deep]) }
        #expect(code(deep) == .tooComplex)
        var few = WKBReader.Limits()
        few.maxVertices = 3
        #expect(code(WKBBytes.line([(0, 0), (1, 1), (2, 2), (3, 3)]), limits: few) == .tooComplex)
        #expect(code(WKBBytes.point(.infinity, 1)) == .nonFiniteCoordinate)
        #expect(code(WKBBytes.point(.nan, 1)) == .nonFiniteCoordinate)
        #expect(code(WKBBytes.point(1e300, 1)) == .outOfDomain)
        #expect(code(WKBBytes.point(1, 1, type: 8)) == .unsupportedGeometryType, "CircularString")
        #expect(code(WKBBytes.point(1, 1, type: 1017)) == .unsupportedGeometryType, "Triangle Z")
    }
}
