import Foundation
import KartpackCore
import KartpackTestSupport
import Testing
/// Real files: the Natural Earth samples Debian's python3-geopandas ships.
@Suite struct NaturalEarthTests {
    static let lowres = RepositoryPaths.geopandasData.appendingPathComponent(
        "naturalearth_lowres/naturalearth_lowres.shp"
    ).path
    static let cities = RepositoryPaths.geopandasData.appendingPathComponent(
        "naturalearth_cities/naturalearth_cities.shp"
    ).path

    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: lowres),
            "python3-geopandas's naturalearth_lowres.shp is not installed"))
    func countriesReadLikeGDAL() throws {
        let r = try readPath(Self.lowres)
        #expect(r.features.count == 177 && r.stats.skipped.isEmpty)
        #expect(r.schema.name == "naturalearth_lowres" && r.schema.geometryKind == .polygon)
        #expect(r.schema.fields.map(\.name) == ["pop_est", "continent", "name", "iso_a3", "gdp_md_est"])
        #expect(r.schema.fields.map(\.type) == [.double, .string, .string, .string, .integer])
        #expect(
            r.schema.encoding
                == EncodingInfo(name: "ISO-8859-1", origin: "cpg", detail: "ISO-8859-1", confidence: "declared"))
        #expect(r.prjText?.hasPrefix("GEOGCS[\"GCS_WGS_1984\"") == true)
        let fiji = r.features[0]
        #expect(fiji.properties["name"] == .string("Fiji"))
        #expect(fiji.properties["iso_a3"] == .string("FJI"))
        #expect(fiji.properties["pop_est"] == .double(889_953))
        #expect(fiji.properties["gdp_md_est"] == .int(5496))
        #expect(fiji.geometry.kind == .multiPolygon)
        #expect(r.features[1].properties["name"] == .string("Tanzania") && r.features[1].geometry.kind == .polygon)
        // GDAL reports 29 multipolygons in this file.
        #expect(r.features.filter { $0.geometry.kind == .multiPolygon }.count == 29)
        #expect(r.features.contains { $0.properties["name"] == .string("Côte d'Ivoire") })
        // Shells clockwise, holes counter-clockwise.
        for f in r.features {
            let g = f.geometry
            for p in 0..<g.polygonCount {
                for (k, part) in g.partRange(ofPolygon: p).enumerated() {
                    let range = g.pointRange(ofPart: part)
                    let area = signedRingArea(g.xy[(2 * range.lowerBound)..<(2 * range.upperBound)])
                    #expect(k == 0 ? area < 0 : area > 0)
                }
            }
        }
        let b = try #require(r.schema.bounds)
        #expect(b.minX == -180 && abs(b.maxX - 180) < 1e-9 && b.minY == -90 && abs(b.maxY - 83.64513) < 1e-9)
    }

    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: cities),
            "python3-geopandas's naturalearth_cities.shp is not installed"))
    func citiesReadLikeGDAL() throws {
        let r = try readPath(Self.cities)
        #expect(r.features.count == 243 && r.stats.skipped.isEmpty)
        #expect(r.schema.geometryKind == .point && r.schema.fields.map(\.name) == ["name"])
        #expect(r.features[0].properties["name"] == .string("Vatican City"))
        #expect(r.features[0].geometry.xy == [12.4533865, 41.9032822])
    }
}
