import Foundation
import GeoPackage
import KartpackCore
import Reprojection
import Shapefile
import Styling

/// One input set (a Shapefile set or a GeoPackage table) opened by the read phase: its reader, the layer name,
/// what the workers need to know about it (`SetContext`), and the counts of its report so far.
package final class OpenedSet {
    package let input: ConvertInput
    package let set: InputSet
    package let name: String
    package let reader: any LayerReading
    package let context: SetContext
    /// The output layer's fields from this input (after `keep` and `rename`).
    package let fields: [FieldDefinition]
    /// The counts so far (records, filtered, read-time skips and repairs come in `finish`).
    package var report: ConvertReport.Input
    /// Gives the features their ids in file order and applies the id policy.
    private(set) var ids: FeatureIDAssigner
    private let diagnostics: DiagnosticSink

    package init(
        input: ConvertInput, set: InputSet, name: String, reader: any LayerReading, context: SetContext,
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
/// regions. Output: `sets()`, the sets handed on one at a time (`OpenedSets`: each an `OpenedSet` whose
/// `nextBatch` hands on batches of features), and every input's report.
package struct ReadPhase {
    package let settings: ReadSettings
    package let diagnostics: DiagnosticSink
    package let classifier: StyleClassifier?
    package let regions: Regions
    /// What the input probe opened for this run (`ProbedSets`): taken instead of opening a layer again.
    package let opened: ProbedSets?

    package init(
        settings: ReadSettings, diagnostics: DiagnosticSink, classifier: StyleClassifier?, regions: Regions,
        opened: ProbedSets? = nil
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

    /// The sets of every input in command-line order, handed on one at a time (`OpenedSets`).
    package func sets() -> OpenedSets { OpenedSets(read: self) }

    /// The read phase's hand-off: each input's sets in command-line order, opened one at a time as an `OpenedSet`,
    /// whose `nextBatch` hands on its features. A set that cannot be opened is rejected here (its report says why,
    /// `file_rejected`) and the next one is opened; the consumer ends each set it took with `finish` (its report)
    /// or `reject` (an error half-way: the set is rejected, or the run ends for a `PipelineError`, a scratch-space
    /// failure or exhausted descriptors). `reports` holds every input's report, rejected ones included.
    package struct OpenedSets {
        let read: ReadPhase
        private var nextInput = 0
        private var pending: [(set: InputSet, name: String, input: ConvertInput, inputIndex: Int)] = []
        private var current: (set: InputSet, name: String, records: Int)?
        private var opened = 0
        /// Every input's report so far, in command-line order.
        package private(set) var reports: [ConvertReport.Input] = []

        init(read: ReadPhase) { self.read = read }

        /// The next set that opens, nil after the last. Throws only what ends the run.
        package mutating func next() throws -> OpenedSet? {
            precondition(current == nil, "finish or reject the set before taking the next")
            while true {
                if !pending.isEmpty {
                    let p = pending.removeFirst()
                    var records = 0
                    do {
                        let layer = try read.open(
                            p.set, name: p.name, input: p.input, inputIndex: p.inputIndex, index: opened,
                            records: &records)
                        current = (p.set, p.name, records)
                        return layer
                    } catch {
                        current = (p.set, p.name, records)
                        try reject(error)
                    }
                } else if nextInput < read.settings.inputs.count {
                    let k = nextInput
                    let input = read.settings.inputs[k]
                    nextInput += 1
                    let sets: [InputSet]
                    do {
                        sets = try input.inputSets()
                    } catch {
                        // Out of descriptors is the machine's fault: the run stops (exit 74), nothing is published.
                        if error.inputErrorCode == OpenFileLimit.code { throw error }
                        // The error's text names the file.
                        let message = (error as? any KartpackError)?.description ?? "\(error)"
                        read.diagnostics.report(Diagnostic(.error, code: .fileRejected, message))
                        reports.append(
                            ReadPhase.rejected(
                                path: input.path, layer: input.layerName ?? "", records: (0, "unknown"),
                                error: message, code: error.inputErrorCode))
                        continue
                    }
                    if sets.count > 1, let name = input.layerName {
                        throw PipelineError.badInput(
                            path: input.path,
                            reason: "--layer \(name) names one layer, but the folder holds \(sets.count) Shapefiles")
                    }
                    pending = sets.map { ($0, input.layerName(for: $0, setCount: sets.count), input, k) }
                } else {
                    return nil
                }
            }
        }

        /// The set taken last was read whole: `report` is its report.
        package mutating func finish(_ report: ConvertReport.Input) {
            precondition(current != nil, "no set taken")
            current = nil
            reports.append(report)
            opened += 1
        }

        /// The set taken last failed with `error`: rejected with its report, or rethrown when the error ends the
        /// run (a `PipelineError`, the scratch space, exhausted descriptors).
        package mutating func reject(_ error: any Error) throws {
            guard let (set, name, records) = current else { preconditionFailure("no set taken") }
            current = nil
            switch error {
            case let e as PipelineError: throw e
            // The scratch space, not this input, failed: the run stops.
            case let e as SpillError: throw e
            // So did the machine (EMFILE/ENFILE): exit 74, not a rejected input.
            case _ where error.inputErrorCode == OpenFileLimit.code: throw error
            default:
                let message = (error as? any KartpackError)?.description ?? "\(error)"
                read.diagnostics.report(Diagnostic(.error, code: .fileRejected, message))
                reports.append(
                    ReadPhase.rejected(
                        path: set.path, layer: name, records: ReadPhase.recordCount(set, counted: records),
                        error: message, code: error.inputErrorCode))
            }
        }
    }

    /// Opens one set (or takes what the probe opened: `ProbedSets`): reader, CRS, zoom range, the style compiled
    /// for its layer, id-field checks.
    fileprivate func open(
        _ set: InputSet, name: String, input: ConvertInput, inputIndex: Int, index: Int, records: inout Int
    ) throws -> OpenedSet {
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
        let zooms = try input.zooms(of: set, packageZooms: settings.minZoom, settings.maxZoom)
        var ids = FeatureIDScheme.recordNumber
        if let field = input.idField ?? settings.idField {
            do {
                ids = try FeatureIDScheme.forField(
                    field, in: reader.schema.fields, policy: input.idPolicy ?? settings.idPolicy)
            } catch {
                throw PipelineError.badIDField(layer: name, field: field, reason: error.reason)
            }
        }
        settings.recordBoxes?.install(on: reader, path: set.path, crs: crs, ids: ids)
        var cascade: ClientCascade?
        if let sheet = settings.style {
            let kinds = Dictionary(
                Self.outputFields(reader.schema.fields, input: input).map { ($0.name, ClientFieldKind($0.type)) },
                uniquingKeysWith: { a, _ in a })
            let c = ClientCascade(sheet: sheet, layer: name, fieldKinds: kinds)
            if !c.flagKeys.isEmpty { cascade = c }
        }
        let context = SetContext(
            index: index, name: name, crs: crs, zooms: zooms,
            matcher: classifier?.matcher(layer: name, fields: reader.schema.fields), clientCascade: cascade,
            ancestors: regions.ancestors, clip: regions.clip)
        let report = ConvertReport.Input(
            path: set.path, layer: name, crs: crs.label, encoding: reader.schema.encoding?.name, records: 0,
            written: 0, rejected: [:], repaired: [:], coercedToNull: [:], classes: [:], error: nil, errorCode: nil)
        let keepers = try DuplicateKeepers.find(set, input: input, scheme: ids)
        return OpenedSet(
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
    package static func recordCount(_ set: InputSet, counted: Int) -> (count: Int, source: String) {
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
    /// The zooms `set` of this input is tiled at: its own range (`minZoom`/`maxZoom`) within the package's
    /// `low`…`high`. A range outside the package's rejects the set (`empty_zoom_range`); the input probe and the
    /// read phase both ask here.
    package func zooms(of set: InputSet, packageZooms low: Int, _ high: Int) throws -> ClosedRange<Int> {
        let lo = max(low, minZoom ?? low)
        let hi = min(high, maxZoom ?? high)
        guard lo <= hi else {
            throw InputRejection(
                code: .emptyZoomRange,
                message:
                    "\(set.path): the input's zoom range \(minZoom ?? lo)-\(maxZoom ?? hi) lies outside the "
                    + "package's \(low)-\(high) [empty_zoom_range]")
        }
        return lo...hi
    }

    /// The sets this input names: its explicit `files`, else every set at `path` (a `.gpkg`'s feature
    /// tables — only the one `layerName` names, when given —, one Shapefile or a folder of them).
    package func inputSets() throws -> [InputSet] {
        if let files { return [.shapefile(files)] }
        return try InputSet.sets(at: path, table: isGeoPackage ? layerName : nil)
    }

    /// True when the input is a GeoPackage (its `layerName` then names a table).
    var isGeoPackage: Bool { files == nil && GeoPackageFile.isGeoPackagePath(path) }

    /// The layer name of one of this input's layers: a GeoPackage table's name; `layerName` when the input is one
    /// Shapefile set, else the file's base name. The one rule the read phase and the style's ancestor sets share.
    package func layerName(for set: InputSet, setCount: Int) -> String {
        if case .geoPackage = set { return set.baseName }
        return setCount == 1 ? (layerName ?? set.baseName) : set.baseName
    }
}
