import KartpackJSON
import TileArchive

/// `ArchiveMetadata` as a shard part holds it: every field, so the merge hands the archive writer exactly the
/// metadata the one-machine build does. Doubles (bounds, center) are kept as their IEEE bit patterns (hex), so they
/// come back bit for bit.
extension ArchiveMetadata {
    package var shardJSON: JSONValue {
        func number(_ d: Double) -> JSONValue { .string(String(d.bitPattern, radix: 16)) }
        func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        func zoom(_ z: Int?) -> JSONValue { z.map { .int(Int64($0)) } ?? .null }
        let layers = vectorLayers.map { l -> JSONValue in
            .object([
                ("id", .string(l.id)),
                (
                    "fields",
                    .array(l.fields.map { f -> JSONValue in .array([.string(f.name), .string(f.type.rawValue)]) })
                ),
                ("minZoom", zoom(l.minZoom)), ("maxZoom", zoom(l.maxZoom)), ("description", optional(l.description)),
            ])
        }
        var boundsJSON = JSONValue.null
        if let b = bounds { boundsJSON = .array([number(b.west), number(b.south), number(b.east), number(b.north)]) }
        var centerJSON = JSONValue.null
        if let c = center { centerJSON = .array([number(c.longitude), number(c.latitude), .int(Int64(c.zoom))]) }
        return .object([
            ("name", .string(name)), ("description", optional(description)), ("attribution", optional(attribution)),
            ("version", optional(version)), ("type", .string(type)),
            ("bounds", boundsJSON), ("center", centerJSON),
            ("minZoom", zoom(minZoom)), ("maxZoom", zoom(maxZoom)), ("vectorLayers", .array(layers)),
            ("generator", optional(generator)), ("extra", .array(extra.map { .array([.string($0.key), $0.value]) })),
        ])
    }

    /// The metadata a part holds (`shardJSON`), or nil when the JSON is not that shape.
    package init?(shardJSON j: JSONValue) {
        func number(_ v: JSONValue?) -> Double? {
            guard let s = v?.stringValue, let bits = UInt64(s, radix: 16) else { return nil }
            return Double(bitPattern: bits)
        }
        func zoom(_ v: JSONValue?) -> Int? { v?.intValue.map { Int($0) } }
        guard let name = j["name"]?.stringValue, let type = j["type"]?.stringValue,
            let layersJSON = j["vectorLayers"]?.arrayValue, let extraJSON = j["extra"]?.arrayValue
        else { return nil }
        var layers: [VectorLayerInfo] = []
        for l in layersJSON {
            guard let id = l["id"]?.stringValue, let fieldsJSON = l["fields"]?.arrayValue else { return nil }
            var fields: [VectorLayerField] = []
            for f in fieldsJSON {
                guard let pair = f.arrayValue, pair.count == 2, let n = pair[0].stringValue,
                    let t = pair[1].stringValue.flatMap(VectorFieldType.init(rawValue:))
                else { return nil }
                fields.append(VectorLayerField(name: n, type: t))
            }
            layers.append(
                VectorLayerInfo(
                    id: id, fields: fields, minZoom: zoom(l["minZoom"]), maxZoom: zoom(l["maxZoom"]),
                    description: l["description"]?.stringValue))
        }
        var extra: [(key: String, value: JSONValue)] = []
        for e in extraJSON {
            guard let pair = e.arrayValue, pair.count == 2, let key = pair[0].stringValue else { return nil }
            extra.append((key, pair[1]))
        }
        var bounds: GeoBounds?
        if let b = j["bounds"]?.arrayValue {
            guard b.count == 4, let w = number(b[0]), let s = number(b[1]), let e = number(b[2]), let n = number(b[3])
            else { return nil }
            bounds = GeoBounds(west: w, south: s, east: e, north: n)
        }
        var center: GeoCenter?
        if let c = j["center"]?.arrayValue {
            guard c.count == 3, let lon = number(c[0]), let lat = number(c[1]), let z = zoom(c[2]) else { return nil }
            center = GeoCenter(longitude: lon, latitude: lat, zoom: z)
        }
        self.init(
            name: name, description: j["description"]?.stringValue, attribution: j["attribution"]?.stringValue,
            version: j["version"]?.stringValue, type: type, bounds: bounds, center: center, minZoom: zoom(j["minZoom"]),
            maxZoom: zoom(j["maxZoom"]), vectorLayers: layers, generator: j["generator"]?.stringValue, extra: extra)
    }
}
