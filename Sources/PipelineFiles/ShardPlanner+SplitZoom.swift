import ConvertEngine
import KartpackCore
import Styling

extension ShardPlanner {
    /// How far under the tile limits the densest tile's estimate must stay at every zoom the plan splits without
    /// being told (`--split-zoom`): half of each limit, on top of bounds that already err high.
    static let splitMargin = 0.5

    /// The split zoom the plan takes when `--split-zoom` is not given: the lowest zoom from which up the estimate
    /// (`ShardWorkEstimate.lowestUnthinnedZoom`) shows no tile near the tile limits, and why; nil (the max zoom)
    /// without an estimate, when even the max zoom's densest tile is near them, or when a `max-points` limit
    /// (an option or the stylesheet's) thins points at every zoom below the max. A zoom the estimate misjudges
    /// is still refused by the range shard that finds it thinned (`ShardError.thinnedAtSplitZoom`).
    func chosenSplitZoom(_ work: ShardWorkEstimate?) -> (zoom: Int, note: String)? {
        guard let work, options.maxPoints.isEmpty, !(options.style.map(Self.limitsPoints) ?? false),
            let z = work.lowestUnthinnedZoom(
                maxFeatures: options.maxTileFeatures, maxBytes: options.maxTileBytes, margin: Self.splitMargin),
            z < options.maxZoom
        else { return nil }
        let densest = work.densest()
        func at(_ zoom: Int) -> String {
            guard let d = densest.first(where: { $0.zoom == zoom }) else { return "" }
            return "zoom \(zoom): at most \(d.features) features, \(d.bytes) bytes"
        }
        var note = "chosen from the estimate of the densest tile (\(at(z))"
        if z > work.zooms.lowerBound { note += "; \(at(z - 1))" }
        note += "; limits \(options.maxTileFeatures) features, \(options.maxTileBytes) bytes, margin 1/2)"
        return (z, note)
    }

    /// True when a stylesheet sets `max-points`.
    static func limitsPoints(_ sheet: Stylesheet) -> Bool {
        sheet.rules.contains { r in r.declarations.contains { $0.property == .maxPoints } }
    }
}
