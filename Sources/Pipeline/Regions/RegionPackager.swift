import Foundation
import KartpackCore
import Nightly
import TileArchive

/// Runs `kartpack package`: one package per region from one read of the sources, then the catalog.
///
/// 1. the regions are read and their ids checked (`RegionSet`); each region's clip polygon is made (the same
///    `Regions.clipRegion` a `convert --clip` run uses), in parallel;
/// 2. the sources are read and projected once (`RegionSource`), and each feature is routed to the regions its
///    extent touches (`RegionIndex`);
/// 3. each region's fingerprint decides whether it is rebuilt; changed regions are built in parallel
///    (`RegionBuild`) into staging files;
/// 4. when all are built, they are renamed into place, the catalog is published (and signed), and only then are
///    the files of regions that left the catalog deleted. Any failure before step 4 publishes nothing.
package struct RegionPackager {
    package var options: RegionPackageOptions

    package init(options: RegionPackageOptions) {
        self.options = options
    }

    /// Builds, publishes and reports. Throws for errors that publish nothing.
    package func run(
        diagnostics: DiagnosticSink, progress: ProgressReporter?, isCancelled: @escaping @Sendable () -> Bool
    ) throws -> RegionPackageReport {
        let started = Date()
        let folder = options.outputFolder
        try Self.prepareFolder(folder, create: !options.dryRun)
        let lock = options.dryRun ? nil : try RunLock(output: folder + "/" + Catalog.fileName)
        defer { lock?.release() }
        if !options.dryRun {
            try StaleTemporaryFiles.remove(in: folder, olderThan: PipelineRunner.staleAfterSeconds)
        }
        let previous = try Catalog.read(folder: folder)

        let set = try RegionSet(
            path: options.regionsPath, idField: options.idField, nameField: options.nameField, filter: options.filter)
        let regions = set.regions
        let buffer = options.buffer
        let path = options.regionsPath
        let shared = RegionProgress(progress)
        let clips = try parallelRegions(count: regions.count, threads: options.threads) { i in
            defer { shared.step("preparing regions", total: regions.count) }
            return Result { try Regions.clipRegion(polygons: regions[i].polygons, buffer: buffer, what: path) }
        }.enumerated().map { i, r in
            do { return try r.get() } catch {
                throw RegionSetError.badID(
                    file: (path as NSString).lastPathComponent, record: regions[i].record, id: regions[i].id,
                    reason: "has no usable polygon: \((error as? any KartpackError)?.description ?? "\(error)")")
            }
        }

        shared.finish()
        var convert = options.convert
        convert.clip = nil
        let chosen = try Self.chooseMaxZoom(&convert, diagnostics: diagnostics)
        let source = try RegionSource.read(
            options: convert, diagnostics: diagnostics, progress: progress, isCancelled: isCancelled)
        let routed = Self.route(source, clips: clips)
        let settings =
            options.settings + [
                "buffer \(options.buffer)", "format \(options.fileExtension)",
                "zooms \(convert.minZoom)-\(convert.maxZoom)",
                "extent \(convert.extent) simplify \(convert.simplify) tilebuffer \(convert.buffer)",
                "limits \(convert.maxTileBytes) \(convert.maxTileFeatures)", "idField \(convert.idField ?? "")",
                "description \(convert.description ?? "") attribution \(convert.attribution ?? "")",
            ]
        let fingerprints = parallelRegions(count: regions.count, threads: options.threads) { i in
            defer { shared.step("fingerprinting regions", total: regions.count) }
            return RegionFingerprint.region(regions[i], routed: routed[i], source: source, settings: settings)
        }
        shared.finish()

        let old = Dictionary((previous?.regions ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let ext = options.fileExtension
        var reuse: [Catalog.Region?] = []
        for (i, r) in regions.enumerated() {
            guard !options.rebuildAll, let entry = old[r.id], entry.fingerprint == fingerprints[i],
                entry.file == "\(r.id).\(ext)", Self.intact(entry, folder: folder)
            else {
                reuse.append(nil)
                continue
            }
            reuse.append(entry)
        }
        var report = RegionPackageReport(
            kartpack: Kartpack.version, outputFolder: folder, catalog: folder + "/" + Catalog.fileName,
            signed: options.signKey != nil && !options.dryRun, dryRun: options.dryRun, regions: [], removed: [],
            inputs: source.entries.map { e in
                switch e {
                case .rejected(let r): return r
                case .layer(let l):
                    var r = l.layer.finish()
                    r.rejected.add(l.failures)
                    return r
                }
            }, warnings: [:], seconds: 0, exitCode: 0)
        report.maxZoomChosen = chosen
        let removedIDs = (previous?.regions ?? []).map(\.id).filter { id in !regions.contains { $0.id == id } }
        report.removed = removedIDs
        if options.dryRun {
            report.regions = regions.enumerated().map { i, r in
                RegionPackageReport.Region(
                    id: r.id, name: r.name,
                    status: reuse[i] != nil ? "up-to-date" : old[r.id] == nil ? "new" : "changed",
                    file: "\(r.id).\(ext)", features: routed[i].reduce(0) { $0 + $1.count },
                    bytes: reuse[i]?.bytes ?? 0,
                    fingerprint: fingerprints[i])
            }
            report.seconds = Date().timeIntervalSince(started)
            return report
        }

        // Build the changed regions into staging files, in parallel.
        let toBuild = regions.indices.filter { reuse[$0] == nil }
        let stage = "building regions (\(regions.count - toBuild.count) unchanged)"
        let baseOptions = convert
        let built0 = UTCTimestamp.format(secondsSince1970: UTCTimestamp.now())
        let outcomes = parallelRegions(count: toBuild.count, threads: options.threads) { k -> BuildOutcome in
            let i = toBuild[k]
            defer { shared.step(stage, total: toBuild.count) }
            let region = regions[i]
            let target = folder + "/" + region.id + "." + ext
            do {
                let staged = try StagedPackage(target: target)
                var o = baseOptions
                o.output = staged.path
                o.force = true
                o.name = region.name
                let sink = DiagnosticSink(sampleLimit: 5)
                let build = RegionBuild(options: o, clip: clips[i], source: source, routed: routed[i])
                let converted: ConvertReport
                do {
                    converted = try build.run(diagnostics: sink, isCancelled: isCancelled)
                } catch PipelineError.nothingToWrite {
                    staged.discard()
                    return .empty(counts: sink.counts)
                }
                let entry = try Catalog.Region.describe(
                    id: region.id, name: region.name, file: region.id + "." + ext, path: staged.path, built: built0,
                    fingerprint: fingerprints[i])
                return .built(staged, entry, features: converted.featuresWritten, counts: sink.counts)
            } catch {
                return .failed("\(region.id): \((error as? any KartpackError)?.description ?? "\(error)")", error)
            }
        }
        shared.finish()
        var staged: [Int: (StagedPackage, Catalog.Region, Int)] = [:]
        var empty = Set<Int>()
        var warnings: [String: Int] = [:]
        for (c, n) in diagnostics.counts { warnings[c, default: 0] += n }
        for (k, outcome) in outcomes.enumerated() {
            switch outcome {
            case .failed(let message, let error):
                // Nothing is published: the staged packages are removed as they go.
                if case PipelineError.interrupted = error { throw error }
                throw RegionPackageError.regionFailed(
                    message, exitCode: (error as? any KartpackError)?.exitCode ?? .software)
            case .empty(let counts):
                empty.insert(toBuild[k])
                for (c, n) in counts { warnings[c, default: 0] += n }
            case .built(let s, let entry, let features, let counts):
                staged[toBuild[k]] = (s, entry, features)
                for (c, n) in counts { warnings[c, default: 0] += n }
            }
        }
        if isCancelled() { throw PipelineError.interrupted(signal: 0) }

        // Publish: packages, then the catalog (and its signature), then the removed regions' files.
        var entries: [Catalog.Region] = []
        for i in regions.indices {
            if let r = reuse[i] {
                entries.append(r)
            } else if let (s, entry, _) = staged[i] {
                try s.publish(overwrite: true)
                entries.append(entry)
            }
        }
        entries.sort { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        let catalog = Catalog(
            created: UTCTimestamp.format(secondsSince1970: UTCTimestamp.now()), kartpack: Kartpack.version,
            regions: entries)
        let catalogPath = folder + "/" + Catalog.fileName
        let file = try AtomicFile(targetPath: catalogPath, overwrite: true)
        try file.write(Array(catalog.text.utf8))
        try file.publish()
        let signaturePath = folder + "/" + Catalog.signatureName
        if let key = options.signKey {
            try CatalogSigner().sign(
                file: catalogPath, signature: signaturePath, secretKey: key, passwordFile: options.signPasswordFile)
        } else if FileManager.default.fileExists(atPath: signaturePath) {
            // A signature of an older catalog would make every verify fail: it goes with the catalog it signed.
            unlink(signaturePath)
            diagnostics.report(
                Diagnostic(
                    .warning, code: "signature_removed",
                    "\(signaturePath) signed the previous catalog and was removed; pass --sign KEY to sign this one"))
        }
        let kept = Set(entries.map(\.file))
        for old in previous?.regions ?? [] where !kept.contains(old.file) {
            guard Self.isPackageFileName(old.file) else { continue }
            unlink(folder + "/" + old.file)
        }

        report.regions = regions.enumerated().map { i, r in
            if let entry = reuse[i] {
                return RegionPackageReport.Region(
                    id: r.id, name: r.name, status: "up-to-date", file: entry.file,
                    features: entry.layers.reduce(0) { $0 + $1.features }, bytes: entry.bytes,
                    fingerprint: entry.fingerprint)
            }
            if let (_, entry, features) = staged[i] {
                return RegionPackageReport.Region(
                    id: r.id, name: r.name, status: "built", file: entry.file, features: features, bytes: entry.bytes,
                    fingerprint: entry.fingerprint)
            }
            return RegionPackageReport.Region(
                id: r.id, name: r.name, status: "empty", file: nil, features: 0, bytes: 0, fingerprint: fingerprints[i])
        }
        if !empty.isEmpty {
            let ids = empty.sorted().map { regions[$0].id }
            diagnostics.report(
                Diagnostic(
                    .warning, code: "region_empty",
                    "\(ids.count) regions hold no feature and are not in the catalog: "
                        + "\(ids.prefix(20).joined(separator: ", "))"
                ))
            warnings["region_empty", default: 0] += 1
        }
        report.warnings = warnings
        report.seconds = (Date().timeIntervalSince(started) * 1000).rounded() / 1000
        return report
    }

    /// `--max-zoom auto`: one max zoom for every region, chosen by `MaxZoomGuess` from all the sources before they
    /// are read and tiled (the read phase cuts each layer's zoom range to it). The guess ignores the clip, so
    /// it is the zoom a `convert --clip … --max-zoom auto` run of any one region chooses, and each package stays
    /// byte for byte that run's. The choice is said as the note `max_zoom_chosen`; the region builds' converters
    /// find it made and do not guess again. Nil without `maxZoomAuto`.
    static func chooseMaxZoom(_ convert: inout ConvertOptions, diagnostics: DiagnosticSink) throws -> MaxZoomChoice? {
        guard convert.maxZoomAuto else { return nil }
        if let made = convert.maxZoomChoice { return made }
        let choice = try MaxZoomGuess(options: convert).choose()
        convert.maxZoom = choice.zoom
        convert.maxZoomChoice = choice
        diagnostics.report(
            Diagnostic(
                .note, code: "max_zoom_chosen", "max zoom \(choice.zoom) chosen for every region: \(choice.reason)"))
        return choice
    }

    private enum BuildOutcome: @unchecked Sendable {
        case built(StagedPackage, Catalog.Region, features: Int, counts: [(code: String, count: Int)])
        case empty(counts: [(code: String, count: Int)])
        case failed(String, any Error)
    }

    /// Routes every feature of every layer to the regions whose clip box its extent touches.
    static func route(_ source: RegionSource, clips: [SharedPolygons]) -> [[[Int]]] {
        let index = RegionIndex(clips.map(\.bounds))
        let layers = source.layers
        var routed = Array(repeating: Array(repeating: [Int](), count: layers.count), count: clips.count)
        for (l, layer) in layers.enumerated() {
            for (i, f) in layer.features.enumerated() {
                for r in index.regions(touching: f.bounds) { routed[r][l].append(i) }
            }
        }
        return routed
    }

    /// True when the catalog entry's file is there with its listed size and hash.
    static func intact(_ entry: Catalog.Region, folder: String) -> Bool {
        guard isPackageFileName(entry.file), let d = try? FileDigest.sha256(path: folder + "/" + entry.file) else {
            return false
        }
        return d.bytes == entry.bytes && d.sha256 == entry.sha256
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
        let parent = (folder as NSString).deletingLastPathComponent
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

/// A region that could not be built (nothing is published).
package enum RegionPackageError: KartpackError {
    case regionFailed(String, exitCode: ExitCode)

    package var exitCode: ExitCode {
        switch self {
        case .regionFailed(_, let c): c
        }
    }
    package var description: String {
        switch self {
        case .regionFailed(let m, _): "region \(m); nothing was published"
        }
    }
}
