import Foundation
import KartpackCore
import Reprojection
import Shapefile
import TileArchive
import VectorTile

extension Converter {
    /// Features handed to the workers at once.
    static let batchSize = 256

    /// Reads one Shapefile, tiles its features on the worker team and appends the pieces.
    func readLayer(
        _ set: ShapefileSet, name: String, index: Int, input: ConvertInput,
        team: WorkerTeam<FeatureWorker, FeatureJob, TilingOutcome>, order: TileOrder,
        pieces: inout [PlacedPiece], dataBounds: inout Bounds
    ) throws -> Layer {
        let reader = try ShapefileReader(
            path: set.shp, options: ShapefileReadOptions(encoding: input.encoding), diagnostics: diagnostics)
        let crs = try CRSResolver.resolve(prjText: reader.prjText, override: input.sourceCRS, prjFile: set.prj)
        var layer = Layer(
            name: name, schema: reader.schema,
            report: ConvertReport.Input(
                path: set.shp, layer: name, crs: crs.label, encoding: reader.schema.encoding?.name, records: 0,
                written: 0, rejected: [:], repaired: [:], coercedToNull: [:], error: nil))
        let total = reader.stats.recordsInFile
        let zooms = options.minZoom...options.maxZoom
        let file = (set.shp as NSString).lastPathComponent
        var batch: [FeatureJob] = []
        var layerBounds = Bounds.empty
        var idFieldMissing = 0

        func flush() {
            let outcomes = team.process(batch)
            for (job, outcome) in zip(batch, outcomes) {
                let record = job.feature.provenance.record
                if let r = outcome.rejection {
                    layer.report.rejected[r.code, default: 0] += 1
                    diagnostics.report(Diagnostic(.warning, code: r.code, r.message, file: file, record: record))
                    continue
                }
                guard outcome.pieces.contains(where: { $0.tile.z == zooms.upperBound }) else {
                    layer.report.rejected["collapsed_at_max_zoom", default: 0] += 1
                    diagnostics.report(Diagnostic(.warning, code: "collapsed_at_max_zoom",
                        "geometry has nothing left at zoom \(zooms.upperBound)", file: file, record: record))
                    continue
                }
                layer.report.written += 1
                // Counted per feature: one feature repaired in many tiles counts once per kind.
                for (kind, _) in outcome.repairs.sorted(by: { $0.key < $1.key }) {
                    layer.report.repaired[kind, default: 0] += 1
                    diagnostics.report(Diagnostic(.note, code: kind, "geometry repaired (\(kind))", file: file, record: record))
                }
                if let b = outcome.bounds { layerBounds.include(b) }
                let featureIndex = layer.records.count
                var id: UInt64? = UInt64(record)
                if let field = options.idField {
                    id = Self.featureID(job.feature.properties, field: field)
                    if id == nil { idFieldMissing += 1 }
                }
                layer.records.append(FeatureRecord(
                    id: id, properties: job.feature.properties,
                    rank: FeatureRank.rank(layer: index, feature: featureIndex)))
                for p in outcome.pieces {
                    let key = order.sortKey(TileKey(z: p.tile.z, x: p.tile.x, y: p.tile.y)) ?? UInt64.max
                    pieces.append(PlacedPiece(key: key, layer: Int32(index), feature: Int32(featureIndex), piece: p))
                }
            }
            batch.removeAll(keepingCapacity: true)
            progress?.update("reading \(name)", done: reader.stats.recordsRead, total: total)
        }

        while let feature = try reader.next() {
            batch.append(FeatureJob(layer: index, crs: crs, feature: feature, zooms: zooms))
            if batch.count >= Self.batchSize { flush() }
        }
        if !batch.isEmpty { flush() }

        let stats = reader.stats
        layer.report.records = stats.recordsInFile
        layer.report.rejected.add(stats.skipped)
        layer.report.repaired.add(stats.repaired)
        layer.report.coercedToNull = stats.coercedToNull
        if idFieldMissing > 0, let field = options.idField {
            diagnostics.report(Diagnostic(.warning, code: "missing_id",
                "\(idFieldMissing) features have no usable non-negative integer in id field \(field); written without id", file: file))
        }
        if !layerBounds.isEmpty {
            dataBounds.include(layerBounds)
            let sw = WebMercator.unproject(x: layerBounds.minX, y: layerBounds.minY)
            let ne = WebMercator.unproject(x: layerBounds.maxX, y: layerBounds.maxY)
            layer.boundsWGS84 = Bounds(minX: sw.longitude, minY: sw.latitude, maxX: ne.longitude, maxY: ne.latitude)
        }
        return layer
    }

    /// A feature id from an attribute: a non-negative integer (or integral double), else nil.
    static func featureID(_ properties: Properties, field: String) -> UInt64? {
        let lower = field.lowercased()
        guard let i = properties.keys.firstIndex(where: { $0.lowercased() == lower }) else { return nil }
        switch properties.values[i] {
        case .int(let v) where v >= 0: return UInt64(v)
        case .uint(let v): return v
        case .double(let v) where v >= 0 && v < 1.8e19 && v.rounded() == v: return UInt64(v)
        case .string(let s): return UInt64(s.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }
}
