import KartpackCore

/// One feature as the Shapefile reader returns it, for `kartpack inspect --features`: what a differential test
/// compares with another reader (GDAL's `ogr2ogr -f GeoJSON`). Geometry is in the layer's own CRS, after the
/// reader's repairs (ring orientation and assignment, closed rings, duplicate points removed), before reprojection.
package struct FeatureDump: Codable, Sendable, Hashable {
    /// The 1-based record number (GDAL's FID + 1).
    package var record: Int
    /// Attributes by field name; JSON null for null values.
    package var properties: [String: DumpValue]
    /// A GeoJSON geometry object.
    package var geometry: DumpGeometry
    /// Codes of the diagnostics about this record (repairs, coercions, warnings), sorted, without repeats.
    package var codes: [ReasonCode]

    /// Builds the dump of a feature.
    package init(_ feature: Feature, codes: [ReasonCode]) {
        record = feature.provenance.record
        var p: [String: DumpValue] = [:]
        for (k, v) in zip(feature.properties.keys, feature.properties.values) { p[k] = DumpValue(v) }
        properties = p
        geometry = DumpGeometry(feature.geometry)
        self.codes = codes
    }
}

/// A record the reader skipped, with its reason code.
package struct SkippedRecordDump: Codable, Sendable, Hashable {
    package var record: Int
    package var code: ReasonCode
}

/// An attribute value as JSON: string, integer, number, boolean or null.
package enum DumpValue: Codable, Sendable, Hashable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case null

    package init(_ value: PropertyValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .int(let v): self = .int(v)
        case .uint(let v): self = v <= UInt64(Int64.max) ? .int(Int64(v)) : .double(Double(v))
        case .double(let v): self = .double(v)
        case .bool(let v): self = .bool(v)
        case .null: self = .null
        }
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else {
            self = .string(try c.decode(String.self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .int(let v): try c.encode(v)
        case .double(let v): try c.encode(v)
        case .bool(let v): try c.encode(v)
        case .null: try c.encodeNil()
        }
    }
}

/// GeoJSON coordinates: a position `[x, y]` or a list of coordinates.
package indirect enum DumpCoordinates: Codable, Sendable, Hashable {
    case position([Double])
    case list([DumpCoordinates])

    package init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let p = try? c.decode([Double].self) {
            self = .position(p)
        } else {
            self = .list(try c.decode([DumpCoordinates].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .position(let p): try c.encode(p)
        case .list(let l): try c.encode(l)
        }
    }
}

/// A GeoJSON geometry (`type` and `coordinates`, x/y only).
package struct DumpGeometry: Codable, Sendable, Hashable {
    package var type: String
    package var coordinates: DumpCoordinates

    package init(_ g: Geometry) {
        func position(_ i: Int) -> DumpCoordinates { .position([g.xy[2 * i], g.xy[2 * i + 1]]) }
        func part(_ i: Int) -> DumpCoordinates { .list(g.pointRange(ofPart: i).map(position)) }
        func polygon(_ j: Int) -> DumpCoordinates { .list(g.partRange(ofPolygon: j).map(part)) }
        switch g.kind {
        case .point: (type, coordinates) = ("Point", position(0))
        case .multiPoint: (type, coordinates) = ("MultiPoint", .list((0..<g.pointCount).map(position)))
        case .lineString: (type, coordinates) = ("LineString", part(0))
        case .multiLineString: (type, coordinates) = ("MultiLineString", .list((0..<g.partCount).map(part)))
        case .polygon:
            (type, coordinates) = ("Polygon", g.polygonCount > 0 ? polygon(0) : .list((0..<g.partCount).map(part)))
        case .multiPolygon: (type, coordinates) = ("MultiPolygon", .list((0..<g.polygonCount).map(polygon)))
        }
    }
}
