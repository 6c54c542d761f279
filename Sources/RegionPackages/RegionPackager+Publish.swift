import Foundation
import KartpackCore
import KartpackKit
import Nightly
import TileArchive
import ConvertEngine
import Publishing
import PipelineFiles

extension RegionPackager {
    /// A region package built into its staging file tonight, not yet published.
    package struct Built {
        package var entry: CatalogRegion
        package var features: Int
        /// Features written per input layer (what the guards judge).
        package var written: [String: Int]
        /// True when its bytes are last night's and last night's file and entry are kept (`keepIdentical`).
        package var kept = false
    }

    /// Each region's clip polygon (`Regions.clipRegion`, in parallel): the regions that have one, their clips, and
    /// a `region_no_area` finding for each that has none (nothing left after MakeValid or the buffer).
    static func clipRegions(
        _ all: [RegionRecord], buffer: Double, path: String, threads: Int, progress: RegionProgress
    ) -> (regions: [RegionRecord], clips: [SharedPolygons], problems: [PublishFinding]) {
        let results = parallelRegions(count: all.count, threads: threads) { i in
            defer { progress.step("preparing regions", total: all.count) }
            return Result { try Regions.clipRegion(polygons: all[i].polygons, buffer: buffer, what: path) }
        }
        let file = (path as NSString).lastPathComponent
        var regions: [RegionRecord] = []
        var clips: [SharedPolygons] = []
        var problems: [PublishFinding] = []
        for (i, r) in results.enumerated() {
            switch r {
            case .success(let clip):
                regions.append(all[i])
                clips.append(clip)
            case .failure(let error):
                let why = (error as? any KartpackError)?.description ?? "\(error)"
                let problem = RegionShapeProblem(code: .regionNoArea, reason: "it has no usable polygon: \(why)")
                problems.append(problem.finding(file: file, record: all[i].record, id: all[i].id))
            }
        }
        return (regions, clips, problems)
    }

    /// The run report's inputs: per input, its records and what was rejected before any region, including the
    /// features whose extent touches no region (`outside_regions`).
    static func inputReports(_ source: RegionSource, outside: [Int]) -> [ConvertReport.Input] {
        var out: [ConvertReport.Input] = []
        var l = 0
        for e in source.entries {
            switch e {
            case .rejected(let r): out.append(r)
            case .layer(let layer):
                var r = layer.layer.finish()
                r.rejected.add(layer.failures)
                if outside[l] > 0 { r.rejected[.outsideRegions, default: 0] += outside[l] }
                l += 1
                out.append(r)
            }
        }
        return out
    }

    /// The inputs the read phase rejected, as missing layers.
    package static func missingLayers(_ source: RegionSource) -> [MissingLayer] {
        source.entries.compactMap { e in
            guard case .rejected(let i) = e, let error = i.error else { return nil }
            return MissingLayer(layer: i.layer, file: i.path, code: i.errorCode ?? .fileRejected, reason: error)
        }
    }

    /// True when a finding refuses the night.
    static func refuses(_ findings: [PublishFinding]) -> Bool { findings.contains { $0.severity == .error } }

    /// The regions of a refused night: none is published.
    static func refusedRegions(_ regions: [RegionRecord], fingerprints: [String]) -> [RegionPackageReport.Region] {
        regions.enumerated().map { i, r in
            RegionPackageReport.Region(
                id: r.id, name: r.name, status: "refused", file: nil, features: 0, bytes: 0,
                fingerprint: fingerprints[i])
        }
    }

    /// The report with its findings (errors first, each group in the order found), time and exit code: 65 when
    /// the night was refused or a source was rejected (even when published under `"onInputError": "skip"`).
    package static func finished(
        _ report: RegionPackageReport, findings: [PublishFinding], started: Date
    ) -> RegionPackageReport {
        var r = report
        r.findings = findings.filter { $0.severity == .error } + findings.filter { $0.severity != .error }
        r.seconds = (Date().timeIntervalSince(started) * 1000).rounded() / 1000
        let failed = refuses(findings) || r.inputs.contains { $0.error != nil }
        r.exitCode = failed ? ExitCode.dataError.rawValue : 0
        return r
    }

    /// The guards of every built region (`maxShrink` against its previous package) and of the whole catalog
    /// (`CatalogCheck`). The counts of up-to-date regions and of the previous catalog are read from the packages'
    /// metadata (`PackageSummary`), only when some source has a guard.
    func guardFindings(
        regions: [RegionRecord], reuse: [CatalogRegion?], staged: [Int: Built], previous: Catalog?,
        rejected: Set<String>
    ) -> [PublishFinding] {
        let expectations = options.expectations
        guard CatalogCheck.hasGuards(expectations) else { return [] }
        let folder = options.outputFolder
        let shrinks = expectations.contains { $0.maxShrink != nil }
        let old = Dictionary((previous?.regions ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        func summary(_ entry: CatalogRegion) -> PackageSummary? {
            Self.isPackageFileName(entry.file) ? PackageSummary.read(path: folder + "/" + entry.file) : nil
        }
        var out: [PublishFinding] = []
        var total: [String: Int] = [:]
        for i in regions.indices {
            if let entry = reuse[i] {
                total.add(summary(entry)?.writtenByInput ?? [:])
            } else if let b = staged[i] {
                total.add(b.written)
                if shrinks, let before = old[regions[i].id] {
                    out += CatalogCheck.regionGuards(
                        expectations, region: regions[i].id, written: b.written, rejected: rejected,
                        previous: summary(before))
                }
            }
        }
        var before: [String: Int]?
        if shrinks, let previous {
            var sum: [String: Int] = [:]
            for entry in previous.regions { sum.add(summary(entry)?.writtenByInput ?? [:]) }
            before = sum
        }
        return out
            + CatalogCheck.catalogGuards(expectations, written: total, rejected: rejected, previous: before)
    }

    /// Publishes `generation` (tonight's built packages are in it already) with `entries` as its catalog: the
    /// up-to-date packages are hard-linked into it from last night's generation folder `published`, the catalog is
    /// written and signed into it, and `PackageGenerations.publish` switches the folder to it in one atomic step. A
    /// signing failure (a wrong password, an unusable key) throws before anything in the folder changed; the staged
    /// generation is discarded. Without a key, the signature of an earlier night is no longer published
    /// (`signature_removed`). Returns the size of the catalog and its signature.
    package func publish(
        _ entries: [CatalogRegion], generation: StagedGeneration, reused: [CatalogRegion], from published: String,
        previous: Catalog?, created: Date, diagnostics: DiagnosticSink
    ) throws -> UInt64 {
        let folder = options.outputFolder
        for entry in reused {
            try Self.linkOrCopy(published + "/" + entry.file, to: generation.path + "/" + entry.file)
        }
        let catalog = Catalog(
            created: created, sequence: generation.sequence,
            kartpackVersion: Kartpack.version, regions: entries, folder: URL(fileURLWithPath: generation.path))
        let catalogPath = generation.path + "/" + Catalog.fileName
        let file = try AtomicFile(targetPath: catalogPath, overwrite: true)
        let text = Array(catalog.text.utf8)
        do {
            try file.write(text)
            try file.publish()
        } catch {
            file.discard()
            throw error
        }
        if let key = options.signKey {
            try CatalogSigner().sign(
                file: catalogPath, signature: generation.path + "/" + Catalog.signatureName, name: Catalog.fileName,
                secretKey: key, passwordFile: options.signPasswordFile, timestamp: Int(created.timeIntervalSince1970))
        }
        let signatureBytes = Self.regularFileSize(generation.path + "/" + Catalog.signatureName) ?? 0
        let wasSigned = FileManager.default.fileExists(atPath: folder + "/" + Catalog.signatureName)
        var names = [Catalog.fileName] + entries.map(\.file)
        if options.signKey != nil { names.append(Catalog.signatureName) }
        let previousNames = [Catalog.fileName, Catalog.signatureName] + (previous?.regions.map(\.file) ?? [])
        try PackageGenerations(folder: folder).publish(generation, names: names, previousNames: previousNames)
        if options.signKey == nil && wasSigned {
            // A signature of an older catalog would make every verify fail: it goes with the catalog it signed.
            diagnostics.report(
                Diagnostic(
                    .warning, code: .signatureRemoved,
                    "\(folder)/\(Catalog.signatureName) signed the previous catalog and was removed; "
                        + "pass --sign KEY to sign this one"))
        }
        return UInt64(text.count) + signatureBytes
    }

    /// Puts last night's file `source` (a link into the published generation, or a regular file in a folder
    /// written before generations) into tonight's generation at `target`: a hard link (no copy, same bytes), or a
    /// copy where the file system has none.
    static func linkOrCopy(_ source: String, to target: String) throws {
        if linkat(AT_FDCWD, source, AT_FDCWD, target, AT_SYMLINK_FOLLOW) == 0 { return }
        let e = errno
        guard e == EPERM || e == ENOTSUP || e == EMLINK || e == EXDEV else {
            throw PublishError.cannotStage(
                path: source, reason: "cannot link it into tonight's generation: \(String(cString: strerror(e)))")
        }
        do {
            try FileManager.default.copyItem(atPath: source, toPath: target)
        } catch {
            throw PublishError.cannotStage(path: source, reason: "cannot copy it into tonight's generation: \(error)")
        }
    }

    /// The size of a regular file (not following a final symbolic link), or nil.
    static func regularFileSize(_ path: String) -> UInt64? {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return UInt64(st.st_size)
    }

    /// Removes, whatever their age, what killed runs left in this folder: staging generations and temporary links
    /// (`PackageGenerations.sweep`), and the temporary files of its managed files (the catalog, its signature, any
    /// `<id>.pmtiles`/`<id>.mbtiles`) whose writer is gone. Call it holding the
    /// folder's `RunLock`: every run that writes them holds it, so they can only be a killed run's.
    static func sweepLeftovers(in folder: String) throws {
        var targets = Set<String>()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            var stem = name
            while true {
                if let inner = TemporaryName.parse(stem) {
                    stem = inner.stem
                } else if stem.hasSuffix(".data"), let inner = TemporaryName.parse(String(stem.dropLast(5))) {
                    stem = inner.stem
                } else {
                    break
                }
            }
            guard stem != name else { continue }
            if stem == Catalog.fileName || stem == Catalog.signatureName || isPackageFileName(stem) {
                targets.insert(stem)
            }
        }
        PackageGenerations(folder: folder).sweep()
        guard !targets.isEmpty else { return }
        try StaleTemporaryFiles.removeAbandoned(in: folder, targets: targets.sorted())
    }
}
