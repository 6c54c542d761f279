import ConvertEngine
extension PipelineSpec {
    /// The part of the spec `Converter` already understands: inputs (path, layer, CRS, encoding), zooms, tiling
    /// parameters, limits, output and metadata. Filters, keep/rename, per-layer zooms, the stylesheet and the
    /// clip are not carried by `ConvertOptions` and must be applied by the caller.
    package var convertOptions: ConvertOptions {
        let inputs = sources.map {
            ConvertInput(path: $0.path, layerName: $0.layer, sourceCRS: $0.crs, encoding: $0.encoding)
        }
        var o = ConvertOptions(inputs: inputs, output: output.path, format: output.format)
        o.minZoom = tiles.minZoom
        o.maxZoom = tiles.maxZoom
        o.maxZoomAuto = tiles.maxZoomAuto
        o.extent = tiles.extent
        o.simplify = tiles.simplify
        o.buffer = tiles.buffer
        o.maxTileBytes = tiles.maxTileBytes
        o.maxTileFeatures = tiles.maxTileFeatures
        o.sharedBorders = tiles.sharedBorders
        o.smallFeatures = tiles.smallFeatures
        o.smallFeatureSize = tiles.smallFeatureSize
        o.thinning.mode = tiles.thinning
        o.thinning.coalesce = tiles.coalesce
        if let text = tiles.thinPriority, let (field, ascending) = ThinningOptions.priority(text) {
            o.thinning.priorityField = field
            o.thinning.priorityAscending = ascending
        }
        o.maxPoints = sources.compactMap { s in s.maxPoints.map { (layer: s.layer, limit: $0) } }
        o.name = output.name
        o.description = output.description
        o.attribution = output.attribution
        return o
    }
}
