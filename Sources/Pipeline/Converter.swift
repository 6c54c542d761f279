import Foundation
import KartpackCore
import Reprojection
import Shapefile
import TileArchive
import VectorTile

/// Runs `kartpack convert`: Shapefiles → reprojected, simplified, clipped MVT tiles → PMTiles or MBTiles.
///
/// Phases: (1) features are read one input at a time (streaming) and handed in batches to worker threads that
/// reproject, repair and cut them into tile pieces; (2) pieces are sorted into the archive's tile order;
/// (3) tiles are encoded per zoom with the tile limits applied, and written to a temporary file that is published
/// atomically. Output bytes do not depend on the thread count.
public final class Converter {
    let options: ConvertOptions
    let diagnostics: DiagnosticSink
    let progress: ProgressReporter?

    /// Creates a converter.
    public init(options: ConvertOptions, diagnostics: DiagnosticSink, progress: ProgressReporter? = nil) {
        self.options = options
        self.diagnostics = diagnostics
        self.progress = progress
    }

    struct Layer {
        var name: String
        var schema: LayerSchema
        var records: [FeatureRecord] = []
        var report: ConvertReport.Input
        var boundsWGS84: Bounds?
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

        let order: TileOrder = options.format == .pmtiles ? .hilbert : .zxy
        var layers: [Layer] = []
        var rejectedInputs: [ConvertReport.Input] = []
        var pieces: [PlacedPiece] = []
        var dataBounds = Bounds.empty

        for input in options.inputs {
            let sets: [ShapefileSet]
            do { sets = try ShapefileLocator.shapefiles(at: input.path) } catch {
                diagnostics.report(Diagnostic(.error, code: "file_rejected", error.description, file: input.path))
                rejectedInputs.append(Self.rejectedInput(path: input.path, layer: input.layerName ?? "", error: error.description))
                continue
            }
            for set in sets {
                let name = sets.count == 1 ? (input.layerName ?? set.baseName) : set.baseName
                let layerIndex = layers.count
                do {
                    let layer = try readLayer(set, name: name, index: layerIndex, input: input, team: team,
                                              order: order, pieces: &pieces, dataBounds: &dataBounds)
                    layers.append(layer)
                } catch {
                    let message = (error as? any KartpackError)?.description ?? "\(error)"
                    diagnostics.report(Diagnostic(.error, code: "file_rejected", message, file: set.shp))
                    rejectedInputs.append(Self.rejectedInput(path: set.shp, layer: name, error: message))
                }
            }
        }
        progress?.finish()
        guard !layers.isEmpty else {
            throw PipelineError.nothingToWrite(reasons: rejectedInputs.compactMap(\.error))
        }
        for l in layers {
            let r = l.report
            let accounted = r.written + r.rejected.values.reduce(0, +)
            guard accounted == r.records else {
                throw PipelineError.reconciliationFailed(detail: "\(r.path): \(r.records) records read, \(r.written) written + \(accounted - r.written) rejected")
            }
        }

        pieces.sort { ($0.key, $0.layer, $0.feature) < ($1.key, $1.layer, $1.feature) }
        let assembler = TileAssembler(
            layerNames: layers.map(\.name), extent: options.extent, maxTileBytes: options.maxTileBytes,
            maxTileFeatures: options.maxTileFeatures, threads: options.threads, maxZoom: options.maxZoom)
        let zooms = options.minZoom...options.maxZoom
        let (tiles, stats) = try assembler.assemble(pieces: pieces, records: layers.map(\.records), zooms: zooms, progress: progress)
        pieces = []
        progress?.finish()

        let summary = try write(tiles: tiles, zooms: zooms, layers: layers, dataBounds: dataBounds, stats: stats)
        return makeReport(layers: layers, rejectedInputs: rejectedInputs, stats: stats, summary: summary, started: started)
    }

    private static func rejectedInput(path: String, layer: String, error: String) -> ConvertReport.Input {
        ConvertReport.Input(path: path, layer: layer, crs: nil, encoding: nil, records: 0, written: 0, rejected: [:],
                            repaired: [:], coercedToNull: [:], error: error)
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
