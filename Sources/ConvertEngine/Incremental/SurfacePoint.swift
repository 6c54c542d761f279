import GeometryOps

/// What the style asked of a feature's point on surface (a descendant selector tests it against the ancestor
/// polygons): kept with the feature's pieces (`PieceRecord`), so that the next night can make the same style
/// decisions without the feature's geometry (`FeatureChain.style`).
package enum SurfacePoint: Sendable, Equatable {
    /// No selector asked.
    case notAsked
    /// Asked; the feature has no point on surface.
    case noPoint
    case point(Double, Double)
    /// Asked, and GEOS failed (such a feature is not stored).
    case failed
}

/// Computes a feature's point on surface when the style first asks, and records the answer.
final class SurfacePointMemo {
    private let compute: () throws(GeometryError) -> (x: Double, y: Double)?
    private(set) var answer = SurfacePoint.notAsked

    init(_ compute: @escaping () throws(GeometryError) -> (x: Double, y: Double)?) { self.compute = compute }

    func get() throws(GeometryError) -> (x: Double, y: Double)? {
        do {
            let p = try compute()
            answer = p.map { .point($0.x, $0.y) } ?? .noPoint
            return p
        } catch {
            answer = .failed
            throw error
        }
    }
}
