import Foundation
import KartpackCore
import ConvertEngine

extension LayerContext {
    /// The same layer, clipped to `region`.
    package func clipped(to region: SharedPolygons) -> LayerContext {
        LayerContext(
            index: index, name: name, crs: crs, zooms: zooms, matcher: matcher, clientCascade: clientCascade,
            ancestors: ancestors, clip: region)
    }
}

/// One region's package from a read-once source: the routed features through stages 4–6 of the feature chain
/// (clip at full precision, classify, tile) on the calling thread, then the converter's order, encode and
/// publish phases. The result is the package a `convert --clip` run of the same region writes, byte for byte:
/// features not routed here are counted as `outside_region`, as the clip stage of such a run rejects them.
package struct RegionBuild {
    /// The conversion of this region (its output, name and zooms; `threads` is ignored: one region, one thread).
    package var options: ConvertOptions
    package var clip: SharedPolygons
    package var source: RegionSource
    /// Per opened layer of `source` (in order), the indexes of the features routed to this region, ascending.
    var routed: [[Int]]
    /// The output layers in their fixed order (`LayerRegistry.outputNames` of `options`, the same for every region).
    var outputNames: [String]

    /// Builds the package at `options.output`.
    package func run(diagnostics: DiagnosticSink, isCancelled: @escaping @Sendable () -> Bool) throws -> ConvertReport {
        var o = options
        o.threads = 1
        let converter = Converter(options: o, diagnostics: diagnostics, isCancelled: isCancelled)
        return try converter.run { try tiledLayers(diagnostics: diagnostics, isCancelled: isCancelled) }
    }

    /// The feature phase's hand-off for this region.
    func tiledLayers(diagnostics: DiagnosticSink, isCancelled: () -> Bool) throws -> TiledLayers {
        let chain = FeatureChain(parameters: TilingParameters(options: options))
        var tiled = TiledLayers(options: options)
        tiled.number(outputNames)
        var layerIndex = 0
        for entry in source.entries {
            switch entry {
            case .rejected(let report):
                tiled.inputs.append(report)
            case .layer(let pre):
                let context = pre.layer.context.clipped(to: clip)
                var intake = LayerIntake(layer: pre.layer, diagnostics: diagnostics, clipped: true)
                let indexes = routed[layerIndex]
                for (n, i) in indexes.enumerated() {
                    if n % 256 == 0, isCancelled() { throw PipelineError.interrupted(signal: 0) }
                    let f = pre.features[i]
                    let job = FeatureJob(
                        context: context, feature: f.job.feature, id: f.job.id, content: f.job.content)
                    intake.add(job, chain.process(job, projected: f.repairs), to: &tiled)
                    try tiled.spillIfOverBudget()
                }
                var report = intake.finish()
                report.rejected.add(pre.failures)
                let outside = pre.features.count - indexes.count
                if outside > 0 { report.rejected[.outsideRegion, default: 0] += outside }
                tiled.inputs.append(report)
                layerIndex += 1
            }
        }
        return tiled
    }
}
