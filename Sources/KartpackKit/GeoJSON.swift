import KartpackJSON

/// GeoJSON (RFC 7946) text of query results: what `kartpack query --format geojson` prints.
public enum GeoJSON {
    /// A `FeatureCollection`: per feature its `id` (when it has one), `properties` (plus `layer`, the feature's
    /// layer, unless an attribute already has that name) and geometry (`Point`/`MultiPoint`, `LineString`/
    /// `MultiLineString`, `Polygon`/`MultiPolygon`). Compact, members in a fixed order, numbers in shortest
    /// round-trip form, a non-finite attribute number as `null`.
    public static func featureCollection(_ features: [MapFeature]) -> String {
        JSONWriter.text(
            .object([("type", .string("FeatureCollection")), ("features", .array(features.map(feature)))]),
            format: .compact)
    }

    /// The same, with a `look` member per feature (a GeoJSON foreign member): what `style` draws for it at
    /// display zoom `zoom`, as `ClientLook.json` writes it.
    public static func featureCollection(_ features: [MapFeature], style: ClientStyle, zoom: Double) -> String {
        let list: [JSONValue] = features.map { f in
            guard case .object(var members) = feature(f) else { return feature(f) }
            members.append(("look", style.look(for: f, zoom: zoom).json))
            return .object(members)
        }
        return JSONWriter.text(
            .object([("type", .string("FeatureCollection")), ("features", .array(list))]), format: .compact)
    }

    static func feature(_ f: MapFeature) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("type", .string("Feature"))]
        if let id = f.id {
            members.append(("id", Int64(exactly: id).map { .int($0) } ?? .double(Double(id))))
        }
        var props: [(key: String, value: JSONValue)] = []
        if f["layer"] == nil { props.append(("layer", .string(f.layer))) }
        for (key, value) in f.properties {
            switch value {
            case .string(let s): props.append((key, .string(s)))
            case .int(let v): props.append((key, .int(v)))
            case .uint(let v): props.append((key, Int64(exactly: v).map { .int($0) } ?? .double(Double(v))))
            case .double(let v): props.append((key, v.isFinite ? .double(v) : .null))
            case .bool(let v): props.append((key, .bool(v)))
            }
        }
        members.append(("properties", .object(props)))
        members.append(("geometry", geometry(f.geometry)))
        return .object(members)
    }

    static func geometry(_ g: FeatureGeometry) -> JSONValue {
        func position(_ c: GeoCoordinate) -> JSONValue { .array([.double(c.longitude), .double(c.latitude)]) }
        func line(_ l: [GeoCoordinate]) -> JSONValue { .array(l.map(position)) }
        func polygon(_ p: GeoPolygon) -> JSONValue { .array(([p.exterior] + p.holes).map(line)) }
        func shape(_ type: String, _ coordinates: JSONValue) -> JSONValue {
            .object([("type", .string(type)), ("coordinates", coordinates)])
        }
        switch g {
        case .points(let p):
            return p.count == 1 ? shape("Point", position(p[0])) : shape("MultiPoint", line(p))
        case .lines(let l):
            return l.count == 1 ? shape("LineString", line(l[0])) : shape("MultiLineString", .array(l.map(line)))
        case .polygons(let p):
            return p.count == 1 ? shape("Polygon", polygon(p[0])) : shape("MultiPolygon", .array(p.map(polygon)))
        }
    }
}
