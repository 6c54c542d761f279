internal import CGEOS
import GeometryAlgorithms
import KartpackCore

/// Area and first moments of a polygonal geometry inside a rectangle, computed in Swift by clipping every ring
/// with Sutherland–Hodgman (`RectangleClipper`).
///
/// The signed area and moments of a Sutherland–Hodgman output ring are the integrals of the ring's winding
/// number over the rectangle, so they are exact for any simple ring even when the clipped ring has degenerate
/// edges along the rectangle. Shells count positive, holes negative, whatever their orientation. Two geometries
/// covering the same region inside the rectangle give the same values; `GEOSClipByRect_r`'s wrong answers (the
/// complement on GEOS PR #605) do not, whatever their validity.
struct RectMoments {
    var area = 0.0
    var mx = 0.0
    var my = 0.0

    /// True when the two agree to a relative `1e-7` of the rectangle's area (and its area × half-diagonal).
    func matches(_ other: RectMoments, rect: Bounds) -> Bool {
        let w = rect.maxX - rect.minX
        let h = rect.maxY - rect.minY
        let tolerance = 1e-7 * w * h
        let momentTolerance = tolerance * (w + h)
        return abs(area - other.area) <= tolerance && abs(mx - other.mx) <= momentTolerance
            && abs(my - other.my) <= momentTolerance
    }
}

/// Computes `RectMoments` for one rectangle, reusing its scratch buffers between calls.
struct RectMomentCalculator {
    /// The buffers a calculator works in: handed from one tile's calculator to the next (`GeometryEngine`), so
    /// that a coastline cut to many tiles does not allocate (and fault in) rings of its size for every tile.
    struct Scratch {
        var ring: [Double] = []
        var a: [Double] = []
        var b: [Double] = []
    }

    let rect: Bounds
    private let cx: Double
    private let cy: Double
    /// The rectangle relative to its centre.
    private let relativeRect: Bounds
    private(set) var scratch: Scratch
    init(rect: Bounds, scratch: Scratch = Scratch()) {
        self.rect = rect
        self.scratch = scratch
        // Work relative to the rectangle's centre to keep precision with large projected coordinates.
        cx = (rect.minX + rect.maxX) / 2
        cy = (rect.minY + rect.maxY) / 2
        relativeRect = Bounds(minX: rect.minX - cx, minY: rect.minY - cy, maxX: rect.maxX - cx, maxY: rect.maxY - cy)
    }

    /// The moments of the polygons in `g` (borrowed) inside the rectangle; nil when GEOS fails to report them.
    mutating func moments(_ ctx: OpaquePointer, _ g: OpaquePointer) -> RectMoments? {
        var total = RectMoments()
        return accumulate(ctx, g, into: &total) ? total : nil
    }

    private mutating func accumulate(_ ctx: OpaquePointer, _ g: OpaquePointer, into total: inout RectMoments) -> Bool {
        guard let type = GEOSTypeID(ctx, g) else { return false }
        if type.isCollection {
            let n = GEOSGetNumGeometries_r(ctx, g)
            guard n >= 0 else { return false }
            for i in 0..<n {
                guard let part = GEOSGetGeometryN_r(ctx, g, i), accumulate(ctx, part, into: &total) else {
                    return false
                }
            }
            return true
        }
        guard type == .polygon else { return true }
        guard GEOSisEmpty_r(ctx, g) == 0 else { return true }
        guard let shell = GEOSGetExteriorRing_r(ctx, g), addRing(ctx, shell, sign: 1, into: &total) else {
            return false
        }
        let holes = GEOSGetNumInteriorRings_r(ctx, g)
        guard holes >= 0 else { return false }
        for i in 0..<holes {
            guard let hole = GEOSGetInteriorRingN_r(ctx, g, i), addRing(ctx, hole, sign: -1, into: &total) else {
                return false
            }
        }
        return true
    }

    private mutating func addRing(
        _ ctx: OpaquePointer, _ r: OpaquePointer, sign: Double, into total: inout RectMoments
    ) -> Bool {
        guard let seq = GEOSGeom_getCoordSeq_r(ctx, r) else { return false }
        var size: UInt32 = 0
        guard GEOSCoordSeq_getSize_r(ctx, seq, &size) != 0 else { return false }
        let n = Int(size)
        guard n >= 4 else { return true }
        if scratch.ring.count < 2 * n { scratch.ring = Array(repeating: 0, count: 2 * n) }
        let ok = scratch.ring.withUnsafeMutableBufferPointer { buf -> Int32 in
            guard let base = buf.baseAddress else { return 0 }
            return GEOSCoordSeq_copyToBuffer_r(ctx, seq, base, 0, 0)
        }
        guard ok != 0 else { return false }
        let copy = scratch.ring
        copy.withUnsafeBufferPointer { addRing($0, count: n, sign: sign, into: &total) }
        return true
    }

    /// The moments of the polygons of a Swift geometry (rings closed) inside the rectangle: the same arithmetic,
    /// ring by ring, as for the GEOS geometry holding the same coordinates. `boxes` (one per polygon, over all
    /// its rings) lets polygons strictly outside the rectangle be skipped: they add nothing either way.
    mutating func moments(of g: Geometry, boxes: [Bounds]? = nil) -> RectMoments {
        var total = RectMoments()
        let boxes = boxes?.count == g.polygonCount ? boxes : nil
        g.xy.withUnsafeBufferPointer { xy in
            for j in 0..<g.polygonCount {
                if let b = boxes?[j],
                    b.maxX < rect.minX || b.minX > rect.maxX || b.maxY < rect.minY || b.minY > rect.maxY
                {
                    continue
                }
                for (k, part) in g.partRange(ofPolygon: j).enumerated() {
                    let r = g.pointRange(ofPart: part)
                    guard r.count >= 4 else { continue }
                    let slice = UnsafeBufferPointer(rebasing: xy[(2 * r.lowerBound)..<(2 * r.upperBound)])
                    addRing(slice, count: r.count, sign: k == 0 ? 1 : -1, into: &total)
                }
            }
        }
        return total
    }

    /// Adds one closed ring of `n` points (interleaved in `xy`).
    private mutating func addRing(
        _ xy: UnsafeBufferPointer<Double>, count n: Int, sign: Double, into total: inout RectMoments
    ) {
        // Open ring relative to the centre in `scratch.a`.
        scratch.a.removeAll(keepingCapacity: true)
        var inside = true
        for i in 0..<(n - 1) {
            let x = xy[2 * i] - cx
            let y = xy[2 * i + 1] - cy
            scratch.a.append(x)
            scratch.a.append(y)
            inside =
                inside && x >= relativeRect.minX && x <= relativeRect.maxX && y >= relativeRect.minY
                && y <= relativeRect.maxY
        }
        let orientation = Self.moments(of: scratch.a)
        guard orientation.area != 0 else { return }
        let factor = sign * (orientation.area > 0 ? 1 : -1)
        // Sutherland–Hodgman leaves a ring wholly inside the (closed) rectangle as it is.
        if !inside { RectangleClipper.clip(ring: &scratch.a, scratch: &scratch.b, to: relativeRect) }
        let m = inside ? orientation : Self.moments(of: scratch.a)
        total.area += factor * m.area
        total.mx += factor * m.mx
        total.my += factor * m.my
    }

    /// Signed area and first moments (∫x dA, ∫y dA) of an open ring by Green's theorem.
    private static func moments(of xy: [Double]) -> RectMoments {
        let n = xy.count / 2
        guard n >= 3 else { return RectMoments() }
        var m = RectMoments()
        var j = n - 1
        for i in 0..<n {
            let xj = xy[2 * j]
            let yj = xy[2 * j + 1]
            let xi = xy[2 * i]
            let yi = xy[2 * i + 1]
            let cross = xj * yi - xi * yj
            m.area += cross
            m.mx += (xj + xi) * cross
            m.my += (yj + yi) * cross
            j = i
        }
        m.area /= 2
        m.mx /= 6
        m.my /= 6
        return m
    }
}
