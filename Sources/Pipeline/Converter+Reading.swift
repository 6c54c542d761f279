import Foundation
import KartpackCore
import Reprojection
import Shapefile
import Styling
import TileArchive
import VectorTile

extension Converter {
    /// Features handed to the workers at once.
    static let batchSize = 256

    /// Reads one Shapefile, tiles its features on the worker team and adds the pieces and records to `state`.
    func readLayer(
        _ set: ShapefileSet, name: String, input: ConvertInput,
        team: WorkerTeam<FeatureWorker, FeatureJob, TilingOutcome>, order: TileOrder, clip: SharedPolygons?,
        ancestors: [Int: SharedPolygons], state: inout State
    ) throws {
        state.lastRecordCount = 0
        let reader = try ShapefileReader(
            files: set, options: ShapefileReadOptions(encoding: input.encoding), diagnostics: diagnostics)
        state.lastRecordCount = reader.stats.recordsInFile
        guard reader.stats.recordsInFile > 0 else {
            // Packaging never publishes an empty layer silently (hostile-inputs.md §1 #12).
            throw InputRejection(code: "empty_layer", message: "\(set.shp): the layer has no records [empty_layer]")
        }
        let crs = try IsolatedCRS.resolve(prjText: reader.prjText, override: input.sourceCRS, prjFile: set.prj ?? set.shp)
        let lo = max(options.minZoom, input.minZoom ?? options.minZoom)
        let hi = min(options.maxZoom, input.maxZoom ?? options.maxZoom)
        guard lo <= hi else {
            throw PipelineError.badOutput(path: set.shp, reason: "zoom range \(lo)-\(hi) of the input is empty")
        }
        let context = LayerContext(
            index: state.inputs.count, name: name, crs: crs, zooms: lo...hi,
            matcher: classifier?.matcher(layer: name, fields: reader.schema.fields),
            ancestors: ancestors, clip: clip)
        var report = ConvertReport.Input(
            path: set.shp, layer: name, crs: crs.label, encoding: reader.schema.encoding?.name, records: 0,
            written: 0, rejected: [:], repaired: [:], coercedToNull: [:], classes: [:], error: nil, errorCode: nil)
        let fields = Self.outputFields(reader.schema.fields, input: input)
        if let field = options.idField {
            guard let f = reader.schema.fields.first(where: { $0.name.lowercased() == field.lowercased() }) else {
                throw PipelineError.badIDField(
                    layer: name, field: field,
                    reason: "no such field (fields: \(reader.schema.fields.map(\.name).joined(separator: ", ")))")
            }
            guard f.type == .integer else {
                throw PipelineError.badIDField(layer: name, field: field, reason: "field is \(f.type.rawValue), not an integer")
            }
        }
        var seenIDs = Set<UInt64>()
        var duplicateIDs = 0
        let total = reader.stats.recordsInFile
        let file = (set.shp as NSString).lastPathComponent
        var batch: [FeatureJob] = []
        var idFieldMissing = 0

        func flush() throws {
            try checkCancelled()
            let outcomes = team.process(batch)
            for (job, outcome) in zip(batch, outcomes) {
                let record = job.feature.provenance.record
                if let r = outcome.rejection {
                    report.rejected[r.code, default: 0] += 1
                    diagnostics.report(Diagnostic(.warning, code: r.code, r.message, file: file, record: record))
                    continue
                }
                let top = outcome.zooms?.upperBound ?? hi
                guard outcome.pieces.contains(where: { $0.tile.z == top }) else {
                    report.rejected["collapsed_at_max_zoom", default: 0] += 1
                    diagnostics.report(Diagnostic(.warning, code: "collapsed_at_max_zoom",
                        "geometry has nothing left at zoom \(top)", file: file, record: record))
                    continue
                }
                report.written += 1
                // Counted per feature: one feature repaired in many tiles counts once per kind.
                for (kind, _) in outcome.repairs.sorted(by: { $0.key < $1.key }) {
                    report.repaired[kind, default: 0] += 1
                    diagnostics.report(Diagnostic(.note, code: kind, "geometry repaired (\(kind))", file: file, record: record))
                }
                if let b = outcome.bounds { state.dataBounds.include(b) }

                let out = state.output(named: outcome.styled?.layer ?? name)
                var properties = job.feature.properties
                if let keep = outcome.styled?.keep { properties = Self.keeping(properties, keep) }
                let classes = outcome.styled?.classes ?? []
                let topClass = classes.last ?? nil
                if let c = topClass { report.classes[c, default: 0] += 1 }
                var id: UInt64? = UInt64(record)
                if let field = options.idField {
                    id = Self.featureID(job.feature.properties, field: field)
                    if id == nil { idFieldMissing += 1 }
                    if let id, !seenIDs.insert(id).inserted { duplicateIDs += 1 }
                }
                let featureIndex = state.outputs[out].records.count
                state.outputs[out].records.append(FeatureRecord(
                    id: id, properties: properties, rank: FeatureRank.rank(layer: out, feature: featureIndex),
                    classes: classes.contains { $0 != nil } ? classes : [],
                    classBaseZoom: outcome.zooms?.lowerBound ?? lo))
                Self.merge(fields: outcome.styled?.keep.map { Self.keeping(fields, $0) } ?? fields, into: &state.outputs[out].fields)
                if state.outputs[out].family == nil { state.outputs[out].family = job.feature.geometry.kind.family }
                if let c = topClass { state.outputs[out].classes[c, default: 0] += 1 }
                if classes.contains(where: { $0 != nil }) { state.outputs[out].hasClass = true }
                let base = outcome.zooms?.lowerBound ?? lo
                for (i, c) in classes.enumerated() {
                    guard let c, !outcome.collapsedAt.contains(base + i) else { continue }
                    state.outputs[out].classesByZoom[base + i, default: [:]][c, default: 0] += 1
                }
                for p in outcome.pieces {
                    let key = order.sortKey(TileCoordinate(z: p.tile.z, x: p.tile.x, y: p.tile.y)) ?? UInt64.max
                    state.pieces.append(PlacedPiece(key: key, layer: Int32(out), feature: Int32(featureIndex), piece: p))
                }
            }
            batch.removeAll(keepingCapacity: true)
            progress?.update("reading \(name)", done: reader.stats.recordsRead, total: total)
        }

        while var feature = try reader.next() {
            if let filter = input.filter, !filter.matches(feature.properties) {
                report.rejected["filtered_out", default: 0] += 1
                continue
            }
            feature.properties = Self.transformAttributes(feature.properties, input: input)
            batch.append(FeatureJob(context: context, feature: feature))
            if batch.count >= Self.batchSize { try flush() }
        }
        if !batch.isEmpty { try flush() }

        let stats = reader.stats
        report.records = stats.recordsInFile
        report.rejected.add(stats.skipped)
        report.repaired.add(stats.repaired)
        report.coercedToNull = stats.coercedToNull
        if idFieldMissing > 0, let field = options.idField {
            diagnostics.report(Diagnostic(.warning, code: "missing_id",
                "\(idFieldMissing) features have no usable non-negative integer in id field \(field); written without id", file: file))
        }
        if duplicateIDs > 0, let field = options.idField {
            diagnostics.report(Diagnostic(.warning, code: "duplicate_id",
                "\(duplicateIDs) features repeat an id already used in id field \(field); MVT ids should be unique per layer", file: file))
        }
        state.inputs.append(InputLayer(name: name, schema: reader.schema, report: report))
        state.reports.append(report)
    }

    /// The input's `keep` and `rename` applied to a record's attributes.
    static func transformAttributes(_ p: Properties, input: ConvertInput) -> Properties {
        var out = p
        if let keep = input.keep { out = keeping(out, keep) }
        guard !input.rename.isEmpty else { return out }
        var renamed = Properties()
        for (k, v) in zip(out.keys, out.values) {
            let lower = k.lowercased()
            renamed.append(input.rename.first { $0.from.lowercased() == lower }?.to ?? k, v)
        }
        return renamed
    }

    /// The fields the output layer gets from an input (after `keep` and `rename`).
    static func outputFields(_ fields: [FieldDefinition], input: ConvertInput) -> [FieldDefinition] {
        var out = fields
        if let keep = input.keep { out = keeping(out, keep) }
        return out.map { f in
            var f = f
            if let r = input.rename.first(where: { $0.from.lowercased() == f.name.lowercased() }) { f.name = r.to }
            return f
        }
    }

    static func keeping(_ p: Properties, _ names: [String]) -> Properties {
        let wanted = Set(names.map { $0.lowercased() })
        var out = Properties()
        for (k, v) in zip(p.keys, p.values) where wanted.contains(k.lowercased()) { out.append(k, v) }
        return out
    }

    static func keeping(_ fields: [FieldDefinition], _ names: [String]) -> [FieldDefinition] {
        let wanted = Set(names.map { $0.lowercased() })
        return fields.filter { wanted.contains($0.name.lowercased()) }
    }

    /// Adds fields not yet present (by name), keeping first-seen order.
    static func merge(fields: [FieldDefinition], into existing: inout [FieldDefinition]) {
        for f in fields where !existing.contains(where: { $0.name == f.name }) { existing.append(f) }
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
