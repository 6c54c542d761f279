internal import CGEOS
import KartpackCore

/// GEOS geometry type ids (`enum GEOSGeomTypes`) as `GEOSGeomTypeId_r` returns them.
enum GEOSTypeID: Int32 {
    case point, lineString, linearRing, polygon, multiPoint, multiLineString, multiPolygon, collection

    /// The id of a geometry, nil when GEOS reports an error (-1) or an unknown type.
    init?(_ ctx: OpaquePointer, _ g: OpaquePointer) {
        self.init(rawValue: GEOSGeomTypeId_r(ctx, g))
    }

    /// The family of a simple (non-collection) type.
    var simpleFamily: GeometryFamily? {
        switch self {
        case .point: .point
        case .lineString, .linearRing: .line
        case .polygon: .polygon
        default: nil
        }
    }

    /// True for the homogeneous or heterogeneous collection types.
    var isCollection: Bool {
        switch self {
        case .multiPoint, .multiLineString, .multiPolygon, .collection: true
        default: false
        }
    }

    /// The single and multi types that hold only parts of `family`.
    static func types(of family: GeometryFamily) -> (single: GEOSTypeID, multi: GEOSTypeID) {
        switch family {
        case .point: (.point, .multiPoint)
        case .line: (.lineString, .multiLineString)
        case .polygon: (.polygon, .multiPolygon)
        }
    }
}

extension GeometryFamily {
    /// Point 0, line 1, polygon 2.
    var dimension: Int {
        switch self {
        case .point: 0
        case .line: 1
        case .polygon: 2
        }
    }
}
