import Foundation
import KartpackCore
import KartpackKit
import Nightly
import TileArchive
import ConvertEngine
import PipelineFiles
import Publishing

/// Runs `kartpack package`: one package per region from one read of the sources, then the catalog.
///
/// 1. the regions are read and their ids checked (`RegionSet`); each region's clip polygon is made (the same
///    `Regions.clipRegion` a `convert --clip` run uses), in parallel;
/// 2. the sources are read and projected once (`RegionSource`), and each feature is routed to the regions whose
///    polygon it touches (`RegionRouting`);
/// 3. each region's fingerprint decides whether it is rebuilt; changed regions are built in parallel
///    (`RegionBuild`) into staging files;
/// 4. when all are built into tonight's generation (`PackageGenerations`), the catalog is written and signed into
///    it, and one atomic rename publishes it. Any failure before that rename publishes nothing.
package struct RegionPackager {
    package var options: RegionPackageOptions

    package init(options: RegionPackageOptions) {
        self.options = options
    }

    /// Builds, publishes and reports. A night that must not be published (a rejected source, a region that
    /// cannot be built or would leave the catalog, a broken guard: `CatalogCheck`) returns a report with
    /// `published` false, exit code 65 and every cause in `findings`; nothing in the folder is changed. A region
    /// whose build failed (an I/O error, …) is reported the same way (`region_build_failed`) with that error's exit
    /// code. Throws for errors that publish nothing and end the run before or after the builds (bad output, the
    /// sources' I/O, publishing, interruption).
    package func run(
        diagnostics: DiagnosticSink, progress: ProgressReporter?, isCancelled: @escaping @Sendable () -> Bool
    ) throws -> RegionPackageReport {
        let started = Date()
        // The time written into the catalog and its signature: `SOURCE_DATE_EPOCH` when set (a bad value: 64).
        let buildTime = Date(timeIntervalSince1970: try BuildClock.seconds())
        let folder = options.outputFolder
        try LayerRegistry.check(options.convert)
        try Self.prepareFolder(folder, create: !options.dryRun)
        let lock = options.dryRun ? nil : try RunLock(output: folder + "/" + Catalog.fileName)
        defer { lock?.release() }
        if !options.dryRun {
            try StaleTemporaryFiles.remove(in: folder, olderThan: PipelineRunner.staleAfterSeconds)
            try Self.sweepLeftovers(in: folder)
        }
        if let key = options.signKey, !options.dryRun {
            // Before anything is built: a night that cannot be signed is not worth building.
            try CatalogSigner.checkInputs(secretKey: key, passwordFile: options.signPasswordFile)
        }
        // Last night as published: its generation (or the folder itself, written before generations).
        let published = PackageGenerations(folder: folder).currentFolder() ?? folder
        let previous = try Catalog.read(folder: published)

        var set = try RegionSet(
            path: options.regionsPath, idField: options.idField, nameField: options.nameField, filter: options.filter)
        if let only = options.onlyRegions { set.regions = set.regions.filter { only.contains($0.id) } }
        var findings = set.problems
        let regionsFile = (options.regionsPath as NSString).lastPathComponent
        let night =
            try options.parts.map { try mergeInputs(set.regions, parts: $0, diagnostics: diagnostics) }
            ?? readInputs(set.regions, diagnostics: diagnostics, progress: progress, isCancelled: isCancelled)
        let shared = RegionProgress(progress)
        let (regions, fingerprints, convert) = (night.regions, night.fingerprints, night.convert)
        let rejectedLayers = Set(night.missing.map(\.layer))
        findings += night.findings

        let old = Dictionary((previous?.regions ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let ext = options.fileExtension
        var reuse: [CatalogRegion?] = []
        for (i, r) in regions.enumerated() {
            guard !options.rebuildAll, let entry = old[r.id], entry.fingerprint == fingerprints[i],
                entry.file == "\(r.id).\(ext)", Self.intact(entry, folder: published)
            else {
                reuse.append(nil)
                continue
            }
            reuse.append(entry)
        }
        var report = RegionPackageReport(
            kartpack: Kartpack.version, outputFolder: folder, catalog: folder + "/" + Catalog.fileName,
            signed: options.signKey != nil && !options.dryRun, dryRun: options.dryRun, regions: [], removed: [],
            published: false, findings: [],
            inputs: night.inputs, warnings: [:], seconds: 0, exitCode: 0)
        report.maxZoomChosen = night.chosen
        // Regions that cannot be built tonight are named by their own findings, not as removals.
        let present = Set(regions.map(\.id)).union(set.problems.compactMap(\.region))
            .union(night.unbuildable)
        let leaving: [(id: String, why: CatalogCheck.Leaving)] = (previous?.regions ?? []).map(\.id)
            .filter { !present.contains($0) }.map { ($0, .gone(regionsFile: regionsFile)) }
        report.removed = leaving.map(\.id)
        findings += CatalogCheck.removals(leaving, allowed: options.allowRemovals)
        if options.dryRun {
            report.regions = regions.enumerated().map { i, r in
                RegionPackageReport.Region(
                    id: r.id, name: r.name,
                    status: reuse[i] != nil ? "up-to-date" : old[r.id] == nil ? "new" : "changed",
                    file: "\(r.id).\(ext)", features: night.features(i),
                    bytes: UInt64(reuse[i]?.bytes ?? 0),
                    fingerprint: fingerprints[i])
            }
            return Self.finished(report, findings: findings, started: started)
        }
        if Self.refuses(findings) {
            // Nothing is built: what refuses the night is known before any region is.
            report.regions = Self.refusedRegions(regions, fingerprints: fingerprints)
            return Self.finished(report, findings: findings, started: started)
        }

        // Build the changed regions into staging files, in parallel.
        let toBuild = regions.indices.filter { reuse[$0] == nil }
        let unowned = Self.unownedTargets(
            toBuild.map { regions[$0].id + "." + ext }, previous: previous, folder: folder)
        if let first = unowned.first {
            // Someone else's file: not overwritten, whatever its name.
            throw RegionPackageError.notOurs(path: folder + "/" + first, count: unowned.count)
        }
        // Tonight's generation: every changed package is built into it; it is discarded unless published.
        let generation = try PackageGenerations(folder: folder).stage(sequence: (previous?.sequence ?? 0) + 1)
        let generationPath = generation.path
        let stage = "building regions (\(regions.count - toBuild.count) unchanged)"
        let baseOptions = convert
        let outputNames = LayerRegistry.outputNames(convert)
        let parts = options.parts
        let outcomes = parallelRegions(count: toBuild.count, threads: options.threads) { k -> BuildOutcome in
            let i = toBuild[k]
            defer { shared.step(stage, total: toBuild.count) }
            let region = regions[i]
            let target = generationPath + "/" + region.id + "." + ext
            do {
                if let parts {
                    // A merge: the shard built it (`RegionPackager+Parts`).
                    guard let p = try Self.takePart(parts, id: region.id, target: target, fingerprint: fingerprints[i])
                    else { return .empty(counts: []) }
                    return .built(p.entry, features: p.features, written: p.written, counts: [])
                }
                guard let source = night.source else {
                    throw PipelineError.badInput(path: options.regionsPath, reason: "region \(region.id) has no source")
                }
                var o = baseOptions
                o.output = target
                o.force = true
                o.name = region.name
                let sink = DiagnosticSink(sampleLimit: 5)
                let build = RegionBuild(
                    options: o, clip: night.clips[i], source: source, routed: night.routed[i], outputNames: outputNames)
                let converted: ConvertReport
                do {
                    converted = try build.run(diagnostics: sink, isCancelled: isCancelled)
                } catch PipelineError.nothingToWrite {
                    return .empty(counts: sink.counts)
                }
                let entry = try CatalogRegion.describe(
                    id: region.id, name: region.name, file: region.id + "." + ext, path: target, built: buildTime,
                    fingerprint: fingerprints[i])
                var written: [String: Int] = [:]
                for input in converted.inputs where input.error == nil {
                    written[input.layer, default: 0] += input.written
                }
                return .built(entry, features: converted.featuresWritten, written: written, counts: sink.counts)
            } catch {
                return .failed(region.id, (error as? any KartpackError)?.description ?? "\(error)", error)
            }
        }
        shared.finish()
        var staged: [Int: Built] = [:]
        var empty = Set<Int>()
        var warnings: [ReasonCode: Int] = [:]
        var failed: [(finding: PublishFinding, exitCode: ExitCode)] = []
        for (c, n) in diagnostics.counts { warnings[c, default: 0] += n }
        for (k, outcome) in outcomes.enumerated() {
            switch outcome {
            case .failed(let id, let message, let error):
                if case PipelineError.interrupted = error { throw error }
                let finding = PublishFinding(
                    .error, code: .regionBuildFailed, layer: "", file: nil,
                    message: "region \(id): \(message) [region_build_failed]", region: id)
                failed.append((finding, (error as? any KartpackError)?.exitCode ?? .software))
            case .empty(let counts):
                empty.insert(toBuild[k])
                for (c, n) in counts { warnings[c, default: 0] += n }
            case .built(let entry, let features, let written, let counts):
                staged[toBuild[k]] = Built(entry: entry, features: features, written: written)
                for (c, n) in counts { warnings[c, default: 0] += n }
            }
        }
        if isCancelled() { throw PipelineError.interrupted(signal: 0) }
        if let first = failed.first {
            // Nothing is published; the report names every region that failed, the exit code is the first error's.
            generation.discard()
            report.warnings = warnings
            report.regions = Self.refusedRegions(regions, fingerprints: fingerprints)
            var r = Self.finished(report, findings: findings + failed.map(\.finding), started: started)
            r.exitCode = first.exitCode.rawValue
            return r
        }

        let emptied: [(id: String, why: CatalogCheck.Leaving)] = empty.sorted().filter { old[regions[$0].id] != nil }
            .map { (regions[$0].id, .empty) }
        report.removed = (leaving + emptied).map(\.id).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        findings += CatalogCheck.removals(emptied, allowed: options.allowRemovals)
        findings += guardFindings(
            regions: regions, reuse: reuse, staged: staged, previous: previous, rejected: rejectedLayers)
        report.warnings = warnings
        if Self.refuses(findings) {
            generation.discard()
            report.regions = Self.refusedRegions(regions, fingerprints: fingerprints)
            return Self.finished(report, findings: findings, started: started)
        }

        // A region rebuilt into last night's bytes keeps last night's file and entry.
        try Self.keepIdentical(
            &staged, regions: regions, previous: old, generation: generationPath, published: published)
        // Publish: the catalog is signed first, then packages, catalog and signature go into place, then the
        // removed regions' files are deleted.
        var entries: [CatalogRegion] = []
        for i in regions.indices {
            if let r = reuse[i] {
                entries.append(r)
            } else if let b = staged[i] {
                entries.append(b.entry)
            }
        }
        entries.sort { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        let catalogBytes = try publish(
            entries, generation: generation, reused: reuse.compactMap { $0 }, from: published, previous: previous,
            created: buildTime, diagnostics: diagnostics)
        report.night = Self.night(
            regions: regions, reuse: reuse, staged: staged, previous: old, removed: report.removed.count,
            catalogBytes: catalogBytes)

        report.regions = regions.enumerated().map { i, r in
            if let entry = reuse[i] {
                return RegionPackageReport.Region(
                    id: r.id, name: r.name, status: "up-to-date", file: entry.file,
                    features: entry.layers.reduce(0) { $0 + $1.features }, bytes: UInt64(entry.bytes),
                    fingerprint: entry.fingerprint)
            }
            if let b = staged[i] {
                return RegionPackageReport.Region(
                    id: r.id, name: r.name, status: b.kept ? "identical" : "built", file: b.entry.file,
                    features: b.features,
                    bytes: UInt64(b.entry.bytes), fingerprint: b.entry.fingerprint)
            }
            return RegionPackageReport.Region(
                id: r.id, name: r.name, status: "empty", file: nil, features: 0, bytes: 0, fingerprint: fingerprints[i])
        }
        if !empty.isEmpty {
            let ids = empty.sorted().map { regions[$0].id }
            diagnostics.report(
                Diagnostic(
                    .warning, code: .regionEmpty,
                    "\(ids.count) regions hold no feature and are not in the catalog: "
                        + "\(ids.prefix(20).joined(separator: ", "))"
                        + (ids.count > 20 ? ", …and \(ids.count - 20) more" : "")
                ))
            report.warnings[.regionEmpty, default: 0] += 1
        }
        report.published = true
        if options.onlyRegions != nil {
            // A shard's part: what the merge needs instead of reading the sources (`RegionPartSummary`).
            let summary = RegionPartSummary(
                fingerprints: Dictionary(zip(regions.map(\.id), fingerprints), uniquingKeysWith: { a, _ in a }),
                inputs: night.inputs, maxZoomChosen: night.chosen)
            try summary.write(folder: folder)
        }
        return Self.finished(report, findings: findings, started: started)
    }

    /// `--max-zoom auto`: one max zoom for every region, chosen by `MaxZoomGuess` from all the sources before they
    /// are read and tiled (the read phase cuts each layer's zoom range to it). The guess ignores the clip, so
    /// it is the zoom a `convert --clip … --max-zoom auto` run of any one region chooses, and each package stays
    /// byte for byte that run's. The choice is said as the note `max_zoom_chosen`; the region builds' converters
    /// find it made and do not guess again. Nil without `maxZoomAuto`.
    package static func chooseMaxZoom(_ convert: inout ConvertOptions, diagnostics: DiagnosticSink) throws
        -> MaxZoomChoice?
    {
        guard convert.maxZoomAuto else { return nil }
        if let made = convert.maxZoomChoice { return made }
        let choice = try MaxZoomGuess(options: convert).choose()
        convert.maxZoom = choice.zoom
        convert.maxZoomChoice = choice
        say(choice, diagnostics: diagnostics)
        return choice
    }

    /// The note `max_zoom_chosen`.
    static func say(_ choice: MaxZoomChoice, diagnostics: DiagnosticSink) {
        diagnostics.report(
            Diagnostic(
                .note, code: .maxZoomChosen, "max zoom \(choice.zoom) chosen for every region: \(choice.reason)"))
    }

    private enum BuildOutcome: @unchecked Sendable {
        case built(
            CatalogRegion, features: Int, written: [String: Int], counts: [(code: ReasonCode, count: Int)])
        case empty(counts: [(code: ReasonCode, count: Int)])
        case failed(String, String, any Error)
    }

    /// True when the catalog entry's file is there with its listed size and hash.
    static func intact(_ entry: CatalogRegion, folder: String) -> Bool {
        guard isPackageFileName(entry.file), let d = try? FileDigest.sha256(path: folder + "/" + entry.file) else {
            return false
        }
        return Int64(d.bytes) == entry.bytes && d.sha256 == entry.sha256
    }

    /// `<id>.pmtiles` or `<id>.mbtiles` with a valid id: the only names the packager writes or deletes.
    static func isPackageFileName(_ name: String) -> Bool {
        for ext in [".pmtiles", ".mbtiles"] where name.hasSuffix(ext) {
            return RegionSet.problem(String(name.dropLast(ext.count))) == nil
        }
        return false
    }

    static func prepareFolder(_ folder: String, create: Bool) throws {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) {
            guard isDir.boolValue else { throw PipelineError.badOutput(path: folder, reason: "is not a folder") }
            return
        }
        let parent = RegularFile.parentPath(folder)
        guard parent.isEmpty || FileManager.default.fileExists(atPath: parent, isDirectory: &isDir),
            isDir.boolValue || parent.isEmpty
        else {
            throw PipelineError.badOutput(path: folder, reason: "folder \(parent) does not exist")
        }
        guard create else { return }
        guard mkdir(folder, 0o755) == 0 else {
            throw PipelineError.badOutput(path: folder, reason: String(cString: strerror(errno)))
        }
    }
}

/// A night that stops before any region is built (nothing is published).
package enum RegionPackageError: KartpackError {
    /// A package file tonight would write exists but the previous catalog does not list it (73).
    case notOurs(path: String, count: Int)

    package var exitCode: ExitCode {
        switch self {
        case .notOurs: .cantCreate
        }
    }
    package var description: String {
        switch self {
        case .notOurs(let p, let n):
            "\(p) exists but the previous catalog does not list it\(n > 1 ? " (and \(n - 1) more)" : ""); "
                + "package does not overwrite a file it did not write: move it away; nothing was published"
        }
    }
}
