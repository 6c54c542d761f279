import Foundation
import Import
import KartpackCore
import Styling
import Shapefile

/// The outcome of `kartpack import`: the conversion report plus what discovery and extraction noticed.
package struct ImportResult: Sendable {
    /// The conversion report (nil when nothing could be converted; then `failure` says why).
    package var report: ConvertReport?
    /// Why nothing was published, when nothing was.
    package var failure: String?
    /// Extraction and discovery warnings (skipped entries, renamed layers, orphan sidecars, …).
    package var warnings: [Diagnostic]
    /// Shapefiles found, with their path inside the export.
    package var found: [(relativePath: String, layer: String)]
    /// 0 when nothing was rejected, 65 when any record or file was, or another code for a run that failed.
    package var exitCode: ExitCode
}

/// One-off imports of a GIS export (a folder or a `.zip`): every Shapefile set found becomes a layer; a bad file
/// does not stop the others. Zip files are extracted safely into a private temporary folder that is removed
/// afterwards.
package struct Importer {
    package var export: String
    /// Conversion options; `inputs` are filled from what is found.
    package var options: ConvertOptions
    package var sourceCRS: String?
    package var encoding: String?
    package var limits = ZipLimits()

    /// Creates an importer.
    package init(export: String, options: ConvertOptions, sourceCRS: String?, encoding: String?) {
        self.export = export
        self.options = options
        self.sourceCRS = sourceCRS
        self.encoding = encoding
    }

    /// Extracts (for a zip), discovers and converts.
    package func run(diagnostics: DiagnosticSink, progress: ProgressReporter?,
                    isCancelled: @escaping @Sendable () -> Bool = { false }) throws -> ImportResult {
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
            let archive = try ZipExtractor(limits: limits, temporaryDirectory: options.temporaryDirectory).extract(export)
            warnings += archive.warnings
            extracted = archive
            root = archive.root
        }
        defer { _ = extracted?.remove() }
        let discovery = try ShapefileDiscovery().discover(in: root)
        warnings += discovery.warnings
        for w in warnings { diagnostics.report(w) }
        let found = discovery.shapefiles.map { ($0.relativePath, $0.layerName) }
        guard !discovery.shapefiles.isEmpty else {
            return ImportResult(report: nil, failure: "no Shapefile found in \(export)", warnings: warnings,
                                found: [], exitCode: .dataError)
        }
        var o = options
        o.inputs = discovery.shapefiles.map { d in
            var i = ConvertInput(path: d.shp, layerName: d.layerName, sourceCRS: sourceCRS, encoding: encoding)
            i.files = d.files
            return i
        }
        do {
            var report = try Converter(options: o, diagnostics: diagnostics, progress: progress, isCancelled: isCancelled).run()
            // Paths inside a temporary extraction folder mean nothing afterwards: show them relative to the export.
            for (k, d) in discovery.shapefiles.enumerated() where k < report.inputs.count {
                report.inputs[k].path = d.relativePath
            }
            // Null shapes, deleted rows and records the user's filters leave out are counted, not errors.
            let notErrors = ShapefileStats.informationalSkipCodes.union(Self.userChoiceSkipCodes)
            let anyRejected = report.inputs.contains { i in
                i.error != nil || i.rejected.contains { $0.value > 0 && !notErrors.contains($0.key) }
            }
            return ImportResult(report: report, failure: nil, warnings: warnings, found: found,
                                exitCode: anyRejected ? .dataError : .success)
        } catch PipelineError.nothingToWrite(let reasons, var report) {
            for (k, d) in discovery.shapefiles.enumerated() where k < report.inputs.count {
                report.inputs[k].path = d.relativePath
            }
            return ImportResult(report: report, failure: reasons.joined(separator: "; "), warnings: warnings,
                                found: found, exitCode: .dataError)
        }
    }

    /// Skip codes of records the user's own filter, clip or stylesheet leaves out.
    static let userChoiceSkipCodes: Set<String> = [
        "filtered_out", "outside_region", "excluded_by_style", "outside_style_zoom_range",
    ]
}
