import Foundation
import KartpackCore
import Shapefile
import ConvertEngine
import Publishing

/// The outcome of `kartpack import`: the conversion report plus what discovery and extraction noticed.
package struct ImportResult: Sendable {
    /// The conversion report (nil when nothing could be converted; then `failure` says why).
    package var report: ConvertReport?
    /// Why nothing was published, when nothing was.
    package var failure: String?
    /// True when the package was written.
    package var published: Bool = false
    /// Layers missing from the package (`--allow-partial`) or whose rejection stopped the import.
    package var missingLayers: [MissingLayer] = []
    /// Rejected inputs (errors without `--allow-partial`, warnings with it).
    package var findings: [PublishFinding] = []
    /// Extraction and discovery warnings (skipped entries, renamed layers, orphan sidecars, …).
    package var warnings: [Diagnostic]
    /// Input layers found (Shapefile sets and GeoPackage tables), with their path inside the export.
    package var found: [(relativePath: String, layer: String)]
    /// 0 when nothing was rejected, 65 when any record or file was, or another code for a run that failed.
    package var exitCode: ExitCode
}

/// One-off imports of a GIS export (a folder or a `.zip`): every Shapefile set and GeoPackage table found becomes a
/// layer. A bad file does not stop the others from being read and reported, but the package is published only when
/// every layer could be read, unless `policy` is `.skip` (`--allow-partial`). Zip files are extracted safely into a
/// private temporary folder that is removed afterwards; messages name files by their path inside the export.
package struct Importer {
    package var export: String
    /// Conversion options; `inputs` are filled from what is found.
    package var options: ConvertOptions
    package var sourceCRS: String?
    package var encoding: String?
    package var limits = ZipLimits()
    /// What a rejected set does: publish nothing (`.fail`, the default) or the other layers (`.skip`).
    package var policy: InputErrorPolicy = .fail

    /// Creates an importer.
    package init(export: String, options: ConvertOptions, sourceCRS: String?, encoding: String?) {
        self.export = export
        self.options = options
        self.sourceCRS = sourceCRS
        self.encoding = encoding
    }

    /// Extracts (for a zip), discovers and converts.
    package func run(
        diagnostics: DiagnosticSink, progress: ProgressReporter?,
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) throws -> ImportResult {
        var warnings: [Diagnostic] = []
        var extracted: ExtractedArchive?
        let root: String
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: export, isDirectory: &isDir) else {
            throw ImportError.sourceUnreadable(path: export, reason: "no such file or folder")
        }
        if isDir.boolValue {
            root = export
        } else {
            let archive = try ZipExtractor(limits: limits, temporaryDirectory: options.temporaryDirectory).extract(
                export)
            warnings += archive.warnings
            extracted = archive
            root = archive.root
        }
        defer { _ = extracted?.remove() }
        let discovery = try ShapefileDiscovery().discover(in: root)
        warnings += discovery.warnings
        for w in warnings { diagnostics.report(w) }
        var found = discovery.shapefiles.map { ($0.relativePath, $0.layerName) }
        for g in discovery.geoPackages {
            // A GeoPackage that cannot be listed is rejected by the read phase, with its reason.
            let tables = (try? InputLayer.layers(at: g.path))?.map(\.baseName) ?? [""]
            found += tables.map { ($0.isEmpty ? g.relativePath : "\(g.relativePath) table \($0)", $0) }
        }
        guard !discovery.shapefiles.isEmpty || !discovery.geoPackages.isEmpty else {
            return ImportResult(
                report: nil, failure: "nothing to write: no Shapefile or GeoPackage found in \(export)",
                warnings: warnings, found: [], exitCode: .dataError)
        }
        var o = options
        o.inputs = discovery.shapefiles.map { d in
            var i = ConvertInput(path: d.shp, layerName: d.layerName, sourceCRS: sourceCRS, encoding: encoding)
            i.files = d.files
            return i
        }
        // Each GeoPackage is one input of every feature table, each a layer named after its table.
        o.inputs += discovery.geoPackages.map { ConvertInput(path: $0.path, sourceCRS: sourceCRS, encoding: encoding) }
        // Paths inside a temporary extraction folder mean nothing afterwards: name files by their path inside the
        // export, in messages, the report and the package metadata.
        var names = Self.displayNames(root: root, shapefiles: discovery.shapefiles)
        for g in discovery.geoPackages { names.add(path: g.path, shownAs: g.relativePath) }
        do {
            let staged = StagedConversion(options: o, policy: policy, names: names)
            let result = try staged.run(diagnostics: diagnostics, progress: progress, isCancelled: isCancelled)
            // Null shapes, deleted rows and records the user's filters leave out are counted, not errors.
            let notErrors = ReaderStats.informationalSkipCodes.union(Self.userChoiceSkipCodes)
            let anyRejected = result.report.inputs.contains { i in
                i.error != nil || i.rejected.contains { $0.value > 0 && !notErrors.contains($0.key) }
            }
            let failure =
                result.published
                ? nil
                : "\(result.missingLayers.count) of \(found.count) input layers rejected; nothing was published (pass "
                    + "--allow-partial to publish the others)"
            var out = ImportResult(
                report: result.report, failure: failure, warnings: warnings, found: found,
                exitCode: anyRejected || !result.published ? .dataError : .success)
            out.published = result.published
            out.missingLayers = result.missingLayers
            out.findings = result.findings
            return out
        } catch PipelineError.nothingToWrite(let reasons, let report) {
            return ImportResult(
                report: report, failure: "nothing to write: " + reasons.joined(separator: "; "), warnings: warnings,
                found: found, exitCode: .dataError)
        }
    }

    /// Every file of the found sets named by its path relative to `root`, and the root itself removed from paths.
    package static func displayNames(root: String, shapefiles: [DiscoveredShapefile]) -> FileDisplayNames {
        var names = FileDisplayNames()
        names.add(folder: root, shownAs: "")
        let prefix = root.hasSuffix("/") ? root : root + "/"
        for d in shapefiles {
            let f = d.files
            for path in [f.shp, f.shx, f.dbf, f.prj, f.cpg, f.memo].compactMap({ $0 }) {
                names.add(path: path, shownAs: path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path)
            }
        }
        return names
    }

    /// Skip codes of records the user's own filter, clip or stylesheet leaves out.
    static let userChoiceSkipCodes: Set<ReasonCode> = [
        .filteredOut, .outsideRegion, .excludedByStyle, .outsideStyleZoomRange,
    ]
}
