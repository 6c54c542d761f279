import GeometryOps
import KartpackCore
import Publishing

/// Why a region record cannot be built into a package: the checks `RegionSet` makes on each record before its
/// clip polygon is made, so that a broken region stops the night instead of leaving the catalog unnoticed.
/// The codes are documented in docs/diagnostics.md ("Region packages").
package struct RegionShapeProblem: Error, Sendable, Hashable {
    /// `region_null`, `region_non_finite`, `region_zero_area`, `region_invalid_polygon`, `region_unreadable`,
    /// `region_unprojectable` or `region_no_area`.
    package var code: ReasonCode
    /// What is wrong, without the code.
    package var reason: String

    /// The problem of a record the Shapefile reader skipped (its skip code and message).
    package static func skipped(code: ReasonCode, message: String) -> RegionShapeProblem {
        switch code {
        case .nullGeometry:
            RegionShapeProblem(code: .regionNull, reason: "its shape is null")
        case .emptyGeometry:
            RegionShapeProblem(code: .regionZeroArea, reason: "its polygon has no area (\(message))")
        case .nonFiniteCoordinate:
            RegionShapeProblem(code: .regionNonFinite, reason: "a vertex is not a finite number (\(message))")
        default:
            RegionShapeProblem(code: .regionUnreadable, reason: "its shape cannot be read: \(message) [\(code)]")
        }
    }

    /// The problem of a polygon read and projected to Web Mercator, or nil when it can be a region: every
    /// coordinate finite, an area above zero, and valid by GEOS's rules (no self-intersection, no hole outside
    /// its shell, …).
    package static func check(_ g: Geometry, engine: GeometryEngine) -> RegionShapeProblem? {
        if !g.xy.allSatisfy(\.isFinite) {
            return RegionShapeProblem(code: .regionNonFinite, reason: "a vertex is not finite after projection")
        }
        do {
            let prepared = try engine.prepare(g)
            let area = try engine.area(prepared)
            guard area.isFinite, area > 0 else {
                return RegionShapeProblem(code: .regionZeroArea, reason: "its polygon has no area")
            }
            guard try engine.isValid(prepared) else {
                let why = try engine.validityReason(prepared)
                return RegionShapeProblem(code: .regionInvalidPolygon, reason: "its polygon is not valid: \(why)")
            }
            return nil
        } catch {
            return RegionShapeProblem(code: .regionInvalidPolygon, reason: "its polygon is not valid: \(error)")
        }
    }

    /// The finding that stops the night, naming the regions file, the record and the region.
    package func finding(file: String, record: Int, id: String) -> PublishFinding {
        PublishFinding(
            .error, code: code, layer: "", file: file,
            message:
                "region \(RegionSetError.quoted(id)) cannot be built: \(reason); nothing is published [\(code)]",
            record: record, region: id)
    }

    /// Creates a value from each of its stored properties.
    package init(code: ReasonCode, reason: String) {
        self.code = code
        self.reason = reason
    }
}
