import ConvertEngine
import Foundation
import KartpackCore
import Nightly
import PipelineFiles
import Publishing

extension RegionPackager {
    /// A merge's night inputs, from the shards' parts instead of the sources: each region's fingerprint is the one
    /// its shard computed (`RegionPartSummary`), and the inputs, their rejections and the chosen max zoom are the
    /// shards' (the command checked that every part agrees: `PackagePartSet`). The merge reads no source: it
    /// builds nothing, and its shards checked the sources against the plan. A region of the regions file that no
    /// part fingerprinted, or a region of the plan the file no longer holds (it changed since the plan), refuses
    /// the merge (65).
    func mergeInputs(_ regions: [RegionRecord], parts: [String: Part], diagnostics: DiagnosticSink) throws
        -> NightInputs
    {
        let listed = Set(regions.map(\.id))
        if let gone = parts.keys.filter({ !listed.contains($0) }).min() {
            throw ShardError.partsDoNotFit(
                reason: "region \(gone) of the plan is not in \(options.regionsPath) (changed since the plan?)")
        }
        var fingerprints: [String] = []
        for r in regions {
            guard let f = parts[r.id]?.summary.fingerprints[r.id] else {
                throw ShardError.partsDoNotFit(
                    reason:
                        "no shard of the plan holds region \(r.id) of \(options.regionsPath) (changed since the plan?)")
            }
            fingerprints.append(f)
        }
        // Every part's summary names the same inputs and zoom; take the first shard's.
        let summary = parts.values.min { $0.folder < $1.folder }?.summary
        var night = NightInputs(regions: regions, convert: options.convert)
        night.convert.clip = nil
        if let chosen = summary?.maxZoomChosen {
            night.convert.maxZoom = chosen.zoom
            night.convert.maxZoomChoice = chosen
            night.chosen = chosen
            Self.say(chosen, diagnostics: diagnostics)
        }
        night.inputs = summary?.inputs ?? []
        night.missing = night.inputs.compactMap { i in
            guard let error = i.error else { return nil }
            return MissingLayer(layer: i.layer, file: i.path, code: i.errorCode ?? .fileRejected, reason: error)
        }
        _ = settings(&night.convert, missing: night.missing)
        night.findings = PublishCheck.rejections(
            night.missing, policy: options.policy, partialHint: CatalogCheck.partialHint)
        night.fingerprints = fingerprints
        return night
    }
}
