import KartpackCore

/// Stage 2 of the feature chain: features that cross the antimeridian (±180°). After projection their coordinates
/// jump by almost a whole world width between consecutive vertices. Each part is made continuous ("unwrapped") and
/// the geometry is returned together with a copy shifted by one world width, so each side is tiled where it lies;
/// tiles beyond the world are never generated, and clipping cuts each copy at the world's edge.
///
/// It runs before anything that compares the feature with other shapes (region clip, descendant selectors,
/// bounds): those see the unwrapped copies, and region polygons are unwrapped the same way.
package enum AntimeridianStage {
    static let worldWidth = 2 * SphericalMercator.halfWorld

    /// The copies to tile: `[g]` when it does not cross; the unwrapped geometry and its shifted copy (with
    /// `antimeridian_split` in `repairs`) when it does.
    package static func apply(_ g: Geometry, repairs: inout Set<ReasonCode>) -> [Geometry] {
        guard let copies = unwrap(g) else { return [g] }
        repairs.insert(.antimeridianSplit)
        return copies
    }

    /// Unwraps parts whose consecutive vertices jump by more than half a world; returns nil when no part does.
    static func unwrap(_ g: Geometry) -> [Geometry]? {
        guard g.kind.family != .point else { return nil }
        var xy = g.xy
        var changed = false
        for part in 0..<g.partCount {
            let r = g.pointRange(ofPart: part)
            var shift = 0.0
            var prev = xy[2 * r.lowerBound]
            for i in r.dropFirst() {
                let raw = g.xy[2 * i]
                let dx = raw - prev
                if spansTheWorld(prev, raw) {
                    // From -180° to +180° (or back) along one parallel: the whole world's width, not a crossing
                    // (a crossing would make it a segment of no length).
                } else if dx > SphericalMercator.halfWorld {
                    shift -= worldWidth
                } else if dx < -SphericalMercator.halfWorld {
                    shift += worldWidth
                }
                prev = raw
                xy[2 * i] = raw + shift
            }
            // A ring that encloses a pole (Antarctica) crosses the antimeridian once and never comes back: its
            // unwrapped form would not close, and as drawn it already spans the world, so it stays as it was.
            if shift != 0, g.kind.family == .polygon {
                for i in r { xy[2 * i] = g.xy[2 * i] }
            } else if r.contains(where: { xy[2 * $0] != g.xy[2 * $0] }) {
                changed = true
            }
        }
        guard changed else { return nil }
        var unwrapped = g
        unwrapped.xy = xy
        if g.kind.family == .polygon {
            // Keep every polygon on one side: a polygon whose exterior sits west of the world is moved east.
            normalizePolygons(&unwrapped)
        }
        guard let b = unwrapped.bounds else { return nil }
        var out = [unwrapped]
        if b.maxX > SphericalMercator.halfWorld { out.append(shifted(unwrapped, by: -worldWidth)) }
        if b.minX < -SphericalMercator.halfWorld { out.append(shifted(unwrapped, by: worldWidth)) }
        return out
    }

    /// True when `a` and `b` lie on the antimeridian on opposite sides of the world (x = ∓180° within a
    /// centimetre): a segment between them is a world-wide edge, as in a whole-world rectangle (-180,-80)…(180,80).
    static func spansTheWorld(_ a: Double, _ b: Double) -> Bool {
        let edge = SphericalMercator.halfWorld
        return abs(abs(a) - edge) < 0.01 && abs(abs(b) - edge) < 0.01 && (a < 0) != (b < 0)
    }

    private static func shifted(_ g: Geometry, by dx: Double) -> Geometry {
        var s = g
        var i = 0
        while i < s.xy.count {
            s.xy[i] += dx
            i += 2
        }
        return s
    }

    /// Rings of one polygon must be unwrapped consistently with its exterior: a hole unwrapped on the other side
    /// of the world is shifted back next to its exterior.
    private static func normalizePolygons(_ g: inout Geometry) {
        for j in 0..<g.polygonCount {
            let parts = g.partRange(ofPolygon: j)
            let ext = g.pointRange(ofPart: parts.lowerBound)
            let extX = g.xy[2 * ext.lowerBound]
            for part in parts.dropFirst() {
                let r = g.pointRange(ofPart: part)
                let dx = g.xy[2 * r.lowerBound] - extX
                let k = (dx / worldWidth).rounded()
                guard k != 0 else { continue }
                for i in r { g.xy[2 * i] -= k * worldWidth }
            }
        }
    }
}
