import Dispatch
import KartpackCore
import Synchronization
import Testing

@testable import Reprojection

@Suite struct CoordinateTransformerTests {
    private func sweref() throws -> CRSInfo {
        try CRSResolver.resolve(prjText: PrjFixtures.sweref99TM, override: nil, prjFile: nil)
    }

    @Test func sweref99ToWebMercatorUsesEastingNorthingOrder() throws {
        let t = try CoordinateTransformer(from: try sweref(), to: .webMercator)
        // cs2cs -d 4 EPSG:3006 EPSG:3857 <<< "6580821.991 674032.357" (PROJ 9.1.1; cs2cs takes EPSG's N,E order)
        // gives 2010340.5022 8252107.4083.
        var xy = [674_032.357, 6_580_821.991]
        #expect(t.transform(&xy) == 0)
        #expect(abs(xy[0] - 2_010_340.5022) < 1e-3)
        #expect(abs(xy[1] - 8_252_107.4083) < 1e-3)
        #expect(!t.isBallpark)
        #expect(t.operationDescription.contains("SWEREF99 to WGS 84 (1)"))
        #expect(t.operationDescription.contains("Pseudo-Mercator"))
        #expect(t.operationDescription.contains("accuracy 1 m"))
        #expect(t.accuracy == 1)
    }

    @Test func sweref99ToWGS84IsLonLat() throws {
        let t = try CoordinateTransformer(from: try sweref(), to: .wgs84)
        // cs2cs -d 9 EPSG:3006 EPSG:4326 <<< "6580821.991 674032.357" gives 59.330230999 18.059195994 (lat lon).
        var xy = [674_032.357, 6_580_821.991]
        #expect(t.transform(&xy) == 0)
        #expect(abs(xy[0] - 18.059195994) < 1e-8)
        #expect(abs(xy[1] - 59.330230999) < 1e-8)
    }

    @Test func usFeetStatePlaneMatchesCs2cs() throws {
        let crs = try CRSResolver.resolve(prjText: PrjFixtures.nybb, override: nil, prjFile: nil)
        // First vertex of nybb.shp record 0 (Staten Island), in US survey feet. Reference values from PROJ 9.1.1:
        //   cs2cs -d 4 EPSG:2263 EPSG:3857  -> -8243264.8507 4948597.8365
        //   cs2cs -d 10 EPSG:2263 EPSG:4326 -> 40.5664220342 -74.0505080640 (lat lon)
        // (cs2cs with the ESRI nybb.prj text as source gives the same 3857 values.)
        let point = [970_217.022399902, 145_643.332214355]
        let merc = try CoordinateTransformer(from: crs, to: .webMercator)
        var xy = point
        #expect(merc.transform(&xy) == 0)
        #expect(abs(xy[0] - -8_243_264.8507) < 1e-3)
        #expect(abs(xy[1] - 4_948_597.8365) < 1e-3)
        let geo = try CoordinateTransformer(from: crs, to: .wgs84)
        xy = point
        #expect(geo.transform(&xy) == 0)
        #expect(abs(xy[0] - -74.0505080640) < 1e-9)
        #expect(abs(xy[1] - 40.5664220342) < 1e-9)
    }

    @Test(arguments: [(89.9, 1.0), (90.0, 1.0), (-89.9, -1.0), (-90.0, -1.0), (85.06, 1.0)])
    func webMercatorClampsLatitude(lat: Double, sign: Double) throws {
        let wgs = try CRSResolver.resolve(prjText: nil, override: "EPSG:4326", prjFile: nil)
        let t = try CoordinateTransformer(from: wgs, to: .webMercator)
        var xy = [15.0, lat]
        #expect(t.transform(&xy) == 0)
        #expect(xy[1] == sign * 20_037_508.342789244)
        #expect(abs(xy[0] - 15 * 20_037_508.342789244 / 180) < 1e-6)
    }

    @Test func webMercatorBelowTheClampMatchesPROJ() throws {
        let wgs = try CRSResolver.resolve(prjText: nil, override: "EPSG:4326", prjFile: nil)
        let t = try CoordinateTransformer(from: wgs, to: .webMercator)
        // cs2cs -d 4 EPSG:4326 EPSG:3857 <<< "59.330231 18.059196" gives 2010340.5029 8252107.4085.
        var xy = [18.059196, 59.330231, 0, 0]
        #expect(t.transform(&xy) == 0)
        #expect(abs(xy[0] - 2_010_340.5029) < 1e-3)
        #expect(abs(xy[1] - 8_252_107.4085) < 1e-3)
        #expect(xy[2] == 0 && xy[3] == 0)
    }

    @Test func geographicLongitudesPassThrough() throws {
        let wgs = try CRSResolver.resolve(prjText: nil, override: "EPSG:4326", prjFile: nil)
        let geo = try CoordinateTransformer(from: wgs, to: .wgs84)
        var xy = [179.9, 10, 180.1, 10, -180.1, 10]
        #expect(geo.transform(&xy) == 0)
        #expect(abs(xy[2] - 180.1) < 1e-12)
        #expect(abs(xy[4] - -180.1) < 1e-12)
        let merc = try CoordinateTransformer(from: wgs, to: .webMercator)
        var m = [180.1, 10.0]
        #expect(merc.transform(&m) == 0)
        #expect(m[0] > SphericalMercator.halfWorld)
    }

    @Test func failuresAreCountedAndNonFinite() throws {
        let utm = try CRSResolver.resolve(prjText: nil, override: "EPSG:32633", prjFile: nil)
        let t = try CoordinateTransformer(from: utm, to: .webMercator)
        var xy = [500_000.0, 6_000_000.0, 1e9, 1e9, .nan, 0, 500_000.0, 6_100_000.0]
        #expect(t.transform(&xy) == 2)
        #expect(xy[0].isFinite && xy[1].isFinite)
        #expect(!xy[2].isFinite && !xy[3].isFinite)
        #expect(!xy[4].isFinite && !xy[5].isFinite)
        #expect(xy[6].isFinite && xy[7].isFinite)
        // The next batch starts clean (errno reset).
        var ok = [500_000.0, 6_000_000.0]
        #expect(t.transform(&ok) == 0)
        // Latitudes beyond ±90 from a geographic source are failures too.
        let wgs = try CRSResolver.resolve(prjText: nil, override: "EPSG:4326", prjFile: nil)
        let geo = try CoordinateTransformer(from: wgs, to: .wgs84)
        var bad = [0.0, 95.0, 1.0]  // trailing odd value is left alone
        #expect(geo.transform(&bad) == 1)
        #expect(bad[2] == 1.0)
        var empty: [Double] = []
        #expect(geo.transform(&empty) == 0)
    }

    @Test func geometryTransformMovesXY() throws {
        let t = try CoordinateTransformer(from: try sweref(), to: .webMercator)
        var g = Geometry(kind: .point, xy: [674_032.357, 6_580_821.991], partStarts: [0])
        #expect(t.transform(&g) == 0)
        #expect(abs(g.xy[0] - 2_010_340.5022) < 1e-3)
    }

    @Test func transformBoundsOfASwerefBox() throws {
        let t = try CoordinateTransformer(from: try sweref(), to: .wgs84)
        let box = Bounds(minX: 600_000, minY: 6_500_000, maxX: 700_000, maxY: 6_600_000)
        // Reference: proj_trans_bounds(densify_pts 21) on the normalized EPSG:3006 -> EPSG:4326 operation,
        // PROJ 9.1.1 (C, same calls): 16.7221932469 58.5942300929 18.5326020406 59.5264083056.
        let b = try #require(t.transformBounds(box))
        #expect(abs(b.minX - 16.7221932469) < 1e-8)
        #expect(abs(b.minY - 58.5942300929) < 1e-8)
        #expect(abs(b.maxX - 18.5326020406) < 1e-8)
        #expect(abs(b.maxY - 59.5264083056) < 1e-8)
        // Every transformed corner and edge midpoint lies inside.
        var pts = [
            600_000.0, 6_500_000, 700_000, 6_500_000, 600_000, 6_600_000, 700_000, 6_600_000,
            650_000, 6_500_000, 650_000, 6_600_000, 600_000, 6_550_000, 700_000, 6_550_000,
        ]
        #expect(t.transform(&pts) == 0)
        for i in stride(from: 0, to: pts.count, by: 2) {
            #expect(b.contains(Bounds(minX: pts[i], minY: pts[i + 1], maxX: pts[i], maxY: pts[i + 1])))
        }
        let m = try CoordinateTransformer(from: try sweref(), to: .webMercator)
        let mb = try #require(m.transformBounds(box))
        let sw = SphericalMercator.project(lon: b.minX, lat: b.minY)
        #expect(abs(mb.minX - sw.x) < 1e-6 && abs(mb.minY - sw.y) < 1e-6)
        #expect(m.transformBounds(.empty) == nil)
        let utm = try CoordinateTransformer(
            from: try CRSResolver.resolve(prjText: nil, override: "EPSG:32633", prjFile: nil), to: .wgs84)
        #expect(utm.transformBounds(Bounds(minX: 1e9, minY: 1e9, maxX: 2e9, maxY: 2e9)) == nil)
    }

    @Test func webMercatorSourcePassesThroughWithClamp() throws {
        let crs = try CRSResolver.resolve(prjText: nil, override: "EPSG:3857", prjFile: nil)
        let t = try CoordinateTransformer(from: crs, to: .webMercator)
        var xy = [1_000_000.0, 30_000_000.0, 5.0, -5.0]
        #expect(t.transform(&xy) == 0)
        #expect(xy == [1_000_000, SphericalMercator.halfWorld, 5, -5])
        let b = try #require(t.transformBounds(Bounds(minX: 0, minY: -3e7, maxX: 1, maxY: 1)))
        #expect(b.minY == -SphericalMercator.halfWorld)
    }

    @Test func ballparkOperationIsReported() throws {
        let crs = try CRSResolver.resolve(prjText: PrjFixtures.customDatum, override: nil, prjFile: nil)
        let t = try CoordinateTransformer(from: crs, to: .wgs84)
        #expect(t.isBallpark)
        #expect(t.operationDescription.contains("Ballpark"))
        var xy = [18.0, 59.0]
        #expect(t.transform(&xy) == 0)
        #expect(xy == [18.0, 59.0])
    }

    @Test func severalCandidateOperationsAreDescribed() throws {
        // NAD83 -> WGS 84 has several operations; PROJ keeps them all and picks one per point.
        let crs = try CRSResolver.resolve(prjText: nil, override: "EPSG:4269", prjFile: nil)
        let t = try CoordinateTransformer(from: crs, to: .wgs84)
        #expect(t.operationDescription.contains("NAD83 to WGS 84"))
        #expect(!t.isBallpark)
        var xy = [-74.0, 40.7]
        #expect(t.transform(&xy) == 0)
        #expect(abs(xy[0] - -74) < 1e-4 && abs(xy[1] - 40.7) < 1e-4)
    }

    @Test func badDefinitionIsAnError() {
        let info = CRSInfo(name: "x", epsg: nil, definition: "EPSG:999999", origin: "prj", isGeographic: false)
        #expect(throws: ProjectionError.self) { try CoordinateTransformer(from: info, to: .wgs84) }
        let hostile = CRSInfo(
            name: "x", epsg: nil, definition: "+proj=longlat +nadgrids=/dev/zero", origin: "prj", isGeographic: true)
        #expect(throws: ProjectionError.self) { try CoordinateTransformer(from: hostile, to: .wgs84) }
    }

    @Test func oneTransformerPerThreadWorksConcurrently() throws {
        let crs = try sweref()
        let n = 20_000
        var input: [Double] = []
        for i in 0..<n { input += [500_000 + Double(i), 6_500_000 + Double(i) * 3] }
        let frozenInput = input
        let results = Mutex<[Int: [Double]]>([:])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            do {
                let t = try CoordinateTransformer(from: crs, to: worker % 2 == 0 ? .webMercator : .wgs84)
                var xy = frozenInput
                let bad = t.transform(&xy)
                if bad != 0 { failures.withLock { $0.append("worker \(worker): \(bad) failures") } }
                results.withLock { $0[worker] = xy }
            } catch {
                failures.withLock { $0.append("worker \(worker): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let merc = try CoordinateTransformer(from: crs, to: .webMercator)
        let geo = try CoordinateTransformer(from: crs, to: .wgs84)
        var m = input
        var g = input
        _ = merc.transform(&m)
        _ = geo.transform(&g)
        #expect(results.withLock { $0[0] } == m)
        #expect(results.withLock { $0[1] } == g)
        #expect(results.withLock { $0[2] } == m)
        #expect(results.withLock { $0[3] } == g)
    }
}
