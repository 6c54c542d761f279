import Foundation
import GeometryOps
import KartpackCore
import Reprojection
import Shapefile
import Styling

/// Errors preparing the clip region or the style's ancestor sets.
package enum RegionError: KartpackError {
    case emptyRegion(String)
    case unreadable(path: String, reason: String)

    package var exitCode: ExitCode { .dataError }
    package var description: String {
        switch self {
        case .emptyRegion(let what): "clip region is empty: \(what)"
        case .unreadable(let p, let r): "\(p): \(r)"
        }
    }
}

/// The polygons features are compared with before the feature phase: the clip region and the style's ancestor
/// sets (descendant selectors), in Web Mercator metres, unwrapped at the antimeridian like the features are.
/// Read once, on the calling thread, with its own GEOS and PROJ contexts; workers build their own GEOS indexes.
package struct Regions: Sendable {
    /// The region every feature is clipped to, if any.
    package var clip: SharedPolygons?
    /// Polygons per ancestor selector (raw value of `AncestorSelectorID`).
    package var ancestors: [Int: SharedPolygons] = [:]

    /// No clip, no ancestors.
    package init() {}

    /// Reads the clip region and the ancestor sets `options` and `classifier` need.
    package init(options: ConvertOptions, classifier: StyleClassifier?, diagnostics: DiagnosticSink) throws {
        clip = try options.clip.map { try Self.clipRegion($0, diagnostics: diagnostics) }
        if let classifier, !classifier.ancestorSelectors.isEmpty {
            ancestors = try Self.ancestorSets(classifier, inputs: options.inputs, diagnostics: diagnostics)
        }
    }

    /// Reads polygons of a Shapefile in Web Mercator metres, keeping the records `keep` accepts; a polygon crossing
    /// the antimeridian comes as its copies on both sides.
    package static func readPolygons(
        path: String, table: String? = nil, sourceCRS: String?, encoding: String?, diagnostics: DiagnosticSink?,
        keep: (Properties, Geometry) -> Bool
    ) throws -> [Geometry] {
        var out: [Geometry] = []
        try forEachPolygon(
            path: path, table: table, sourceCRS: sourceCRS, encoding: encoding, diagnostics: diagnostics
        ) { f, g in
            guard keep(f.properties, g) else { return }
            out += unwrapped(g)
        }
        return out
    }

    /// Calls `body` with every polygon record of a Shapefile (or folder), or of a GeoPackage's feature tables (only
    /// `table` when given), and its geometry in Web Mercator metres,
    /// read through `IntakeReader` as features are (same CRS handling, 0–360° wrap, polar clamp). Polygon records
    /// that cannot be projected are left out and counted in one `polygons_not_projected` warning per file.
    static func forEachPolygon(
        path: String, table: String? = nil, sourceCRS: String?, encoding: String?, diagnostics: DiagnosticSink?,
        _ body: (Feature, Geometry) throws -> Void
    ) throws {
        for set in try InputLayer.layers(at: path, table: table) {
            var intake = try IntakeReader(
                set: set, sourceCRS: sourceCRS, encoding: encoding, diagnostics: DiagnosticSink())
            var left: [ReasonCode: Int] = [:]
            while let r = try intake.next() {
                guard r.feature.geometry.kind.family == .polygon else { continue }
                switch r.projected {
                case .success(let g): try body(r.feature, g)
                case .failure(let issue): left[issue.code, default: 0] += 1
                }
            }
            guard !left.isEmpty, let diagnostics else { continue }
            let count = left.values.reduce(0, +)
            let reasons = left.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            diagnostics.report(
                Diagnostic(
                    .warning, code: .polygonsNotProjected,
                    "\(set.path): \(count) polygon records cannot be projected to Web Mercator and are left out "
                        + "(\(reasons))"))
        }
    }

    /// A polygon in metres as its copies on each side of the antimeridian.
    package static func unwrapped(_ g: Geometry) -> [Geometry] {
        var ignored = Set<ReasonCode>()
        return AntimeridianStage.apply(g, repairs: &ignored)
    }

    /// The clip region as one valid (multi)polygon in metres, grown by the buffer.
    package static func clipRegion(_ clip: ClipOptions, diagnostics: DiagnosticSink?) throws -> SharedPolygons {
        let engine = GeometryEngine()
        var shape: EngineGeometry
        var latitude = 0.0
        switch clip.source {
        case .bbox(let b) where b.minX > b.maxX:
            // West > east: the box crosses the antimeridian, as its two parts on either side of ±180°.
            let east = SphericalMercator.project(box: Bounds(minX: b.minX, minY: b.minY, maxX: 180, maxY: b.maxY))
            let west = SphericalMercator.project(box: Bounds(minX: -180, minY: b.minY, maxX: b.maxX, maxY: b.maxY))
            let ring = { (r: Bounds) in
                [[r.minX, r.minY, r.maxX, r.minY, r.maxX, r.maxY, r.minX, r.maxY, r.minX, r.minY]]
            }
            shape = try engine.prepare(Geometry.polygons([ring(east), ring(west)]))
            latitude = (b.minY + b.maxY) / 2
        case .bbox(let b):
            shape = try engine.rectangle(SphericalMercator.project(box: b))
            latitude = (b.minY + b.maxY) / 2
        case .polygons(let path, let filter, let crs):
            let polys = try readPolygons(path: path, sourceCRS: crs, encoding: nil, diagnostics: diagnostics) { p, _ in
                filter?.matches(p) ?? true
            }
            guard !polys.isEmpty else { throw RegionError.emptyRegion("no polygon in \(path) matches") }
            return try clipRegion(polygons: polys, buffer: clip.buffer, what: path)
        }
        return try finish(shape, buffer: clip.buffer, latitude: latitude, engine: engine)
    }

    /// The clip region of polygons read by `readPolygons` (one region of a region set), grown by `buffer` metres.
    package static func clipRegion(polygons polys: [Geometry], buffer: Double, what path: String) throws
        -> SharedPolygons
    {
        let engine = GeometryEngine()
        var rings: [[[Double]]] = []
        for p in polys {
            for j in 0..<p.polygonCount {
                rings.append(
                    p.partRange(ofPolygon: j).map { part in
                        let r = p.pointRange(ofPart: part)
                        return Array(p.xy[2 * r.lowerBound..<2 * r.upperBound])
                    })
            }
        }
        let raw = try engine.prepare(Geometry.polygons(rings))
        // STRUCTURE MakeValid unions overlapping parts into one valid region.
        guard let valid = try engine.makeValid(raw, family: .polygon) else {
            throw RegionError.emptyRegion("the polygons of \(path) have no area")
        }
        var latitude = 0.0
        if let b = polys.first?.bounds {
            latitude = SphericalMercator.unproject(x: (b.minX + b.maxX) / 2, y: (b.minY + b.maxY) / 2).latitude
        }
        return try finish(valid, buffer: buffer, latitude: latitude, engine: engine)
    }

    private static func finish(
        _ region: EngineGeometry, buffer: Double, latitude: Double, engine: GeometryEngine
    ) throws -> SharedPolygons {
        var shape = region
        if buffer != 0 {
            // Web Mercator stretches distances by 1/cos(latitude): scale the buffer at the region's latitude.
            let scale = 1 / max(0.01, cos(latitude * .pi / 180))
            guard let grown = try engine.buffer(shape, distance: buffer * scale) else {
                throw RegionError.emptyRegion("nothing is left after a buffer of \(buffer) m")
            }
            shape = grown
        }
        guard let g = try engine.geometry(shape, family: .polygon), let b = g.bounds else {
            throw RegionError.emptyRegion("the region has no area")
        }
        return SharedPolygons(geometries: [g], bounds: b)
    }

    /// Polygons per ancestor selector of the style (for descendant selectors such as `fastigheter avdelningar`),
    /// read from the inputs whose layer name the selector names (the read phase's naming rule). A chained
    /// selector's set holds only polygons inside its parent's set; polygons that cannot be tested are left out
    /// and counted in an `ancestor_lookup_failed` warning.
    static func ancestorSets(
        _ classifier: StyleClassifier, inputs: [ConvertInput], diagnostics: DiagnosticSink
    ) throws -> [Int: SharedPolygons] {
        let engine = GeometryEngine()
        var sets: [Int: SharedPolygons] = [:]
        var indexes: [Int: PolygonIndex] = [:]
        for selector in classifier.ancestorSelectors {
            var polys: [Geometry] = []
            var failed = 0
            for input in inputs {
                // An input that cannot be listed is rejected by the read phase, with its reason.
                guard let found = try? input.inputLayers() else { continue }
                for set in found where selector.isLayer(input.layerName(for: set, setCount: found.count)) {
                    polys += try readPolygons(
                        path: set.path, table: set.table, sourceCRS: input.sourceCRS, encoding: input.encoding,
                        diagnostics: diagnostics
                    ) { p, g in
                        guard selector.matches(properties: p) else { return false }
                        guard let parent = selector.parent else { return true }
                        guard let index = indexes[parent.rawValue] else { return false }
                        do throws(GeometryError) {
                            guard let pt = try engine.pointOnSurface(engine.prepare(g)) else { return false }
                            return try !index.containing(x: pt.x, y: pt.y).isEmpty
                        } catch {
                            failed += 1
                            return false
                        }
                    }
                }
            }
            if failed > 0 {
                diagnostics.report(
                    Diagnostic(
                        .warning, code: .ancestorLookupFailed,
                        "\(failed) polygons could not be tested against the parent of selector "
                            + "\(selector.id.rawValue); left out of its set"
                    ))
            }
            var b = Bounds.empty
            for p in polys { if let pb = p.bounds { b.include(pb) } }
            sets[selector.id.rawValue] = SharedPolygons(geometries: polys, bounds: b)
            indexes[selector.id.rawValue] = try PolygonIndex(engine: engine, polygons: polys)
        }
        return sets
    }
}
