import KartpackJSON
import PMTiles

/// The layer list of a package for the client: the `vector_layers` entries of `PackageMetadata` (PMTiles, the one
/// reader of package metadata) with Kartpack's run summary merged in. Layers the summary names but `vector_layers`
/// does not are left out: a client can only show what the tiles declare.
enum PackageMetadataParser {
    static func layers(_ metadata: JSONValue, zooms: ClosedRange<Int>) -> [PackageLayer] {
        let parsed = PackageMetadata(parsing: metadata)
        let run = Dictionary(parsed.runLayers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return parsed.layers.map { entry in
            let lo = entry.minZoom ?? zooms.lowerBound
            let hi = entry.maxZoom ?? zooms.upperBound
            var layer = PackageLayer(
                name: entry.id, fields: entry.fields.map { ($0.name, FieldKind(rawValue: $0.type) ?? .other) },
                minZoom: min(lo, hi), maxZoom: max(lo, hi))
            if let s = run[entry.id] {
                layer.featureCount = s.features
                layer.geometryFamily = s.geometry
                layer.classes = sorted(s.classes ?? [])
                layer.classesByZoom = (s.classesByZoom ?? [:]).mapValues(sorted)
            }
            return layer
        }
    }

    private static func sorted(_ counts: [PackageMetadata.ClassCount]) -> [(name: String, features: Int)] {
        counts.map { ($0.name, $0.features) }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
}
