import Foundation
import GeometryOps
import KartpackCore
import Reprojection
import Shapefile
import Styling
import VectorTile

/// Errors preparing the clip region or the style's ancestor sets.
public enum RegionError: KartpackError {
    case emptyRegion(String)
    case unreadable(path: String, reason: String)

    public var exitCode: ExitCode { .dataError }
    public var description: String {
        switch self {
        case .emptyRegion(let what): "clip region is empty: \(what)"
        case .unreadable(let p, let r): "\(p): \(r)"
        }
    }
}

extension Converter {
    /// Reads polygons of a Shapefile in Web Mercator metres, with their properties, keeping the records `keep`
    /// accepts. Runs on the calling thread with its own GEOS and PROJ contexts.
    func readPolygons(
        path: String, sourceCRS: String?, encoding: String?, keep: (Properties, Geometry) -> Bool
    ) throws -> [Geometry] {
        let sets = try ShapefileLocator.shapefiles(at: path)
        var out: [Geometry] = []
        for set in sets {
            let reader = try ShapefileReader(path: set.shp, options: ShapefileReadOptions(encoding: encoding), diagnostics: DiagnosticSink())
            let crs = try IsolatedCRS.resolve(prjText: reader.prjText, override: sourceCRS, prjFile: set.prj)
            let transformer = try CoordinateTransformer(from: crs, to: .webMercator)
            while let f = try reader.next() {
                guard f.geometry.kind.family == .polygon else { continue }
                var g = f.geometry.droppingZM
                guard transformer.transform(&g.xy) == 0, keep(f.properties, g) else { continue }
                out.append(g)
            }
        }
        return out
    }

    /// The clip region as one valid (multi)polygon in metres, grown by the buffer.
    func clipRegion(_ clip: ClipOptions) throws -> SharedPolygons {
        let engine = GeometryEngine()
        var shape: EngineGeometry
        var latitude = 0.0
        switch clip.source {
        case .bbox(let b):
            shape = try engine.rectangle(SphericalMercator.project(box: b))
            latitude = (b.minY + b.maxY) / 2
        case .polygons(let path, let filter, let crs):
            let polys = try readPolygons(path: path, sourceCRS: crs, encoding: nil) { p, _ in filter?.matches(p) ?? true }
            guard !polys.isEmpty else { throw RegionError.emptyRegion("no polygon in \(path) matches") }
            var rings: [[[Double]]] = []
            for p in polys {
                for j in 0..<p.polygonCount {
                    rings.append(p.partRange(ofPolygon: j).map { part in
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
            shape = valid
            if let b = polys.first?.bounds {
                latitude = SphericalMercator.unproject(x: (b.minX + b.maxX) / 2, y: (b.minY + b.maxY) / 2).latitude
            }
        }
        if clip.buffer != 0 {
            // Web Mercator stretches distances by 1/cos(latitude): scale the buffer at the region's latitude.
            let scale = 1 / max(0.01, cos(latitude * .pi / 180))
            guard let grown = try engine.buffer(shape, distance: clip.buffer * scale) else {
                throw RegionError.emptyRegion("nothing is left after a buffer of \(clip.buffer) m")
            }
            shape = grown
        }
        guard let g = try engine.geometry(shape, family: .polygon), let b = g.bounds else {
            throw RegionError.emptyRegion("the region has no area")
        }
        return SharedPolygons(geometries: [g], bounds: b)
    }

    /// Polygons per ancestor selector of the style (for descendant selectors such as `fastigheter avdelningar`),
    /// read from the inputs whose layer name the selector names. A chained selector's set holds only polygons
    /// inside its parent's set.
    func ancestorSets() throws -> [Int: SharedPolygons] {
        guard let classifier, !classifier.ancestorSelectors.isEmpty else { return [:] }
        let engine = GeometryEngine()
        var sets: [Int: SharedPolygons] = [:]
        var indexes: [Int: PolygonIndex] = [:]
        for selector in classifier.ancestorSelectors {
            var polys: [Geometry] = []
            for input in options.inputs {
                for set in (input.files.map { [$0] } ?? (try? ShapefileLocator.shapefiles(at: input.path)) ?? []) {
                    let name = input.layerName ?? set.baseName
                    guard selector.isLayer(name) else { continue }
                    polys += try readPolygons(path: set.shp, sourceCRS: input.sourceCRS, encoding: input.encoding) { p, g in
                        guard selector.matches(properties: p) else { return false }
                        guard let parent = selector.parent else { return true }
                        guard let index = indexes[parent.rawValue],
                            let pt = try? engine.pointOnSurface(engine.prepare(g))
                        else { return false }
                        return ((try? index.containing(x: pt.x, y: pt.y)) ?? []).isEmpty == false
                    }
                }
            }
            var b = Bounds.empty
            for p in polys { if let pb = p.bounds { b.include(pb) } }
            sets[selector.id.rawValue] = SharedPolygons(geometries: polys, bounds: b)
            indexes[selector.id.rawValue] = try PolygonIndex(engine: engine, polygons: polys)
        }
        return sets
    }
}
