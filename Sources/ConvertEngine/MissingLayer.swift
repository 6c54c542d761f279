import KartpackCore
import KartpackJSON

/// A layer left out of a package because its input was rejected, published only under the partial policy
/// (`--allow-partial`, pipeline `"onInputError": "skip"`). Clients read the list from the package metadata key
/// `kartpack_missing_layers` to warn that the package is incomplete (docs/convert.md).
package struct MissingLayer: Codable, Sendable, Hashable {
    /// The layer the input would have given (the pipeline's `layer`, `--layer`, or the file's base name).
    package var layer: String
    /// The input file as the user named it (relative to the pipeline or export folder; inside a zip, the path
    /// inside the zip).
    package var file: String
    /// The rejection's reason code (`bad_dbf_header`, `missing_prj`, …; docs/diagnostics.md).
    package var code: ReasonCode
    /// The rejection message.
    package var reason: String

    /// Creates an entry.
    package init(layer: String, file: String, code: ReasonCode, reason: String) {
        self.layer = layer
        self.file = file
        self.code = code
        self.reason = reason
    }

    /// The metadata key: a JSON array (as a string, like every Kartpack metadata value) of
    /// `{"code", "file", "layer", "reason"}` objects in input order. Absent when no layer is missing.
    package static let metadataKey = "kartpack_missing_layers"

    /// The metadata value for `layers`.
    package static func metadataText(_ layers: [MissingLayer]) -> String {
        JSONValue.array(
            layers.map { m in
                .object([
                    ("code", .string(m.code.rawValue)), ("file", .string(m.file)), ("layer", .string(m.layer)),
                    ("reason", .string(m.reason)),
                ])
            }
        ).text(.canonical)
    }

    /// Reads a metadata value written by `metadataText`; nil when it is not such a list.
    package static func parse(metadataText text: String) -> [MissingLayer]? {
        guard let list = (try? JSONParser.parse(text))?.arrayValue else { return nil }
        var out: [MissingLayer] = []
        for v in list {
            guard let layer = v["layer"]?.stringValue, let file = v["file"]?.stringValue else { return nil }
            out.append(
                MissingLayer(
                    layer: layer, file: file,
                    code: v["code"]?.stringValue.flatMap(ReasonCode.init(rawValue:)) ?? .fileRejected,
                    reason: v["reason"]?.stringValue ?? ""))
        }
        return out
    }
}
