import Foundation
import GeoPackage
import KartpackCore
import Reprojection
import Shapefile
import Styling

/// One input layer (a Shapefile set or a GeoPackage table) opened by the read phase: its reader, the layer name,
/// what the workers need to know about it (`LayerContext`), and the counts of its report so far.
package final class SourceLayer {
    package let input: ConvertInput
    package let set: InputLayer
    package let name: String
    package let reader: any LayerReading
    package let context: LayerContext
    /// The output layer's fields from this input (after `keep` and `rename`).
    package let fields: [FieldDefinition]
    /// The counts so far (records, filtered, read-time skips and repairs come in `finish`).
    package var report: ConvertReport.Input
    /// Gives the features their ids in file order and applies the id policy.
    private(set) var ids: FeatureIDAssigner
    private let diagnostics: DiagnosticSink

    package init(
        input: ConvertInput, set: InputLayer, name: String, reader: any LayerReading, context: LayerContext,
        report: ConvertReport.Input, ids: FeatureIDScheme, keepers: [UInt64: UInt64] = [:],
        diagnostics: DiagnosticSink
    ) {
        self.input = input
        self.set = set
        self.name = name
        self.reader = reader
        self.context = context
        self.report = report
        self.ids = FeatureIDAssigner(scheme: ids, keepers: keepers)
        self.diagnostics = diagnostics
        fields = ReadPhase.outputFields(reader.schema.fields, input: input)
    }

    /// The file name, for diagnostics.
    package var fileName: String { (set.path as NSString).lastPathComponent }

    /// The next features (up to `size`) that pass the input's filter, with their ids (from the attributes as
    /// read) and with `keep` and `rename` applied; records the filter leaves out are counted as `filtered_out`,
    /// those the id policy skips as `missing_id` / `duplicate_id`. Nil at the end of the file. Throws an
    /// `InputRejection` when the id policy rejects the file.
    package func nextBatch(size: Int) throws -> [FeatureJob]? {
        var batch: [FeatureJob] = []
        batch.reserveCapacity(size)
        while batch.count < size, var feature = try reader.next() {
            if let filter = input.filter, !filter.matches(feature.properties) {
                report.rejected[.filteredOut, default: 0] += 1
                continue
            }
            let record = feature.provenance.record
            let properties = ReadPhase.transformAttributes(feature.properties, input: input)
            let content = FeatureKey.content(feature.geometry, properties)
            let id: UInt64
            switch ids.assign(feature.properties, record: record, content: content) {
            case .id(let value):
                id = value
            case .fallback(let value, let problem):
                id = value
                diagnostics.report(
                    Diagnostic(
                        .warning, code: problem.code,
                        "\(Self.problemText(problem, field: ids.scheme.field)); written with its record number as id",
                        file: fileName, record: record))
            case .skip(let problem):
                report.rejected[problem.code, default: 0] += 1
                diagnostics.report(
                    Diagnostic(
                        .warning, code: problem.code,
                        "\(Self.problemText(problem, field: ids.scheme.field)); skipped",
                        file: fileName, record: record))
                continue
            case .rejectFile(let problem):
                throw InputRejection(
                    code: problem.code, message: "\(set.path): \(ids.rejectionMessage(problem, record: record))")
            }
            feature.properties = properties
            batch.append(FeatureJob(context: context, feature: feature, id: id, content: content))
        }
        return batch.isEmpty ? nil : batch
    }

    private static func problemText(_ problem: FeatureIDAssigner.Problem, field: String?) -> String {
        switch problem {
        case .missingID: "no usable id in field \(field ?? "?")"
        case .duplicateID: "repeats an id of field \(field ?? "?") already used in the layer"
        }
    }

    /// The report once every record was read: the reader's own counts added.
    package func finish() -> ConvertReport.Input {
        let stats = reader.readerStats
        var r = report
        r.records = stats.recordsInFile
        r.rejected.add(stats.skipped)
        r.repaired.add(stats.repaired)
        r.coercedToNull = stats.coercedToNull
        if let left = (reader as? ShapefileReader)?.recordsLeftByBox, left > 0 { r.outsideShard = left }
        return r
    }
}

/// Phase 1 of `convert`: opens every input's Shapefile sets in command-line order — reader, CRS (untrusted
/// `.prj` text in a child process), zoom range, style matcher — and hands each to the feature phase, which
/// streams its batches. A set that cannot be opened, or fails while it is read, becomes a rejected input; the
/// run goes on with the others.
///
/// Input: `ReadSettings` (the inputs, zoom range, default ids, stylesheet), the compiled style and the clip
/// regions. Output: one `SourceLayer` per opened set, handed to `run`'s body, and every input's report.
package struct ReadPhase {
    package let settings: ReadSettings
    package let diagnostics: DiagnosticSink
    package let classifier: StyleClassifier?
    package let regions: Regions
    /// What the input probe opened for this run (`OpenedLayers`): taken instead of opening a layer again.
    package let opened: OpenedLayers?

    package init(
        settings: ReadSettings, diagnostics: DiagnosticSink, classifier: StyleClassifier?, regions: Regions,
        opened: OpenedLayers? = nil
    ) {
        self.settings = settings
        self.diagnostics = diagnostics
        self.classifier = classifier
        self.regions = regions
        self.opened = opened
    }

    /// The read phase of a conversion's options.
    package init(options: ConvertOptions, diagnostics: DiagnosticSink, classifier: StyleClassifier?, regions: Regions) {
        self.init(
            settings: ReadSettings(options: options), diagnostics: diagnostics, classifier: classifier,
            regions: regions)
    }

    /// Calls `body` for every set that opens (in order) and returns every input's report in command-line order,
    /// rejected ones included. `body` returns the finished report of its layer; an error it throws (other than
    /// a `PipelineError`, which ends the run) rejects that input.
    package func run(_ body: (SourceLayer) throws -> ConvertReport.Input) throws -> [ConvertReport.Input] {
        var reports: [ConvertReport.Input] = []
        var opened = 0
        for (k, input) in settings.inputs.enumerated() {
            let sets: [InputLayer]
            do {
                sets = try input.inputLayers()
            } catch {
                // Out of descriptors is the machine's fault: the run stops (exit 74), nothing is published.
                if error.inputErrorCode == OpenFileLimit.code { throw error }
                // The error's text names the file.
                let message = (error as? any KartpackError)?.description ?? "\(error)"
                diagnostics.report(Diagnostic(.error, code: .fileRejected, message))
                reports.append(
                    Self.rejected(
                        path: input.path, layer: input.layerName ?? "", records: (0, "unknown"),
                        error: message, code: error.inputErrorCode))
                continue
            }
            if sets.count > 1, let name = input.layerName {
                throw PipelineError.badInput(
                    path: input.path,
                    reason: "--layer \(name) names one layer, but the folder holds \(sets.count) Shapefiles")
            }
            for set in sets {
                let name = input.layerName(for: set, setCount: sets.count)
                var recordsInFile = 0
                do {
                    let layer = try open(
                        set, name: name, input: input, inputIndex: k, index: opened, records: &recordsInFile)
                    reports.append(try body(layer))
                    opened += 1
                } catch let e as PipelineError {
                    throw e
                } catch let e as SpillError {
                    // The scratch space, not this input, failed: the run stops.
                    throw e
                } catch  where error.inputErrorCode == OpenFileLimit.code {
                    // So did the machine (EMFILE/ENFILE): exit 74, not a rejected input.
                    throw error
                } catch {
                    let message = (error as? any KartpackError)?.description ?? "\(error)"
                    diagnostics.report(Diagnostic(.error, code: .fileRejected, message))
                    reports.append(
                        Self.rejected(
                            path: set.path, layer: name, records: Self.recordCount(set, counted: recordsInFile),
                            error: message, code: error.inputErrorCode))
                }
            }
        }
        return reports
    }

    /// Opens one set (or takes what the probe opened: `OpenedLayers`): reader, CRS, zoom range, the style compiled
    /// for its layer, id-field checks.
    private func open(
        _ set: InputLayer, name: String, input: ConvertInput, inputIndex: Int, index: Int, records: inout Int
    ) throws -> SourceLayer {
        let reader: any LayerReading
        let crs: CRSInfo
        switch opened?.take(set, input: inputIndex) {
        case .opened(let r, let c):
            (reader, crs) = (r, c)
        case .failed(let error, let recordsInFile):
            records = recordsInFile
            throw error
        case nil:
            reader = try set.open(encoding: input.encoding, diagnostics: diagnostics)
            records = reader.readerStats.recordsInFile
            crs = try reader.resolveCRS(override: input.sourceCRS)
        }
        // A file without records is read as a layer without features: the reader warns (`empty_layer`), the report
        // counts it, and a pipeline's `requireFeatures` decides whether that stops the publish (issue 36; before,
        // one empty layer of a GIS export stopped every other layer).
        records = reader.readerStats.recordsInFile
        let lo = max(settings.minZoom, input.minZoom ?? settings.minZoom)
        let hi = min(settings.maxZoom, input.maxZoom ?? settings.maxZoom)
        guard lo <= hi else {
            throw InputRejection(
                code: .emptyZoomRange,
                message:
                    "\(set.path): the input's zoom range \(input.minZoom ?? lo)-\(input.maxZoom ?? hi) lies outside "
                    + "the package's \(settings.minZoom)-\(settings.maxZoom) [empty_zoom_range]")
        }
        var ids = FeatureIDScheme.recordNumber
        if let field = input.idField ?? settings.idField {
            do {
                ids = try FeatureIDScheme.forField(
                    field, in: reader.schema.fields, policy: input.idPolicy ?? settings.idPolicy)
            } catch {
                throw PipelineError.badIDField(layer: name, field: field, reason: error.reason)
            }
        }
        settings.recordBoxes?.install(on: reader, crs: crs, ids: ids)
        var cascade: ClientCascade?
        if let sheet = settings.style {
            let kinds = Dictionary(
                Self.outputFields(reader.schema.fields, input: input).map { ($0.name, ClientFieldKind($0.type)) },
                uniquingKeysWith: { a, _ in a })
            let c = ClientCascade(sheet: sheet, layer: name, fieldKinds: kinds)
            if !c.flagKeys.isEmpty { cascade = c }
        }
        let context = LayerContext(
            index: index, name: name, crs: crs, zooms: lo...hi,
            matcher: classifier?.matcher(layer: name, fields: reader.schema.fields), clientCascade: cascade,
            ancestors: regions.ancestors, clip: regions.clip)
        let report = ConvertReport.Input(
            path: set.path, layer: name, crs: crs.label, encoding: reader.schema.encoding?.name, records: 0,
            written: 0, rejected: [:], repaired: [:], coercedToNull: [:], classes: [:], error: nil, errorCode: nil)
        let keepers = try DuplicateKeepers.find(set, input: input, scheme: ids)
        return SourceLayer(
            input: input, set: set, name: name, reader: reader, context: context, report: report, ids: ids,
            keepers: keepers, diagnostics: diagnostics)
    }

    /// The report of a rejected file: its records (when they could be counted) all count as `file_rejected`, so
    /// files balance one level up; `records.source` says where the count comes from.
    package static func rejected(
        path: String, layer: String, records: (count: Int, source: String), error: String, code: ReasonCode
    ) -> ConvertReport.Input {
        ConvertReport.Input(
            path: path, layer: layer, crs: nil, encoding: nil, records: records.count, written: 0,
            rejected: records.count > 0 ? [.fileRejected: records.count] : [:], repaired: [:], coercedToNull: [:],
            classes: [:], error: error, errorCode: code, recordsSource: records.source)
    }

    /// The records of a rejected set: what the reader counted before it failed (`counted` > 0), else what the
    /// `.shx`, `.shp` or `.dbf` can still tell, else 0 and `unknown`.
    package static func recordCount(_ set: InputLayer, counted: Int) -> (count: Int, source: String) {
        if counted > 0 { return (counted, "reader") }
        return set.probeRecordCount() ?? (0, "unknown")
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

    package static func keeping(_ p: Properties, _ names: [String]) -> Properties {
        let wanted = Set(names.map { $0.lowercased() })
        var out = Properties()
        for (k, v) in zip(p.keys, p.values) where wanted.contains(k.lowercased()) { out.append(k, v) }
        return out
    }

    package static func keeping(_ fields: [FieldDefinition], _ names: [String]) -> [FieldDefinition] {
        let wanted = Set(names.map { $0.lowercased() })
        return fields.filter { wanted.contains($0.name.lowercased()) }
    }
}

extension ConvertInput {
    /// The layers this input names: its explicit `files`, else every layer at `path` (a `.gpkg`'s feature
    /// tables — only the one `layerName` names, when given —, one Shapefile or a folder of them).
    package func inputLayers() throws -> [InputLayer] {
        if let files { return [.shapefile(files)] }
        return try InputLayer.layers(at: path, table: isGeoPackage ? layerName : nil)
    }

    /// True when the input is a GeoPackage (its `layerName` then names a table).
    var isGeoPackage: Bool { files == nil && GeoPackageFile.isGeoPackagePath(path) }

    /// The layer name of one of this input's layers: a GeoPackage table's name; `layerName` when the input is one
    /// Shapefile set, else the file's base name. The one rule the read phase and the style's ancestor sets share.
    package func layerName(for set: InputLayer, setCount: Int) -> String {
        if case .geoPackage = set { return set.baseName }
        return setCount == 1 ? (layerName ?? set.baseName) : set.baseName
    }
}
