import ConvertEngine
import Foundation
import KartpackCore
import Nightly
import PipelineFiles
import Publishing

extension RegionPackager {
    /// What a night knows before it builds a region: the regions that can be built, each one's fingerprint, the
    /// inputs as the report names them, and, when it reads the sources itself, the read-once source and each
    /// region's clip polygon and routed features. A merge of shard parts (`mergeInputs`) has no source: it builds
    /// nothing.
    struct NightInputs {
        var regions: [RegionRecord]
        var clips: [SharedPolygons] = []
        /// `region_no_area` findings (regions with no clip polygon) and the rejected sources' findings.
        var findings: [PublishFinding] = []
        /// The ids of regions that cannot be built (not removals).
        var unbuildable: [String] = []
        /// The convert options every region is built with: the chosen max zoom, the missing layers' metadata.
        var convert: ConvertOptions
        var chosen: MaxZoomChoice?
        var source: RegionSource?
        /// Per region, per opened layer, the features routed to it.
        var routed: [[[Int]]] = []
        var missing: [MissingLayer] = []
        var fingerprints: [String] = []
        var inputs: [ConvertReport.Input] = []

        /// The features routed to region `i` (0 in a merge: it routes nothing).
        func features(_ i: Int) -> Int { routed.isEmpty ? 0 : routed[i].reduce(0) { $0 + $1.count } }
    }

    /// Clips the regions, reads and routes the sources once and fingerprints every region (a one-machine night,
    /// or a shard's regions).
    func readInputs(
        _ all: [RegionRecord], diagnostics: DiagnosticSink, progress: ProgressReporter?,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws -> NightInputs {
        let shared = RegionProgress(progress)
        let (regions, clips, clipProblems) = Self.clipRegions(
            all, buffer: options.buffer, path: options.regionsPath, threads: options.threads, progress: shared)
        shared.finish()
        var convert = options.convert
        convert.clip = nil
        let chosen = try Self.chooseMaxZoom(&convert, diagnostics: diagnostics)
        let source = try RegionSource.read(
            options: convert, diagnostics: diagnostics, progress: progress, isCancelled: isCancelled,
            recordBoxes: Self.shardRecordBoxes(options, clips: clips))
        let routing = RegionRouting.route(source, clips: clips, threads: options.threads)
        let routed = routing.routed
        let missing = Self.missingLayers(source)
        let settings = self.settings(&convert, missing: missing)
        let fingerprints = parallelRegions(count: regions.count, threads: options.threads) { i in
            defer { shared.step("fingerprinting regions", total: regions.count) }
            return RegionFingerprint.region(
                regions[i], routed: routed[i], ancestors: routing.ancestors[i], source: source, settings: settings)
        }
        shared.finish()
        var night = NightInputs(regions: regions, convert: convert)
        night.clips = clips
        let rejections = PublishCheck.rejections(
            missing, policy: options.policy, partialHint: CatalogCheck.partialHint)
        night.findings = clipProblems + rejections
        night.unbuildable = clipProblems.compactMap(\.region)
        (night.chosen, night.source, night.routed, night.missing) = (chosen, source, routed, missing)
        night.fingerprints = fingerprints
        night.inputs = Self.inputReports(source, outside: routing.outside)
        return night
    }

    /// The settings every region's fingerprint starts with; with missing layers (published only under
    /// `"onInputError": "skip"`), their list also goes into `convert`'s metadata: each package lists the layers
    /// it lacks.
    func settings(_ convert: inout ConvertOptions, missing: [MissingLayer]) -> [String] {
        var settings =
            options.settings + [
                "buffer \(options.buffer)", "format \(options.fileExtension)",
                "zooms \(convert.minZoom)-\(convert.maxZoom)",
                "extent \(convert.extent) simplify \(convert.simplify) tilebuffer \(convert.buffer)",
                "limits \(convert.maxTileBytes) \(convert.maxTileFeatures)", "idField \(convert.idField ?? "")",
                "description \(convert.description ?? "") attribution \(convert.attribution ?? "")",
            ]
        if !missing.isEmpty {
            let text = MissingLayer.metadataText(missing)
            convert.extraMetadata.append((MissingLayer.metadataKey, text))
            settings.append("missing " + text)
        }
        return settings
    }
}
