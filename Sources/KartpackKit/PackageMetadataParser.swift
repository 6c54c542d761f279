import KartpackJSON

/// Reads the layer list out of a package's metadata JSON: TileJSON `vector_layers` plus kartpack's run summary
/// (the `kartpack` member, a JSON string). Unknown or malformed members are ignored, never trusted for sizes.
enum PackageMetadataParser {
    static func layers(_ metadata: JSONValue, zooms: ClosedRange<Int>) -> [PackageLayer] {
        var summary: JSONValue?
        if let text = metadata["kartpack"]?.stringValue {
            summary = try? JSONParser.parse(text, options: .archiveMetadata)
        }
        let summaryLayers = summary?["layers"]
        var out: [PackageLayer] = []
        var seen = Set<String>()
        for entry in metadata["vector_layers"]?.arrayValue ?? [] {
            guard let name = entry["id"]?.stringValue, seen.insert(name).inserted else { continue }
            let fields: [(name: String, kind: FieldKind)] = (entry["fields"]?.objectMembers ?? []).map {
                ($0.key, FieldKind(rawValue: $0.value.stringValue ?? "") ?? .other)
            }
            let lo = zoom(entry["minzoom"]) ?? zooms.lowerBound
            let hi = zoom(entry["maxzoom"]) ?? zooms.upperBound
            var layer = PackageLayer(name: name, fields: fields, minZoom: min(lo, hi), maxZoom: max(lo, hi))
            if let s = summaryLayers?[name] {
                layer.featureCount = s["features"]?.intValue.flatMap { Int(exactly: $0) }
                layer.geometryFamily = s["geometry"]?.stringValue
                layer.classes = counts(s["classes"])
                for (key, value) in s["classes_by_zoom"]?.objectMembers ?? [] {
                    guard let z = Int(key), (0...31).contains(z) else { continue }
                    layer.classesByZoom[z] = counts(value)
                }
            }
            out.append(layer)
        }
        return out
    }

    private static func zoom(_ v: JSONValue?) -> Int? {
        guard let i = v?.intValue ?? v?.doubleValue.flatMap({ Int64(exactly: $0) }), (0...31).contains(i) else {
            return nil
        }
        return Int(i)
    }

    private static func counts(_ v: JSONValue?) -> [(name: String, features: Int)] {
        let members = (v?.objectMembers ?? []).compactMap { m -> (name: String, features: Int)? in
            guard let n = m.value.intValue, let c = Int(exactly: n) else { return nil }
            return (m.key, c)
        }
        return members.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
}
