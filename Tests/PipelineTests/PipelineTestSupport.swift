import Foundation
import Gzip
import KartpackCore
import KartpackTestSupport
import TileArchive
import VectorTile

@testable import ConvertEngine

/// The ESRI WKT of SWEREF 99 TM, as in the sample data.
let sweref99TM = Array(
    (#"PROJCS["SWEREF99_TM",GEOGCS["GCS_SWEREF99",DATUM["D_SWEREF99",SPHEROID["GRS_1980",6378137.0,298.257222101]],"#
        + #"PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],"#
        + #"PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian","#
        + #"15.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#)
        .utf8)

/// WGS 84 as ESRI WKT.
let wgs84Prj = Array(
    (#"GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],"#
        + #"UNIT["Degree",0.0174532925199433]]"#)
        .utf8)

/// Every decoded tile of a package, keyed by tile.
func decodeAll(_ path: String) throws -> [TileCoordinate: DecodedTile] {
    var out: [TileCoordinate: DecodedTile] = [:]
    if path.hasSuffix(".mbtiles") {
        let r = try MBTilesReader(path: path)
        var failure: (any Error)?
        try r.forEachTile { key, data in
            do {
                out[TileCoordinate(z: key.z, x: key.x, y: key.y)] = try MVTDecoder().decode(
                    try Gzip.decompress(data, maxOutput: 1 << 26))
            } catch {
                failure = error
                return false
            }
            return true
        }
        if let failure { throw failure }
        return out
    }
    let r = try PMTilesReader(path: path)
    for e in try r.entries() {
        let data = try r.data(for: e)
        let tile = try MVTDecoder().decode(try Gzip.decompress(data, maxOutput: 1 << 26))
        for k in 0..<UInt64(e.entry.runLength) {
            guard let key = PMTilesTileID.coordinate(e.entry.tileID + k) else { continue }
            out[TileCoordinate(z: key.z, x: key.x, y: key.y)] = tile
        }
    }
    return out
}

/// Feature ids per layer found at one zoom.
func ids(in tiles: [TileCoordinate: DecodedTile], zoom: Int) -> [String: Set<UInt64>] {
    var out: [String: Set<UInt64>] = [:]
    for (t, tile) in tiles where t.z == zoom {
        for l in tile.layers {
            for f in l.features { if let id = f.id { out[l.name, default: []].insert(id) } }
        }
    }
    return out
}

/// Runs a conversion with defaults suitable for tests.
func convert(
    _ inputs: [String], to output: String, zooms: ClosedRange<Int>, threads: Int = 1,
    configure: (inout ConvertOptions) -> Void = { _ in }
) throws -> ConvertReport {
    var o = ConvertOptions(
        inputs: inputs.map { ConvertInput(path: $0) }, output: output,
        format: ArchiveFormat.from(path: output) ?? .pmtiles)
    o.minZoom = zooms.lowerBound
    o.maxZoom = zooms.upperBound
    o.threads = threads
    configure(&o)
    return try Converter(options: o, diagnostics: DiagnosticSink()).run()
}
