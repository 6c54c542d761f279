import Foundation
import KartpackJSON
import KartpackTestSupport
import Testing

@testable import Reprojection

/// Issue 12: bare EPSG numbers, exact names, unnamed datums identified as GDAL does, oversized `.prj`, codes and
/// messages said once.
@Suite struct CRSIdentificationTests {
    static let utm18Unknown =
        #"PROJCS["WGS_1984_UTM_Zone_18N",GEOGCS["GCS_unknown",DATUM["D_unknown",SPHEROID["WGS_1984",6378137.0,"#
        + #"298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],"#
        + #"PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],"#
        + #"PARAMETER["Central_Meridian",-75.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],"#
        + #"UNIT["Meter",1.0]]"#

    @Test func unnamedDatumOnTheWGS84EllipsoidIsIdentifiedAsGDALDoes() throws {
        // gdalsrsinfo -e: "Confidence in this match: 60 %  EPSG:32618".
        let r = try CRSResolver.resolveDetailed(prjText: Self.utm18Unknown, override: nil, prjFile: "utm.prj")
        #expect(r.crs.epsg == 32618)
        #expect(r.confidence == 60 && r.crs.confidence == 60)
        #expect(r.crs.definition == "EPSG:32618" && r.crs.name == "WGS 84 / UTM zone 18N")
        let note = try #require(r.crs.identification)
        #expect(note.contains("D_unknown") && note.contains("60%"), "\(note)")
        // The coordinates are the same as with the file's own definition.
        let t = try CoordinateTransformer(from: r.crs, to: .wgs84)
        var xy = [500_000.0, 4_500_000.0]
        #expect(t.transform(&xy) == 0)
        #expect(abs(xy[0] + 75) < 1e-9 && abs(xy[1] - 40.65085) < 1e-4)
    }

    @Test func geographicUnnamedDatumOnWGS84Is4326() throws {
        let wkt =
            #"GEOGCS["GCS_unknown",DATUM["D_unknown",SPHEROID["WGS_1984",6378137.0,298.257223563]],"#
            + #"PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#
        let crs = try CRSResolver.resolve(prjText: wkt, override: nil, prjFile: "g.prj")
        #expect(crs.epsg == 4326 && crs.isGeographic)
    }

    @Test func unnamedDatumOnAnotherEllipsoidIsNotGuessed() throws {
        // GRS 1980 could be NAD83, ETRS89, SWEREF 99 …: no EPSG code is claimed.
        let wkt = Self.utm18Unknown.replacingOccurrences(
            of: #"SPHEROID["WGS_1984",6378137.0,298.257223563]"#, with: #"SPHEROID["GRS_1980",6378137.0,298.257222101]"#
        )
        let r = try CRSResolver.resolveDetailed(prjText: wkt, override: nil, prjFile: "u.prj")
        #expect(r.crs.epsg == nil && r.crs.identification == nil)
    }

    @Test func bareNumberIsAnEPSGCode() throws {
        let crs = try CRSResolver.resolve(prjText: nil, override: "4326", prjFile: nil)
        #expect(crs.epsg == 4326 && crs.definition == "EPSG:4326" && crs.origin == "option")
        #expect(try CRSResolver.resolve(prjText: nil, override: " 3006 ", prjFile: nil).epsg == 3006)
    }

    @Test func namesMustMatchExactly() throws {
        #expect(try CRSResolver.resolve(prjText: nil, override: "WGS 84", prjFile: nil).epsg == 4326)
        #expect(try CRSResolver.resolve(prjText: nil, override: "sweref99 tm", prjFile: nil).epsg == 3006)
        do {
            _ = try CRSResolver.resolve(prjText: nil, override: "foo", prjFile: nil)
            Issue.record("foo must not become Amersfoort")
        } catch {
            #expect(error.code == .badSourceCrs && error.exitCode == .usage)
            #expect(error.description.contains("Amersfoort") && error.description.contains("EPSG:4326"))
        }
    }

    @Test func projListsAreSaidOnce() {
        #expect(
            ProjContext.sayOnce("proj_create: several objects matching this name: A to 4326, A to 4326")
                == "proj_create: several objects matching this name: A to 4326")
        #expect(ProjContext.sayOnce("x: a, b; y: c") == "x: a, b; y: c")
    }

    @Test func oversizedPrjSaysTooLargeNotMissing() throws {
        let dir = try TemporaryDirectory(prefix: "kp-prj-large")
        let path = dir.file("layer.prj")
        try Data(repeating: 0x20, count: WKTSanitizer.maxBytes + 10).write(to: URL(fileURLWithPath: path))
        do {
            _ = try CRSResolver.resolve(prjText: nil, override: nil, prjFile: path)
            Issue.record("expected an error")
        } catch {
            #expect(error == .prjTooLarge(file: path, size: WKTSanitizer.maxBytes + 10, limit: WKTSanitizer.maxBytes))
            #expect(error.description.contains("larger than the 65536-byte limit") && error.code == .prjTooLarge)
            #expect(!error.description.contains("no .prj file"))
        }
        // A .shp path (no .prj at all) is still "missing".
        #expect(throws: ProjectionError.missingPrj(file: dir.file("layer.shp"))) {
            try CRSResolver.resolve(prjText: nil, override: nil, prjFile: dir.file("layer.shp"))
        }
    }

    @Test func errorsEndWithTheirCodeAndRoundTripThroughJSON() throws {
        let errors: [ProjectionError] = [
            .missingPrj(file: "a.prj"), .missingPrj(file: nil),
            .prjTooLarge(file: "a.prj", size: 70_000, limit: 65_536),
            .unparseablePrj(file: "a.prj", detail: "x"), .hostilePrj(file: nil, reason: "y"),
            .badOverride(text: "z", detail: "w"), .cannotCreateTransform(source: "a", target: "b", detail: "c"),
            .projDatabaseMissing(detail: "d"), .projSetupFailed(detail: "e"),
        ]
        for e in errors {
            #expect(e.description.hasSuffix("[\(e.code)]"))
            #expect(e.description.components(separatedBy: "--source-crs").count <= 3, "said once: \(e.description)")
            let text = try e.json.serialized()
            #expect(ProjectionError(json: try JSONParser.parse(text)) == e, "\(text)")
        }
        #expect(ProjectionError(json: .object([("code", .string("nope"))])) == nil)
        #expect(
            ProjectionError.hostilePrj(file: "a.prj", reason: "r").description.components(separatedBy: "a.prj").count
                == 2)
    }
}
