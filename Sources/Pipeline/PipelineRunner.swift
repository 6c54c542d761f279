import Foundation
import KartpackCore
import Nightly
import KartpackJSON
import Reprojection
import Shapefile
import Styling
import TileArchive

/// What `kartpack run --report` writes: the pipeline, its fingerprint, the inputs' digests and the conversion.
public struct PipelineRunReport: Encodable, Sendable {
    public var kartpack: String
    public var pipeline: String
    public var output: String
    /// SHA-256 over the inputs' bytes, the pipeline, the stylesheet and the Kartpack version.
    public var fingerprint: String
    /// True when the package was already built from exactly these inputs (nothing was done).
    public var upToDate: Bool
    public var dryRun: Bool
    public var inputs: [FileDigest]
    /// The conversion's report (absent when nothing was built).
    public var conversion: ConvertReport?
    /// Wall time per stage in seconds (`validate`, `fingerprint`, `convert`).
    public var timings: [String: Double]
    public var exitCode: Int32
}

/// Turns a pipeline file into conversion options, validates it, and runs it the nightly way: one run at a time per
/// output (lock), skipped when nothing changed (fingerprint stored in the package metadata), atomic publish, and a
/// previous package that stays intact on any failure or signal.
public enum PipelineRunner {
    /// The metadata key holding the fingerprint of the inputs a package was built from.
    public static let fingerprintKey = "kartpack_fingerprint"
    /// Temporary files of killed runs older than this are removed at start.
    static let staleAfterSeconds = 6.0 * 3600

    /// Compiles the spec: filters, stylesheet and clip region into `ConvertOptions`. Problems are collected.
    public static func compile(_ spec: PipelineSpec) -> (ConvertOptions?, [String]) {
        var problems: [String] = []
        var o = spec.convertOptions
        for (i, s) in spec.sources.enumerated() {
            o.inputs[i].keep = s.keep
            o.inputs[i].rename = s.rename.map { ($0.from, $0.to) }
            o.inputs[i].minZoom = s.minZoom
            o.inputs[i].maxZoom = s.maxZoom
            if let text = s.filter {
                o.inputs[i].filter = filter(text, at: "sources[\(i)].filter", in: spec, problems: &problems)
            }
        }
        if let style = spec.style {
            do {
                let (sheet, _) = try StyleLoader.load(path: style)
                o.style = sheet
            } catch {
                problems.append(error.description)
            }
        }
        if let clip = spec.clip {
            switch clip.area {
            case .bbox(let b): o.clip = ClipOptions(source: .bbox(b), buffer: clip.buffer)
            case .file(let path, let text):
                let compiled = text.flatMap { filter($0, at: "clip.filter", in: spec, problems: &problems) }
                o.clip = ClipOptions(source: .polygons(path: path, filter: compiled, sourceCRS: nil), buffer: clip.buffer)
            }
        }
        o.force = true
        return (problems.isEmpty ? o : nil, problems)
    }

    /// Compiles one record filter of the spec; errors are added to `problems` with their JSON path.
    private static func filter(
        _ text: String, at path: String, in spec: PipelineSpec, problems: inout [String]
    ) -> AttributeFilterList? {
        let (filter, diagnostics) = AttributeFilterList.parse(text, file: spec.file)
        for d in diagnostics where d.severity == .error {
            problems.append("\(spec.file): \(path): \(d.message) (column \(d.column))")
        }
        return filter
    }

    /// Checks everything a run needs without building: the spec, files, CRSs, filters, the stylesheet (lint
    /// against the sources' fields, examples). Returns errors and warnings as lines.
    public static func validate(path: String, overrides: [String]) -> (errors: [String], warnings: [String]) {
        let spec: PipelineSpec
        do { spec = try PipelineSpec.load(path: path, overrides: overrides) } catch { return (error.lines.map { "\(path): \($0)" }, []) }
        var errors = spec.missingFiles().map { "\(path): \($0)" }
        var warnings: [String] = []
        let (_, problems) = compile(spec)
        errors += problems
        var schemas: [LayerSchema] = []
        for (i, s) in spec.sources.enumerated() where FileManager.default.fileExists(atPath: s.path) {
            do {
                let reader = try ShapefileReader(path: s.path, options: ShapefileReadOptions(encoding: s.encoding), diagnostics: DiagnosticSink())
                var schema = reader.schema
                schema.name = s.layer
                schemas.append(schema)
                let crs = try IsolatedCRS.resolve(prjText: reader.prjText, override: s.crs, prjFile: reader.files.prj ?? s.path)
                _ = try CoordinateTransformer(from: crs, to: .webMercator)
            } catch {
                errors.append("\(path): sources[\(i)] (\(s.path)): \((error as? any KartpackError)?.description ?? "\(error)")")
            }
        }
        if let style = spec.style, FileManager.default.fileExists(atPath: style) {
            var diagnostics = StyleLoader.validate(path: style, inputs: [])
            if let (sheet, _) = try? StyleLoader.load(path: style) { diagnostics += sheet.lint(layers: schemas) }
            for d in diagnostics {
                if d.severity == .error { errors.append(d.description) } else { warnings.append(d.description) }
            }
        }
        return (errors, warnings)
    }

    /// The fingerprint stored in an existing package, nil when there is none (or no package).
    public static func storedFingerprint(of output: String) -> String? {
        guard FileManager.default.fileExists(atPath: output) else { return nil }
        if output.lowercased().hasSuffix(".mbtiles") {
            return try? MBTilesReader(path: output).metadataValue(fingerprintKey)
        }
        return (try? PMTilesReader(path: output).metadata())?.objectMembers?.first { $0.key == fingerprintKey }?.value.stringValue
    }

    /// Runs a pipeline. Returns the report; throws for configuration, lock, disk and conversion errors.
    public static func run(
        spec: PipelineSpec, force: Bool, dryRun: Bool, diagnostics: DiagnosticSink, progress: ProgressReporter?,
        isCancelled: @escaping @Sendable () -> Bool, threads: Int? = nil
    ) throws -> PipelineRunReport {
        var timings: [String: Double] = [:]
        var clock = Date()
        func lap(_ stage: String) {
            timings[stage] = (Date().timeIntervalSince(clock) * 1000).rounded() / 1000
            clock = Date()
        }
        let (compiled, problems) = compile(spec)
        guard var options = compiled else {
            throw PipelineSpecError(file: spec.file, issues: problems.map { PipelineSpecIssue(path: JSONPath(), message: $0) })
        }
        let missing = spec.missingFiles()
        guard missing.isEmpty else { throw PipelineSpecError(file: spec.file, issues: missing, exitCode: .noInput) }
        lap("validate")

        let lock = try RunLock(output: spec.output.path)
        defer { lock.release() }
        let folder = (spec.output.path as NSString).deletingLastPathComponent
        try StaleTemporaryFiles.remove(in: folder.isEmpty ? "." : folder, olderThan: staleAfterSeconds)
        // Under the lock, this output's own temporaries can only be from killed runs: removed whatever their age.
        try StaleTemporaryFiles.removeAbandoned(
            in: folder.isEmpty ? "." : folder, targets: [SpecPaths.fileName(spec.output.path)])

        let fingerprint = try spec.fingerprint()
        lap("fingerprint")
        let upToDate = !force && storedFingerprint(of: spec.output.path) == fingerprint.hex
        var report = PipelineRunReport(
            kartpack: Kartpack.version, pipeline: spec.file, output: spec.output.path, fingerprint: fingerprint.hex,
            upToDate: upToDate, dryRun: dryRun, inputs: fingerprint.inputs, conversion: nil, timings: timings,
            exitCode: 0)
        if upToDate || dryRun { return report }

        let inputBytes = fingerprint.inputs.reduce(UInt64(0)) { $0 + UInt64($1.bytes) }
        let previous = (try? FileManager.default.attributesOfItem(atPath: spec.output.path)[.size] as? UInt64) ?? nil
        try DiskSpace.check(folder: folder.isEmpty ? "." : folder, needed: DiskSpace.estimate(inputBytes: inputBytes, previousOutputBytes: previous))

        options.extraMetadata = [(fingerprintKey, fingerprint.hex)]
        options.threads = threads ?? ProcessInfo.processInfo.activeProcessorCount
        let conversion = try Converter(options: options, diagnostics: diagnostics, progress: progress, isCancelled: isCancelled).run()
        lap("convert")
        report.conversion = conversion
        report.timings = timings
        report.exitCode = conversion.exitCode
        return report
    }
}
