import Foundation
import GeometryOps
import KartpackCore
import KartpackJSON
import TileArchive
import ConvertEngine
import Publishing
import PipelineFiles

/// `kartpack extract`: the tiles of a package that touch an area, copied as stored (no re-tiling, no clipping to
/// the area's outline) into a new clustered package, like `pmtiles extract`.
package struct TileExtractor {
    /// The area: a longitude/latitude box, or polygons in Web Mercator metres (a region of a Shapefile).
    package enum Area: Sendable {
        case bbox(Bounds)
        case polygons(path: String, field: String, value: String)
    }

    package var input: String
    package var output: String
    package var area: Area
    package var maxZoom: Int?
    package var force = false

    package init(input: String, output: String, area: Area, maxZoom: Int? = nil) {
        self.input = input
        self.output = output
        self.area = area
        self.maxZoom = maxZoom
    }

    /// What was copied.
    package struct Summary: Sendable {
        package var tiles: Int
        package var bytes: UInt64
        /// The part's tile compression (`none`, `gzip`, or the PMTiles code of one Kartpack does not decode).
        package var compression: String
        /// Tiles that were stored uncompressed and are gzip-compressed in the part (an MBTiles part, whose MVT
        /// tiles are gzip; or plain tiles in a source that declares gzip). Their MVT bytes are unchanged.
        package var gzipped: Int
        /// What reading the `--region` polygons found: region records that cannot be projected to Web Mercator
        /// (`polygons_not_projected`), left out of the area.
        package var warnings: [Diagnostic] = []
    }

    /// Copies the tiles and publishes the part atomically.
    package func run() throws -> Summary {
        guard let format = ArchiveFormat.from(path: output) else {
            throw PipelineError.badOutput(path: output, reason: "must end in .pmtiles or .mbtiles")
        }
        try OutputTarget.check(output, force: force)
        let source = try openTileArchive(path: input)
        let metadata = try source.metadata()
        let header = source.headerMetadata
        let meta: (String) -> JSONValue? = { k in metadata[k] ?? header.first { $0.key == k }?.value }
        try Self.checkVectorTiles(source, metadata: metadata, path: input)
        let compression = try Self.partCompression(source.tileCompression, format: format, input: input)
        let diagnostics = DiagnosticSink()
        let test = try TileTest(area, diagnostics: diagnostics)
        let top = maxZoom ?? Int.max
        var picked: [(TileCoordinate, [UInt8])] = []
        var gzipped = 0
        var failure: TileArchiveError?
        try Self.forEachTileTouching(test, in: source, maxZoom: top) { t, bytes in
            // Tiles are copied as stored; only a plain tile going where gzip is declared is compressed.
            let isGzip = bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
            guard compression == .gzip, !isGzip else {
                picked.append((t, bytes))
                return true
            }
            do throws(TileArchiveError) {
                picked.append((t, try TileCompression.gzip.compress(bytes)))
                gzipped += 1
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        guard !picked.isEmpty else {
            throw PipelineError.nothingToWrite(
                reasons: ["no tile of \(input) touches the area"], report: .empty(output))
        }
        let order = format.tileOrder
        picked.sort { order.precedes($0.0, $1.0) }
        let writer: any TileArchiveWriting =
            format == .pmtiles
            ? try PMTilesWriter(path: output, overwrite: force, tileCompression: compression)
            : try MBTilesWriter(path: output, overwrite: force)
        do {
            for (t, bytes) in picked { try writer.write(z: t.z, x: t.x, y: t.y, data: bytes) }
            let zooms = picked.map(\.0.z)
            var part = Self.metadata(metadata, minZoom: zooms.min() ?? 0, maxZoom: zooms.max() ?? 0)
            // PMTiles headers give bounds as numbers, MBTiles metadata rows as "W,S,E,N" text.
            let sourceBounds =
                meta("bounds")?.arrayValue?.compactMap(\.doubleValue)
                ?? meta("bounds")?.stringValue?.split(separator: ",").compactMap {
                    Double($0.trimmingCharacters(in: .whitespaces))
                }
            var b = test.geographicBounds
            if let s = sourceBounds, s.count == 4 {
                b = Bounds(
                    minX: max(b.minX, s[0]), minY: max(b.minY, s[1]), maxX: min(b.maxX, s[2]), maxY: min(b.maxY, s[3]))
            }
            if !b.isEmpty {
                part.bounds = GeoBounds(west: b.minX, south: b.minY, east: b.maxX, north: b.maxY)
                part.center = GeoCenter(
                    longitude: (b.minX + b.maxX) / 2, latitude: (b.minY + b.maxY) / 2, zoom: part.maxZoom ?? 0)
            }
            let summary = try writer.finish(metadata: part)
            return Summary(
                tiles: picked.count, bytes: summary.fileBytes, compression: Self.name(compression), gzipped: gzipped,
                warnings: diagnostics.samples.filter { $0.severity == .warning })
        } catch {
            writer.abort()
            throw error
        }
    }

    /// The part's tile compression: a PMTiles part keeps the source's (its tiles are copied as stored, whatever
    /// the compression); an MBTiles part holds gzip MVT, so uncompressed tiles are gzip-compressed on the way and
    /// a compression Kartpack cannot decode (brotli, zstd) is refused.
    static func partCompression(
        _ source: TileCompression, format: ArchiveFormat, input: String
    ) throws -> TileCompression {
        guard format == .mbtiles else { return source }
        if case .unsupported = source {
            throw PipelineError.badOutput(
                path: input,
                reason: "stores tiles with \(name(source)) compression; an MBTiles part holds gzip tiles and Kartpack "
                    + "does not decode \(name(source)): extract to a .pmtiles part, which keeps the compression")
        }
        return .gzip
    }

    /// `none`, `gzip`, `brotli`, `zstd` or `code N`.
    package static func name(_ c: TileCompression) -> String {
        switch c {
        case .none: "none"
        case .gzip: "gzip"
        case .unsupported(let code):
            switch PMTilesHeader.Compression(rawValue: code) {
            case .brotli: "brotli"
            case .zstd: "zstd"
            default: "code \(code)"
            }
        }
    }

    /// Refuses a source whose tiles are not vector tiles (the part is always an MVT package).
    static func checkVectorTiles(_ source: any TileArchiveReading, metadata: JSONValue, path: String) throws {
        var kind: String?
        if let pm = source as? PMTilesReader {
            let code = pm.header.tileTypeCode
            if code != PMTilesHeader.TileType.mvt.rawValue, code != PMTilesHeader.TileType.unknown.rawValue {
                kind = PMTilesHeader.TileType(rawValue: code).map { "\($0)" } ?? "tile type \(code)"
            }
        } else if let f = metadata["format"]?.stringValue, f.lowercased() != "pbf", f.lowercased() != "mvt" {
            kind = f
        }
        if let kind {
            throw InputRejection(
                code: .notVectorTiles,
                message: "\(path): holds \(kind) tiles; extract copies vector tile (MVT) "
                    + "packages only")
        }
    }

    /// The source's metadata for the part: its standard keys and every other key as is; zooms of the part.
    /// Each layer's zooms are narrowed to the part's; a layer shown only at zooms the part leaves out (labels from
    /// zoom 13 in a part cut at `--max-zoom 11`) has no tile in the part and leaves `vector_layers`.
    package static func metadata(_ m: JSONValue, minZoom: Int, maxZoom: Int) -> ArchiveMetadata {
        let standard: Set<String> = [
            "name", "type", "vector_layers", "attribution", "description", "generator", "version", "bounds", "center",
            "minzoom", "maxzoom", "format", "json", "scheme",
        ]
        let layers = PackageMetadata(parsing: m).layers.compactMap { l -> VectorLayerInfo? in
            let fields = l.fields.map {
                VectorLayerField(name: $0.name, type: VectorFieldType(rawValue: $0.type) ?? .string)
            }
            let lo = l.minZoom.map { max(minZoom, $0) }
            let hi = l.maxZoom.map { min(maxZoom, $0) }
            guard (lo ?? minZoom) <= (hi ?? maxZoom) else { return nil }
            return VectorLayerInfo(id: l.id, fields: fields, minZoom: lo, maxZoom: hi, description: l.description)
        }
        return ArchiveMetadata(
            name: m["name"]?.stringValue ?? "", description: m["description"]?.stringValue,
            attribution: m["attribution"]?.stringValue, version: m["version"]?.stringValue,
            type: m["type"]?.stringValue ?? "overlay", minZoom: minZoom, maxZoom: maxZoom, vectorLayers: layers,
            generator: m["generator"]?.stringValue,
            extra: (m.objectMembers ?? []).filter { !standard.contains($0.key) })
    }

    /// Which tiles touch the area: the box test, then (for polygons) GEOS on the tile's rectangle.
    package final class TileTest {
        package let box: Bounds
        package let engine: GeometryEngine?
        package let region: EngineGeometry?
        let geographicBounds: Bounds

        /// The test for `area`; problems reading its polygons (records that cannot be projected) go to
        /// `diagnostics`, and name the cause when no polygon is left.
        package init(_ area: Area, diagnostics: DiagnosticSink = DiagnosticSink()) throws {
            switch area {
            case .bbox(let b):
                box = SphericalMercator.project(box: b)
                engine = nil
                region = nil
            case .polygons(let path, let field, let value):
                let polys = try Regions.readPolygons(
                    path: path, sourceCRS: nil, encoding: nil, diagnostics: diagnostics
                ) { p, _ in
                    RegionSet.value(p, field).map(RegionSet.text) == value
                }
                guard !polys.isEmpty else {
                    let why = diagnostics.samples.filter { $0.code == .polygonsNotProjected }.map(\.message)
                    throw RegionError.emptyRegion(
                        "no polygon in \(path) has \(field)=\(value)" + why.map { "; \($0)" }.joined())
                }
                let clip = try Regions.clipRegion(polygons: polys, buffer: 0, what: path)
                let e = GeometryEngine()
                engine = e
                region = try e.prepare(clip.geometries[0])
                box = clip.bounds
            }
            let sw = SphericalMercator.unproject(x: box.minX, y: box.minY)
            let ne = SphericalMercator.unproject(x: box.maxX, y: box.maxY)
            geographicBounds = Bounds(minX: sw.longitude, minY: sw.latitude, maxX: ne.longitude, maxY: ne.latitude)
        }

        func touches(_ t: TileCoordinate) -> Bool {
            let b = SphericalMercator.bounds(of: t)
            guard b.intersects(box) else { return false }
            guard let engine, let region else { return true }
            guard let rect = try? engine.rectangle(b) else { return true }
            return (try? engine.intersection(rect, region, family: .polygon)) != nil
        }
    }
}

extension ConvertReport {
    /// The report of a run that read nothing.
    package static func empty(_ output: String) -> ConvertReport {
        ConvertReport(
            kartpack: Kartpack.version, output: output, format: "", inputs: [], featuresRead: 0, featuresWritten: 0,
            rejected: [:], repaired: [:], zooms: [], tiles: 0, tileContents: 0, bytes: 0, seconds: 0, timings: [:],
            warnings: [:], exitCode: ExitCode.dataError.rawValue, published: false)
    }
}
