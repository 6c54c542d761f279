import GeometryOps
import KartpackCore

/// Stage 3 of the feature chain: the feature enters GEOS, once; polygons are made valid (MakeValid STRUCTURE).
/// Every later stage works on this one handle.
package struct RepairStage {
    package let engine: GeometryEngine

    /// `g` as a GEOS geometry, valid for polygons (`make_valid` in `repairs` when it had to be repaired).
    package func apply(_ g: Geometry, repairs: inout Set<ReasonCode>) throws(FeatureIssue) -> EngineGeometry {
        let handle: EngineGeometry
        let fixed: EngineGeometry?
        do throws(GeometryError) {
            handle = try engine.prepare(g)
            guard g.kind.family == .polygon, try !engine.isValid(g, handle: handle) else { return handle }
            fixed = try engine.makeValid(handle, family: .polygon)
        } catch {
            throw FeatureIssue(code: error.diagnosticCode, message: error.description)
        }
        guard let fixed else {
            let reason = (try? engine.validityReason(handle)) ?? "invalid"
            throw FeatureIssue(code: .emptyGeometry, message: "polygon has no area left after repair (\(reason))")
        }
        repairs.insert(.makeValid)
        return fixed
    }
}
