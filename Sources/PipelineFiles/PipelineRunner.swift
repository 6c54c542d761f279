import Foundation
import KartpackCore
import Nightly
import KartpackJSON
import Reprojection
import Shapefile
import Styling
import TileArchive
import ConvertEngine
import Publishing

/// What `kartpack run --report` writes: the pipeline, its fingerprint, the inputs' digests and the conversion.
package struct PipelineRunReport: Encodable, Sendable {
    package var kartpack: String
    package var pipeline: String
    package var output: String
    /// SHA-256 over the inputs' bytes, the pipeline, the stylesheet and the Kartpack version.
    package var fingerprint: String
    /// True when the package was already built from exactly these inputs (nothing was done).
    package var upToDate: Bool
    package var dryRun: Bool
    package var inputs: [FileDigest]
    /// The conversion's report (absent when nothing was built; for a build refused before converting it lists
    /// only the rejected inputs).
    package var conversion: ConvertReport?
    /// True when a new package was moved into place (false when up to date, a dry run, or refused).
    package var published: Bool = false
    /// Layers missing from the package (`"onInputError": "skip"`) or whose rejection stopped the build.
    package var missingLayers: [MissingLayer] = []
    /// Why the build was or was not published: rejected inputs, empty layers, record-count guards.
    package var findings: [PublishFinding] = []
    /// Tiles re-encoded, copied and removed, and whether (and why) the build was full (absent when nothing was
    /// built).
    package var incremental: IncrementalReport?
    /// Wall time per stage in seconds (`validate`, `fingerprint`, `convert`).
    package var timings: [String: Double]
    package var exitCode: Int32
}

/// Turns a pipeline file into conversion options, validates it, and runs it the nightly way: one run at a time per
/// output (lock), skipped when nothing changed (fingerprint stored in the package metadata), atomic publish, and a
/// previous package that stays intact on any failure or signal.
package enum PipelineRunner {
    /// Temporary files of killed runs older than this are removed at start.
    package static let staleAfterSeconds = 6.0 * 3600

    /// The fingerprint stored in an existing package, nil when there is none (or no package).
    package static func storedFingerprint(of output: String) -> String? {
        guard FileManager.default.fileExists(atPath: output) else { return nil }
        if output.lowercased().hasSuffix(".mbtiles") {
            return try? MBTilesReader(path: output).metadataValue(PackageSummary.fingerprintKey)
        }
        return (try? PMTilesReader(path: output).metadata())?.objectMembers?.first {
            $0.key == PackageSummary.fingerprintKey
        }?.value
            .stringValue
    }

    /// Runs a pipeline. Returns the report; throws for configuration, lock, disk and conversion errors.
    ///
    /// - Parameter allowPartial: publish even when an input is rejected (as `"onInputError": "skip"`).
    package static func run(
        spec: PipelineSpec, force: Bool, dryRun: Bool, diagnostics: DiagnosticSink, progress: ProgressReporter?,
        isCancelled: @escaping @Sendable () -> Bool, threads: Int? = nil, allowPartial: Bool = false,
        memoryBudget: Int? = nil, scratch: String? = nil, full: Bool = false
    ) throws -> PipelineRunReport {
        var timer = StageClock()
        let (compiled, problems) = compileIssues(spec)
        guard var options = compiled else { throw PipelineSpecError(file: spec.file, issues: problems) }
        let missing = spec.missingFiles()
        guard missing.isEmpty else { throw PipelineSpecError(file: spec.file, issues: missing, exitCode: .noInput) }
        timer.lap("validate")

        let lock = try RunLock(output: spec.output.path)
        defer { lock.release() }
        let folder = RegularFile.parentPath(spec.output.path)
        try StaleTemporaryFiles.remove(in: folder.isEmpty ? "." : folder, olderThan: staleAfterSeconds)
        // Under the lock, this output's own temporaries (the package's, its tile index's and piece store's) can
        // only be from killed runs: removed whatever their age.
        let name = SpecPaths.fileName(spec.output.path)
        for dir in [folder.isEmpty ? "." : folder] + (scratch.map { [$0] } ?? []) {
            try StaleTemporaryFiles.removeAbandoned(
                in: dir, targets: [name] + companions(of: name))
        }

        let fingerprint = try spec.fingerprint()
        timer.lap("fingerprint")
        let upToDate = !force && !full && storedFingerprint(of: spec.output.path) == fingerprint.hex
        var report = PipelineRunReport(
            kartpack: Kartpack.version, pipeline: spec.file, output: spec.output.path, fingerprint: fingerprint.hex,
            upToDate: upToDate, dryRun: dryRun, inputs: fingerprint.inputs, conversion: nil, timings: timer.timings,
            exitCode: 0)
        if upToDate || dryRun { return report }

        let inputBytes = fingerprint.inputs.reduce(UInt64(0)) { $0 + UInt64($1.bytes) }
        options.memoryBudget = memoryBudget ?? spec.memoryBudget ?? MemoryBudget.defaultBytes
        try DiskSpace.check(
            folder: folder.isEmpty ? "." : folder,
            needed: Self.neededBytes(
                package: spec.output.path, inputBytes: inputBytes, memoryBudget: options.memoryBudget))

        options.extraMetadata = [(PackageSummary.fingerprintKey, fingerprint.hex)]
        options.threads = threads ?? ProcessInfo.processInfo.activeProcessorCount
        options.scratchDirectory = scratch
        var reuse = IncrementalRun.reuse(output: spec.output.path, full: full)
        var pieces = IncrementalRun.pieces(output: spec.output.path, full: full, memoryBudget: options.memoryBudget)
        IncrementalRun.leavePieces(reuse, in: pieces)
        let names = displayNames(spec)
        func convert() throws -> StagedConversionResult {
            options.tileReuse = reuse
            options.pieceReuse = pieces
            let staged = StagedConversion(
                options: options, policy: allowPartial ? .skip : spec.onInputError, expectations: spec.expectations,
                names: names)
            return try staged.run(diagnostics: diagnostics, progress: progress, isCancelled: isCancelled)
        }
        let result: StagedConversionResult
        do { result = try convert() } catch TileReuseError.lazyZoomThinned(let z) {
            // A zoom thinned tonight and not last night needs every piece: the night again, every tile encoded.
            reuse = TileReuse(fullBecause: "zoom \(z) is thinned tonight and was not last night")
            pieces = IncrementalRun.pieces(output: spec.output.path, full: full, memoryBudget: options.memoryBudget)
            result = try convert()
        }
        report.incremental = IncrementalRun.finish(
            reuse, pieces: pieces, output: spec.output.path, featuresWritten: result.report.featuresWritten,
            published: result.published)
        timer.lap("convert")
        report.conversion = result.report
        report.published = result.published
        report.missingLayers = result.missingLayers
        report.findings = result.findings
        report.timings = timer.timings
        report.exitCode = result.exitCode.rawValue
        return report
    }

    /// How the pipeline's files are named in messages: as written in the pipeline, relative to its folder
    /// (`data/avdelningar.shp`, `data/avdelningar.dbf`), sidecars included.
    package static func displayNames(_ spec: PipelineSpec) -> FileDisplayNames {
        var names = FileDisplayNames()
        var paths = spec.sources.map(\.path)
        if let clip = spec.clip, case .file(let p, _) = clip.area { paths.append(p) }
        for path in paths {
            names.add(path: path, shownAs: spec.relativePath(path))
            guard let set = try? InputSet.sets(at: path).first else { continue }
            for file in set.files {
                names.add(path: file, shownAs: spec.relativePath(file))
            }
        }
        return names
    }

    /// The files a `run` rewrites beside its package every night: the tile index and the piece store.
    static func companions(of package: String) -> [String] {
        [TileIndex.path(forPackage: package), PieceStore.path(forPackage: package)]
    }

    /// Bytes of last night's package and of its `companions`: each is written whole before it replaces the old
    /// one, so a night needs about that much free space. Nil on a first night (no package yet).
    static func previousBytes(package: String) -> UInt64? {
        guard let bytes = POSIXFile.size(of: package) else { return nil }
        return companions(of: package).reduce(bytes) { $0 + (POSIXFile.size(of: $1) ?? 0) }
    }

    /// The free space a night needs beside `package` (`DiskSpace.estimate` of last night's files, `previousBytes`),
    /// plus, when there is no piece store yet (a first night, or one after a store was not written), the store
    /// tonight writes: about 1.5 bytes per input byte (1.38–1.41 measured on 100k and 1M stands), never more than
    /// the store's limit under `memoryBudget` (a larger one is not written).
    static func neededBytes(package: String, inputBytes: UInt64, memoryBudget: Int) -> UInt64 {
        let needed = DiskSpace.estimate(inputBytes: inputBytes, previousOutputBytes: previousBytes(package: package))
        guard POSIXFile.size(of: PieceStore.path(forPackage: package)) == nil else { return needed }
        let store = min(
            inputBytes > UInt64.max / 2 ? .max : inputBytes / 2 * 3,
            UInt64(max(0, PieceReuse.limit(memoryBudget: memoryBudget))))
        let (sum, overflow) = needed.addingReportingOverflow(store)
        return overflow ? .max : sum
    }
}
