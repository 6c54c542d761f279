import GeometryAlgorithms
import KartpackCore

/// Snaps geometries to the integer tile grid and re-validates polygon rings (formats.md §1, "Winding, and ring
/// re-validation after quantization").
///
/// One rounding rule everywhere: `.toNearestOrAwayFromZero`. Coordinates are clamped to
/// ±`coordinateLimit` so that every delta fits the 32-bit zigzag parameters; clamps are counted.
public struct Quantizer: Sendable {
    /// The map from the geometry's CRS to floating tile coordinates.
    public var transform: TileTransform

    /// The largest absolute tile coordinate written (2^30 − 1).
    public static let coordinateLimit: Int32 = (1 << 30) - 1

    /// Creates a quantizer; the default transform takes geometries already in tile coordinates.
    public init(transform: TileTransform = .identity) {
        self.transform = transform
    }

    /// Snaps one point, or returns nil when it is not finite. `clamped` is set when it was clamped.
    public func snap(x: Double, y: Double, clamped: inout Bool) -> TilePoint? {
        let t = transform.apply(x: x, y: y)
        guard t.x.isFinite, t.y.isFinite else { return nil }
        return TilePoint(Self.round(t.x, &clamped), Self.round(t.y, &clamped))
    }

    private static func round(_ v: Double, _ clamped: inout Bool) -> Int32 {
        let r = v.rounded(.toNearestOrAwayFromZero)
        let limit = Double(coordinateLimit)
        if r > limit {
            clamped = true
            return coordinateLimit
        }
        if r < -limit {
            clamped = true
            return -coordinateLimit
        }
        return Int32(r)
    }

    /// Snaps the points of a point or multipoint geometry. Duplicates are kept (a multipoint may repeat a point);
    /// non-finite points are dropped and counted.
    public func quantizePoints(_ g: Geometry) -> QuantizedPoints {
        var out = QuantizedPoints()
        out.points.reserveCapacity(g.pointCount)
        for i in 0..<g.pointCount {
            let p = g.point(i)
            var clamped = false
            guard let q = snap(x: p.x, y: p.y, clamped: &clamped) else {
                out.nonFiniteCoordinates += 1
                continue
            }
            if clamped { out.clampedCoordinates += 1 }
            out.points.append(q)
        }
        return out
    }

    /// Snaps the parts of a line geometry: consecutive duplicates are removed and parts left with fewer than
    /// 2 distinct points (or holding a non-finite coordinate) are dropped and counted.
    public func quantizeLines(_ g: Geometry) -> QuantizedLines {
        var out = QuantizedLines()
        for part in 0..<g.partCount {
            let range = g.pointRange(ofPart: part)
            var line: [TilePoint] = []
            line.reserveCapacity(range.count)
            var finite = true
            for i in range {
                let p = g.point(i)
                var clamped = false
                guard let q = snap(x: p.x, y: p.y, clamped: &clamped) else {
                    finite = false
                    break
                }
                if clamped { out.clampedCoordinates += 1 }
                if line.last != q { line.append(q) }
            }
            if !finite { out.nonFiniteCoordinates += 1 }
            if finite && line.count >= 2 {
                out.parts.append(line)
            } else {
                out.droppedParts += 1
            }
        }
        return out
    }

    /// Snaps and re-validates a polygon geometry whose rings are grouped by `polygonStarts` (exterior first).
    ///
    /// Per polygon, in this order:
    /// 1. round all vertices; remove consecutive duplicates and closing duplicates;
    /// 2. a ring with fewer than 3 distinct points, all points on one line, a non-finite coordinate, or whose
    ///    signed area changed sign under rounding, is degenerate (a ring with zero net area that is not on one
    ///    line crosses itself: it is kept, not oriented, and flagged for repair);
    /// 3. a degenerate hole is dropped (`droppedHoles`); a degenerate exterior is dropped together with its
    ///    holes (`droppedPolygons`, `holesDroppedWithExterior`); a hole never becomes an exterior;
    /// 4. rings are oriented: exteriors positive signed area (surveyor's formula, y down: clockwise on screen),
    ///    holes negative (`reorientedRings`);
    /// 5. the kept rings are checked on the integer grid (`RingValidator`, plus each hole lying inside its
    ///    exterior); `needsRepair` is set when anything fails, so the caller can repair and quantize again.
    ///
    /// A geometry without `polygonStarts` is read as one polygon.
    public func quantizePolygons(_ g: Geometry) -> QuantizedPolygons {
        var out = QuantizedPolygons()
        let polygonRanges: [Range<Int>] =
            g.polygonStarts.isEmpty
            ? (g.partCount > 0 ? [0..<g.partCount] : [])
            : (0..<g.polygonCount).map { g.partRange(ofPolygon: $0) }
        var crossesItself = false
        for parts in polygonRanges {
            var rings: [[TilePoint]] = []
            for (k, part) in parts.enumerated() {
                let isExterior = k == 0
                guard let ring = quantizeRing(g, part: part, into: &out) else {
                    if isExterior {
                        out.droppedPolygons += 1
                        out.holesDroppedWithExterior += parts.count - 1
                        break
                    }
                    out.droppedHoles += 1
                    continue
                }
                var r = ring.points
                if ring.area == 0 {
                    crossesItself = true  // No orientation to fix; repair decides.
                } else if isExterior == (ring.area < 0) {
                    r.reverse()
                    out.reorientedRings += 1
                }
                rings.append(r)
            }
            if !rings.isEmpty { out.polygons.append(rings) }
        }
        out.needsRepair = crossesItself || !Self.isValidOnGrid(out.polygons)
        return out
    }

    /// True when the rings of every polygon are simple and mutually disjoint, and each hole lies inside its
    /// exterior. Conservative: a hole touching its exterior at one point (valid in OGC) reports false.
    public static func isValidOnGrid(_ polygons: [[[TilePoint]]]) -> Bool {
        var all: [[TilePoint]] = []
        for rings in polygons { all.append(contentsOf: rings) }
        if all.isEmpty { return true }
        if RingValidator.hasIntersections(all) { return false }
        // No edges meet, so one vertex of a hole decides where the whole hole lies.
        for rings in polygons where rings.count > 1 {
            for hole in rings.dropFirst() {
                guard let v = hole.first, RingValidator.locate(v, in: rings[0]) == .inside else { return false }
            }
        }
        return true
    }

    private struct SnappedRing {
        var points: [TilePoint]
        var area: Int128
    }

    /// Steps 1–2 for one ring; nil when the ring is degenerate.
    private func quantizeRing(_ g: Geometry, part: Int, into out: inout QuantizedPolygons) -> SnappedRing? {
        let range = g.pointRange(ofPart: part)
        var pts: [TilePoint] = []
        pts.reserveCapacity(range.count)
        // Floating signed area in tile coordinates, shifted by the first point for precision.
        var floatArea = 0.0
        var first: (x: Double, y: Double)? = nil
        var prev = (x: 0.0, y: 0.0)
        for i in range {
            let p = g.point(i)
            let t = transform.apply(x: p.x, y: p.y)
            guard t.x.isFinite, t.y.isFinite else {
                out.nonFiniteCoordinates += 1
                return nil
            }
            if let f = first {
                let cur = (x: t.x - f.x, y: t.y - f.y)
                floatArea += prev.x * cur.y - cur.x * prev.y
                prev = cur
            } else {
                first = t
            }
            var clamped = false
            let q = TilePoint(Self.round(t.x, &clamped), Self.round(t.y, &clamped))
            if clamped { out.clampedCoordinates += 1 }
            if pts.last != q { pts.append(q) }
        }
        while pts.count > 1, pts.last == pts.first { pts.removeLast() }
        guard pts.count >= 3 else { return nil }
        // Collapsed onto a line: every vertex collinear with the first two (which differ).
        let a = pts[0]
        let b = pts[1]
        guard pts.dropFirst(2).contains(where: { RingValidator.orientation(a, b, $0) != 0 }) else { return nil }
        let area = doubledSignedArea(pts)
        // Zero net area without collapsing means the ring crosses itself (a bowtie): keep it for repair.
        // Otherwise a sign that differs from the floating ring's means rounding flipped it.
        if area != 0 && floatArea != 0 && (area > 0) != (floatArea > 0) { return nil }
        return SnappedRing(points: pts, area: area)
    }
}
