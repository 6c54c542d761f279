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
    /// Points are numbered once (`PointTable`); the open stack keeps, per point id, where it sits (-1: not on it).
    static func loops(_ ring: [TilePoint]) -> [[TilePoint]]? {
        let n = ring.count
        guard n >= 2 else { return nil }
        var table = PointTable(capacity: n)
        let ids = [Int32](unsafeUninitializedCapacity: n) { out, filled in
            for (i, p) in ring.enumerated() { out[i] = table.insert(PointTable.key(p)).id }
            filled = n
        }
        guard table.count < n else { return nil }
        var at = [Int32](repeating: -1, count: table.count)
        var stack: [Int] = []  // ring indices
        stack.reserveCapacity(n)
        var out: [[TilePoint]] = []
        // Once round, then on to the first vertex again so that a loop through the start closes too.
        for k in 0...n {
            let v = k == n ? 0 : k
            let id = Int(ids[v])
            let i = Int(at[id])
            guard i >= 0 else {
                at[id] = Int32(stack.count)
                stack.append(v)
                continue
            }
            for q in stack[(i + 1)...] { at[Int(ids[q])] = -1 }
            if stack.count - i >= 3 { out.append(stack[i...].map { ring[$0] }) }
            stack.removeSubrange((i + 1)...)
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
