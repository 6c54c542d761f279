import Foundation
import KartpackJSON
import KartpackTestSupport
import Testing

/// Shapes from -180° to +180° (issue 15): an edge between the two sides of the antimeridian along one parallel is
/// the whole world's width, not a crossing. A whole-world rectangle stays a polygon over every tile (it was
/// "no area left after repair"), a 2-point line along a parallel stays a line across the world (it was a tiny
/// stand-in with bounds west > east), and a real crossing (179° → -179°) is still split.
@Suite struct WorldSpanningCommandTests {
    private static let wgs84 = Array(
        ("GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],"
            + "PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]]").utf8)

    private static func convert(_ shape: ShapefileFixture.Shape, type: ShapefileFixture.ShapeType) throws -> (
        report: JSONValue, tiles: [Int: Int], dir: TemporaryDirectory
    ) {
        let dir = try TemporaryDirectory()
        var f = ShapefileFixture(shapeType: type, shapes: [shape])
        f.fields = [ShapefileFixture.Field("NAME", "C", width: 10)]
        f.rows = [[Array("w".utf8)]]
        f.prj = wgs84
        let shp = try f.write(to: dir.path)
        let out = dir.file("out.pmtiles")
        let r = try runKartpack(["convert", shp, "-o", out, "--max-zoom", "3", "--report", dir.file("r.json")])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: dir.file("r.json")))))
        let inspect = try runKartpack(["inspect", out, "--format", "json"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        var tiles: [Int: Int] = [:]
        for z in try JSONParser.parse(Array(inspect.stdout.utf8))["zooms"]?.arrayValue ?? [] {
            if let zoom = z["zoom"]?.intValue, let n = z["tiles"]?.intValue { tiles[Int(zoom)] = Int(n) }
        }
        return (report, tiles, dir)
    }

    private static func layer(_ report: JSONValue) -> JSONValue? { report["inputs"]?.arrayValue?.first }

    @Test func aWholeWorldRectangleCoversEveryTile() throws {
        let ring: [Double] = [-180, -80, -180, 80, 180, 80, 180, -80, -180, -80]
        let (report, tiles, _) = try Self.convert(.polygon([ring]), type: .polygon)
        let input = try #require(Self.layer(report))
        #expect(input["written"]?.intValue == 1, "\(input)")
        #expect(input["rejected"]?.objectMembers?.isEmpty ?? true, "\(input)")
        // ±80° lies inside the top and bottom tile rows from zoom 0 to 3: every tile of every zoom.
        #expect(tiles == [0: 1, 1: 4, 2: 16, 3: 64], "\(tiles)")
    }

    @Test(arguments: [[-180.0, 5, 180, 5], [180.0, 5, -180, 5]])
    func aLineAlongAParallelFromEdgeToEdgeCrossesTheWorld(_ xy: [Double]) throws {
        let (report, tiles, _) = try Self.convert(.polyLine([xy]), type: .polyLine)
        let input = try #require(Self.layer(report))
        #expect(input["written"]?.intValue == 1, "\(input)")
        #expect(input["rejected"]?.objectMembers?.isEmpty ?? true, "\(input)")
        // One row of tiles, all of it: 2^z tiles at zoom z (5°N lies in one row at every zoom here).
        #expect(tiles == [0: 1, 1: 2, 2: 4, 3: 8], "\(tiles)")
    }

    @Test func aRealCrossingIsStillSplitAtTheAntimeridian() throws {
        // 179°E → 179°W is 2° long the short way: two tiles at zoom 3 (x = 0 and x = 7), not the whole row.
        let (report, tiles, _) = try Self.convert(.polyLine([[179, 5, -179, 5]]), type: .polyLine)
        let input = try #require(Self.layer(report))
        #expect(input["written"]?.intValue == 1, "\(input)")
        #expect(tiles[3] == 2, "\(tiles)")
    }
}
