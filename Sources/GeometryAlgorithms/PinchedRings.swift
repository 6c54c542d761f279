/// Splits rings that touch themselves at a repeated vertex into simple loops: the defect rounding to the tile grid
/// leaves most often (a narrow inlet or neck closes to one grid point, and the ring passes it twice), and one that
/// needs no noding to undo.
///
/// A ring is cut at each vertex it visits again: the stretch between the two visits is a loop of its own. A loop
/// turning the way its ring turns is an area of its own (an exterior's loop: another polygon touching it at the
/// point; a hole's loop: another hole); a loop of an exterior turning the other way is a hole of the exterior loops
/// around it; a loop without area is dropped. Polygons touching at a point, and holes touching their exterior or each
/// other at one point, are valid in OGC; whether the whole result is, the caller checks (a crossing elsewhere is
/// not this type's business, nor are loops that nest inside loops turning the same way).
public enum PinchedRings {
    /// `polygons` (each `[exterior, holes…]`, open rings, exteriors of positive `doubledSignedArea`) with every ring
    /// split at its repeated vertices; nil when no ring repeats a vertex, or when a split leaves what this does not
    /// resolve: a hole's loop turning the way exteriors turn, a hole that lies in no exterior loop.
    public static func split(_ polygons: [[[TilePoint]]]) -> [[[TilePoint]]]? {
        var changed = false
        var out: [[[TilePoint]]] = []
        out.reserveCapacity(polygons.count)
        for rings in polygons {
            var exteriors: [[TilePoint]] = []
            var holes: [[TilePoint]] = []
            for (k, ring) in rings.enumerated() {
                guard let parts = loops(ring) else {
                    if k == 0 { exteriors.append(ring) } else { holes.append(ring) }
                    continue
                }
                changed = true
                for loop in parts {
                    let area = doubledSignedArea(loop)
                    if area > 0 {
                        guard k == 0 else { return nil }
                        exteriors.append(loop)
                    } else if area < 0 {
                        holes.append(loop)
                    }
                }
            }
            guard !exteriors.isEmpty else { continue }
            var polygons = exteriors.map { [$0] }
            for hole in holes {
                guard let e = exteriors.count == 1 ? 0 : owner(of: hole, among: exteriors) else { return nil }
                polygons[e].append(hole)
            }
            out += polygons
        }
        return changed ? noded(out) : nil
    }

    /// `polygons` with every vertex that lies inside an edge of another ring, or of its own, inserted into that
    /// edge (`JunctionNoding`), as GEOS's snap rounding leaves them: a loop's vertex at a cut often lies on a
    /// straight edge of the other loop there, and the shared-border pass, which nodes such points, must not find
    /// more meeting edges in its result than in its input (`SharedBorderPass.meetsNoMore`).
    private static func noded(_ polygons: [[[TilePoint]]]) -> [[[TilePoint]]] {
        var rings = polygons.flatMap { $0 }
        guard JunctionNoding.insertJunctions(&rings) > 0 else { return polygons }
        var next = rings.makeIterator()
        return polygons.map { $0.map { _ in next.next()! } }
    }

    /// The loops of `ring` cut at its repeated vertices (each open, in ring order), nil when no vertex repeats.
    static func loops(_ ring: [TilePoint]) -> [[TilePoint]]? {
        var seen = Set<TilePoint>(minimumCapacity: ring.count)
        guard ring.contains(where: { !seen.insert($0).inserted }) else { return nil }
        var stack: [TilePoint] = []
        stack.reserveCapacity(ring.count)
        var at: [TilePoint: Int] = [:]
        var out: [[TilePoint]] = []
        // Once round, then on to the first vertex again so that a loop through the start closes too.
        for p in ring + [ring[0]] {
            guard let i = at[p] else {
                at[p] = stack.count
                stack.append(p)
                continue
            }
            let loop = Array(stack[i...])
            for q in loop.dropFirst() { at[q] = nil }
            stack.removeSubrange((i + 1)...)
            if loop.count >= 3 { out.append(loop) }
        }
        return out
    }

    /// The index of the exterior loop that holds `hole`: decided by a vertex of the hole off that loop's boundary.
    private static func owner(of hole: [TilePoint], among exteriors: [[TilePoint]]) -> Int? {
        for (e, exterior) in exteriors.enumerated() {
            let side = hole.lazy.map { RingValidator.locate($0, in: exterior) }.first { $0 != .boundary }
            if side == .inside { return e }
        }
        return nil
    }
}
