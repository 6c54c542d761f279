import KartpackCore
import Foundation
import ConvertEngine

/// The decision rules for publishing a build, as pure functions of what the conversion did and what the previous
/// package held (tested in `PublishCheckTests`).
package enum PublishCheck {
    /// Findings for rejected inputs: errors under `.fail`, warnings under `.skip` (the layer is then listed in
    /// the package metadata as missing). `partialHint` says how to publish the other layers.
    package static func rejections(
        _ missing: [MissingLayer], policy: InputErrorPolicy,
        partialHint: String = "pass --allow-partial or set \"onInputError\": \"skip\""
    ) -> [PublishFinding] {
        missing.map { m in
            let how =
                policy == .fail
                ? "nothing is published (\(partialHint) to publish the other layers)"
                : "published without this layer; the package lists it in \(MissingLayer.metadataKey)"
            return PublishFinding(
                policy == .fail ? .error : .warning, code: m.code, layer: m.layer, file: m.file,
                message: "layer \(m.layer) was rejected: \(m.reason); \(how)")
        }
    }

    /// Findings of the record-count guards.
    ///
    /// - Parameters:
    ///   - written: features written per input layer in the new build.
    ///   - rejected: layers whose input was rejected (exempt from `maxShrink`: they are listed as missing).
    ///   - previous: the package being replaced, when there is one with a Kartpack summary.
    package static func guards(
        _ expectations: [LayerExpectation], written: [String: Int], rejected: Set<String>, previous: PackageSummary?
    ) -> [PublishFinding] {
        var out: [PublishFinding] = []
        for e in expectations {
            let n = written[e.layer] ?? 0
            let name = e.source.map { "\($0) (\(e.layer))" } ?? e.layer
            if n == 0 {
                let why =
                    rejected.contains(e.layer)
                    ? "its input was rejected" : "its file has no records, or no feature is left after filters"
                if e.requireFeatures {
                    out.append(
                        PublishFinding(
                            .error, code: .noFeatures, layer: e.layer, file: nil,
                            message:
                                "\(name) has no features (\(why)) and requireFeatures is true; nothing is published "
                                + "[no_features]"
                        ))
                } else if !rejected.contains(e.layer) {
                    out.append(
                        PublishFinding(
                            .warning, code: .noFeatures, layer: e.layer, file: nil,
                            message: "\(name) has no features (\(why)); the package has no such layer [no_features]"))
                }
            }
            if let min = e.minFeatures, n < min {
                out.append(
                    PublishFinding(
                        .error, code: .tooFewFeatures, layer: e.layer, file: nil,
                        message:
                            "\(name) has \(n) features, fewer than minFeatures \(min); nothing is published "
                            + "[too_few_features]"
                    ))
            }
            if let limit = e.maxShrink, !rejected.contains(e.layer), let before = previous?.writtenByInput[e.layer],
                before > 0, n < before
            {
                let lost = Double(before - n) / Double(before)
                if lost > limit {
                    let percent = String(format: "%.1f", lost * 100)
                    out.append(
                        PublishFinding(
                            .error, code: .layerShrank, layer: e.layer, file: nil,
                            message:
                                "\(name) has \(n) features, the previous package \(before): \(percent)% fewer, more "
                                + "than maxShrink \(limit) allows; nothing is published [layer_shrank]"
                        ))
                }
            }
        }
        return out
    }
}
