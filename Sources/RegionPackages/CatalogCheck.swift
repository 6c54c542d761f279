import KartpackCore
import Publishing
import PipelineFiles
/// The rules that make a region catalog complete or not published, as pure functions of the night's build and
/// the previous catalog. They reuse `run`'s rules (`PublishCheck`): a rejected source and a broken guard stop the
/// night exactly as they stop a `run` package, and a region never leaves the catalog without the user's word.
/// Findings with severity `error` refuse the night: nothing is published, the previous catalog and every package
/// stay byte-identical, exit 65 (docs/regions.md, "When a night is refused").
package enum CatalogCheck {
    /// The hint a rejected source's message gives: `package` has no `--allow-partial`.
    package static let partialHint = "set \"onInputError\": \"skip\" in the pipeline"

    /// Why a region of the previous catalog is not in tonight's: it left the region file (or the filter), or it
    /// holds no feature tonight.
    package enum Leaving: Sendable, Hashable {
        case gone(regionsFile: String)
        case empty
    }

    /// Findings for regions of the previous catalog that tonight's leaves out, in id order: errors unless
    /// removals are allowed (`--allow-removals`, `"allowRemovals": true`), then nothing (they are listed as
    /// `removed`).
    static func removals(_ leaving: [(id: String, why: Leaving)], allowed: Bool) -> [PublishFinding] {
        guard !allowed else { return [] }
        return leaving.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }.map { id, why in
            let what =
                switch why {
                case .gone(let file): "is not in \(file) tonight (deleted, or left out by the filter)"
                case .empty: "holds no feature tonight"
                }
            return PublishFinding(
                .error, code: .regionRemoved, layer: "", file: nil,
                message:
                    "region \(RegionSetError.quoted(id)) is in the previous catalog but \(what); nothing is published "
                    + "(pass --allow-removals or set \"allowRemovals\": true in the regions section to remove it) "
                    + "[region_removed]",
                region: id)
        }
    }

    /// True when some source has a record-count guard (then the packages' counts are read).
    static func hasGuards(_ expectations: [LayerExpectation]) -> Bool {
        expectations.contains { $0.minFeatures != nil || $0.maxShrink != nil || $0.requireFeatures }
    }

    /// The guards of one region's package: `maxShrink` against the region's previous package (the region's
    /// counts are what `minFeatures` and `requireFeatures` would judge too strictly: they hold for the whole
    /// catalog, `catalogGuards`). Errors only, each naming the region.
    static func regionGuards(
        _ expectations: [LayerExpectation], region: String, written: [String: Int], rejected: Set<String>,
        previous: PackageSummary?
    ) -> [PublishFinding] {
        let shrinkOnly = expectations.map { e in
            LayerExpectation(layer: e.layer, source: e.source, maxShrink: e.maxShrink)
        }
        return PublishCheck.guards(shrinkOnly, written: written, rejected: rejected, previous: previous)
            .filter { $0.severity == .error }
            .map { f in
                var f = f
                f.region = region
                f.message = "region \(RegionSetError.quoted(region)): " + f.message
                return f
            }
    }

    /// The guards of the whole catalog: every source's `minFeatures`, `requireFeatures` and `maxShrink` against
    /// the sum of its features over the region packages (a feature in two regions counts twice, every night
    /// alike), and the previous catalog's sum.
    static func catalogGuards(
        _ expectations: [LayerExpectation], written: [String: Int], rejected: Set<String>, previous: [String: Int]?
    ) -> [PublishFinding] {
        let summary = previous.map {
            PackageSummary(writtenByInput: $0, featuresByLayer: [:], missingLayers: [], fingerprint: nil)
        }
        return PublishCheck.guards(expectations, written: written, rejected: rejected, previous: summary).map { f in
            var f = f
            f.message = "catalog: " + f.message.replacingOccurrences(of: "previous package", with: "previous catalog")
            return f
        }
    }
}
