import KartpackJSON
import TileArchive
import ConvertEngine

/// What a published Kartpack package says about its own contents: features per layer, missing layers and the
/// fingerprint, read from its metadata with `openTileArchive`. The record-count guard compares a new build
/// against it.
package struct PackageSummary: Sendable, Equatable {
    /// Features written per input set (`kartpack` metadata, `inputs.<layer>.written`).
    package var writtenByInput: [String: Int]
    /// Features per output layer (`kartpack` metadata, `layers.<layer>.features`).
    package var featuresByLayer: [String: Int]
    /// Layers the package lacks (`kartpack_missing_layers`).
    package var missingLayers: [MissingLayer]
    /// The pipeline fingerprint (`kartpack_fingerprint`), when it has one.
    package var fingerprint: String?

    /// The metadata key holding the fingerprint of the inputs a package was built from (`run`).
    package static let fingerprintKey = "kartpack_fingerprint"

    /// Reads the summary of the package at `path`; nil when there is no package there or it cannot be read or
    /// has no Kartpack summary (then no guard can compare against it).
    package static func read(path: String) -> PackageSummary? {
        guard let archive = try? openTileArchive(path: path), let metadata = try? archive.metadata() else { return nil }
        return from(metadata: metadata)
    }

    /// The summary in a package's metadata object.
    package static func from(metadata: JSONValue) -> PackageSummary? {
        guard let text = metadata["kartpack"]?.stringValue, let run = try? JSONParser.parse(text) else { return nil }
        func counts(_ section: String, _ key: String) -> [String: Int] {
            var out: [String: Int] = [:]
            for (layer, v) in run[section]?.objectMembers ?? [] {
                if let n = v[key]?.intValue { out[layer] = Int(n) }
            }
            return out
        }
        let missing = metadata[MissingLayer.metadataKey]?.stringValue.flatMap { MissingLayer.parse(metadataText: $0) }
        return PackageSummary(
            writtenByInput: counts("inputs", "written"), featuresByLayer: counts("layers", "features"),
            missingLayers: missing ?? [], fingerprint: metadata[fingerprintKey]?.stringValue)
    }

    /// Creates a value from each of its stored properties.
    package init(
        writtenByInput: [String: Int],
        featuresByLayer: [String: Int],
        missingLayers: [MissingLayer],
        fingerprint: String? = nil
    ) {
        self.writtenByInput = writtenByInput
        self.featuresByLayer = featuresByLayer
        self.missingLayers = missingLayers
        self.fingerprint = fingerprint
    }
}
