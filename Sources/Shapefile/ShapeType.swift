import KartpackCore

/// Shapefile shape type codes and what they mean.
enum ShapeType {
    /// The geometric family of a shape type (Z/M variants share their base's family).
    enum Family: Hashable {
        case point, multiPoint, line, polygon, multiPatch
    }

    /// Family, Z and M flags for a known non-null type; nil for null (0) and unknown codes.
    static func describe(_ code: Int32) -> (family: Family, hasZ: Bool, hasM: Bool)? {
        switch code {
        case 1: (.point, false, false)
        case 11: (.point, true, true)
        case 21: (.point, false, true)
        case 8: (.multiPoint, false, false)
        case 18: (.multiPoint, true, true)
        case 28: (.multiPoint, false, true)
        case 3: (.line, false, false)
        case 13: (.line, true, true)
        case 23: (.line, false, true)
        case 5: (.polygon, false, false)
        case 15: (.polygon, true, true)
        case 25: (.polygon, false, true)
        case 31: (.multiPatch, true, true)
        default: nil
        }
    }

    /// The ESRI name (`PolygonZ`, `MultiPointM`, `Null`, …) or `Unknown(<code>)`.
    static func name(_ code: Int32) -> String {
        switch code {
        case 0: "Null"
        case 1: "Point"
        case 3: "PolyLine"
        case 5: "Polygon"
        case 8: "MultiPoint"
        case 11: "PointZ"
        case 13: "PolyLineZ"
        case 15: "PolygonZ"
        case 18: "MultiPointZ"
        case 21: "PointM"
        case 23: "PolyLineM"
        case 25: "PolygonM"
        case 28: "MultiPointM"
        case 31: "MultiPatch"
        default: "Unknown(\(code))"
        }
    }

    /// The layer's geometry kind for a family (lines and polygons may also come as their multi kinds, as in GDAL);
    /// MultiPatch is read as polygons (`MultiPatchPolygons`).
    static func layerKind(_ family: Family) -> GeometryKind? {
        switch family {
        case .point: .point
        case .multiPoint: .multiPoint
        case .line: .lineString
        case .polygon: .polygon
        case .multiPatch: .polygon
        }
    }
}
