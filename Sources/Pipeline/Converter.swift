import Foundation
import KartpackCore
import Reprojection
import Shapefile
import Styling
import TileArchive
import VectorTile

/// Runs `kartpack convert`: Shapefiles → reprojected, simplified, clipped MVT tiles → PMTiles or MBTiles.
///
/// Phases: (1) features are read one input at a time (streaming) and handed in batches to worker threads that
/// reproject, clip to the region, style, repair and cut them into tile pieces; (2) pieces are sorted into the
/// archive's tile order; (3) tiles are encoded per zoom with the tile limits applied, verified, and written to a
/// temporary file that is published atomically. Output bytes do not depend on the thread count.
public final class Converter {
    let options: ConvertOptions
    let diagnostics: DiagnosticSink
    let progress: ProgressReporter?
    let classifier: StyleClassifier?
    /// Checked between batches and tiles; a true value stops the run (nothing is published).
    let isCancelled: @Sendable () -> Bool

    /// Creates a converter.
    public init(
        options: ConvertOptions, diagnostics: DiagnosticSink, progress: ProgressReporter? = nil,
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) {
        self.options = options
        self.diagnostics = diagnostics
        self.progress = progress
        self.isCancelled = isCancelled
        classifier = options.style.map(StyleClassifier.init(sheet:))
    }

    /// One input file as read.
    struct InputLayer {
        var name: String
        var schema: LayerSchema
        var report: ConvertReport.Input
    }

    /// One MVT layer of the package; several inputs may feed it (style `layer:`).
    struct OutputLayer {
        var name: String
        var fields: [FieldDefinition] = []
        var records: [FeatureRecord] = []
        var family: GeometryFamily?
        var classes: [String: Int] = [:]
        /// Features per class at each zoom they are written at (collapsed zooms left out).
        var classesByZoom: [Int: [String: Int]] = [:]
        var hasClass = false
    }

    /// Everything the feature phase accumulates.
    struct State {
        var inputs: [InputLayer] = []
        var outputs: [OutputLayer] = []
        var rejectedInputs: [ConvertReport.Input] = []
        var pieces: [PlacedPiece] = []
        var dataBounds = Bounds.empty
        /// Every input's report in command-line order (rejected files included).
        var reports: [ConvertReport.Input] = []
        /// Records in the file that was opened last (so a file rejected after opening still counts them).
        var lastRecordCount = 0
        /// Wall time per stage, in seconds.
        var timings: [String: Double] = [:]
        private var clock = Date()

        /// Ends a stage: records the time since the previous one.
        mutating func lap(_ stage: String) {
            timings[stage] = (Date().timeIntervalSince(clock) * 1000).rounded() / 1000
            clock = Date()
        }

        /// Records a rejected file, in command-line order.
        mutating func reject(_ report: ConvertReport.Input) {
            rejectedInputs.append(report)
            reports.append(report)
        }

        /// The index of the output layer `name`, created on first use (deterministic: feature order).
        mutating func output(named name: String) -> Int {
            if let i = outputs.firstIndex(where: { $0.name == name }) { return i }
            outputs.append(OutputLayer(name: name))
            return outputs.count - 1
        }
    }

    /// Converts; throws when nothing can be published. Rejected inputs and records are in the report.
    public func run() throws -> ConvertReport {
        let started = Date()
        try checkOutput()
        let parameters = TilingParameters(
            minZoom: options.minZoom, maxZoom: options.maxZoom, extent: options.extent, buffer: options.buffer,
            simplify: options.simplify)
        let team = WorkerTeam<FeatureWorker, FeatureJob, TilingOutcome>(
            threads: options.threads, makeState: { FeatureWorker(parameters: parameters) },
            work: { worker, job in worker.process(job) })
        defer { team.shutdown() }

        let clip = try options.clip.map { try clipRegion($0) }
        let ancestors = try ancestorSets()
        let order: TileOrder = options.format == .pmtiles ? .hilbert : .zxy
        var state = State()

        for input in options.inputs {
            let sets: [ShapefileSet]
            do throws(ShapefileError) {
                if let files = input.files { sets = [files] } else { sets = try ShapefileLocator.shapefiles(at: input.path) }
            } catch {
                // The error's text names the file.
                diagnostics.report(Diagnostic(.error, code: "file_rejected", error.description))
                state.reject(Self.rejectedInput(path: input.path, layer: input.layerName ?? "", records: 0, error: error.description, code: error.inputErrorCode))
                continue
            }
            for set in sets {
                let name = sets.count == 1 ? (input.layerName ?? set.baseName) : set.baseName
                do {
                    try readLayer(set, name: name, input: input, team: team, order: order, clip: clip,
                                  ancestors: ancestors, state: &state)
                } catch let e as PipelineError {
                    throw e
                } catch {
                    let message = (error as? any KartpackError)?.description ?? "\(error)"
                    diagnostics.report(Diagnostic(.error, code: "file_rejected", message))
                    // A set the reader refused still counts its records (from the .shx, .shp or .dbf).
                    let records = state.lastRecordCount > 0 ? state.lastRecordCount : (set.probeRecordCount()?.count ?? 0)
                    state.reject(Self.rejectedInput(path: set.shp, layer: name, records: records, error: message, code: error.inputErrorCode))
                }
            }
        }
        progress?.finish()
        guard !state.inputs.isEmpty else {
            throw PipelineError.nothingToWrite(
                reasons: ["every input was rejected"] + state.rejectedInputs.compactMap(\.error),
                report: makeReport(state: state, stats: [:], summary: nil, started: started))
        }
        for l in state.inputs {
            let r = l.report
            let accounted = r.written + r.rejected.values.reduce(0, +)
            guard accounted == r.records else {
                throw PipelineError.reconciliationFailed(detail: "\(r.path): \(r.records) records read, \(r.written) written + \(accounted - r.written) rejected")
            }
        }
        guard state.outputs.contains(where: { !$0.records.isEmpty }) else {
            throw PipelineError.nothingToWrite(
                reasons: ["no feature was written (see the rejected counts)"],
                report: makeReport(state: state, stats: [:], summary: nil, started: started))
        }

        state.lap("features")
        state.pieces.sort { ($0.key, $0.layer, $0.feature) < ($1.key, $1.layer, $1.feature) }
        state.lap("sort")
        let assembler = TileAssembler(
            layerNames: state.outputs.map(\.name), extent: options.extent, maxTileBytes: options.maxTileBytes,
            maxTileFeatures: options.maxTileFeatures, threads: options.threads, maxZoom: options.maxZoom)
        let zooms = options.minZoom...options.maxZoom
        try checkCancelled()
        let (tiles, stats) = try assembler.assemble(
            pieces: state.pieces, records: state.outputs.map(\.records), zooms: zooms, progress: progress)
        state.pieces = []
        progress?.finish()
        try checkCancelled()

        state.lap("encode")
        let summary = try write(tiles: tiles, zooms: zooms, state: state, stats: stats)
        state.lap("write")
        return makeReport(state: state, stats: stats, summary: summary, started: started)
    }

    func checkCancelled() throws {
        if isCancelled() { throw PipelineError.interrupted(signal: 0) }
    }

    /// The report of a rejected file: its records (when it could be opened) all count as `file_rejected`, so files
    /// balance one level up.
    static func rejectedInput(path: String, layer: String, records: Int, error: String, code: String) -> ConvertReport.Input {
        ConvertReport.Input(path: path, layer: layer, crs: nil, encoding: nil, records: records, written: 0,
                            rejected: records > 0 ? ["file_rejected": records] : [:], repaired: [:], coercedToNull: [:],
                            classes: [:], error: error, errorCode: code)
    }

    /// Refuses an existing output without `--force` before any work is done.
    private func checkOutput() throws {
        let fm = FileManager.default
        let dir = (options.output as NSString).deletingLastPathComponent
        var isDir: ObjCBool = false
        if !dir.isEmpty, !fm.fileExists(atPath: dir, isDirectory: &isDir) || !isDir.boolValue {
            throw PipelineError.badOutput(path: options.output, reason: "folder \(dir) does not exist")
        }
        if fm.fileExists(atPath: options.output, isDirectory: &isDir) {
            if isDir.boolValue { throw PipelineError.badOutput(path: options.output, reason: "is a folder") }
            if !options.force { throw PipelineError.outputExists(path: options.output) }
        }
    }
}
