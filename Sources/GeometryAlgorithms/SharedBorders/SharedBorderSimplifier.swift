/// Simplifies the polygons of one layer in one tile so that neighbours keep exactly the same simplified border:
/// a coverage (forest stands, parcels) stays free of gaps and overlaps at every zoom.
///
/// Input: per feature, its polygons, each an exterior ring followed by its holes, quantized to the tile grid and
/// not simplified; rings are open (a closing duplicate and consecutive duplicates are removed here). Edges along
/// the buffered clip rectangle are part of the rings. Output: the same structure (same features, polygons and
/// rings, each ring in its input orientation, possibly starting at another vertex), each ring a subsequence of its
/// input vertices plus the junction points of step 1, except for the collapsed rings step 3 leaves out.
///
/// The algorithm (topological simplification, as mapshaper and tippecanoe's `--detect-shared-borders` do it):
/// 1. **Junctions.** A vertex lying exactly inside another ring's edge (a T-junction, or partly collinear
///    borders) is inserted into that edge (`JunctionNoding`).
/// 2. **Nodes and arcs.** A vertex is a node when its occurrences in all rings have other than two distinct
///    neighbours (mapshaper's rule), when a ring turns back at it, or where a border meets the clip rectangle
///    (a vertex on its edges with a ring edge leaving them, and its corners). Rings are cut at nodes into arcs;
///    each arc is stored once in a canonical direction (the smaller first two points), so rings that share a
///    border use the same arc in opposite directions. A ring without nodes is one closed arc from its smallest
///    point (`ArcGraph`).
/// 3. **Simplify arcs.** Douglas–Peucker on every arc once, with `tolerance` in tile units, its end nodes fixed
///    and ties broken by position along the canonical direction (nearest the span's middle, then first); a
///    closed arc keeps its start and the point farthest from it (`ArcDouglasPeucker`). A ring that is one closed
///    arc reduced to those two points is left out, with every ring on that arc, when nothing lies in its box and
///    its feature keeps another polygon (`CollapsedRings`): sub-pixel islets go as in the per-feature path.
/// 4. **Keep the topology.** Removed vertices are put back into the arcs until no ring has collapsed (fewer
///    than 3 points, zero area) or flipped, no simplified segment crosses or touches another except at a shared
///    end point, and no kept point ends up on the other side of a simplified border (a small island swallowed).
///    The vertex farthest from the offending chord is restored first; since it goes back into the shared arc,
///    both neighbours get it (`TopologyRepair`).
/// 5. **Rebuild** every ring from its arcs' kept points.
///
/// Guarantees: rings that share a border in the input share the identical simplified border; features whose
/// interiors did not overlap do not overlap afterwards; when the input passes `Quantizer.isValidOnGrid` per
/// feature, so does the output. Crossings already in the input are kept, not repaired. Deterministic and
/// independent of the order of features and rings (every choice is by distance, then by point order); hash maps
/// keyed by point and uniform grids make it O(n log n) in the tile's vertex count, plus the Douglas–Peucker cost
/// per arc.
public struct SharedBorderSimplifier: Sendable {
    /// One feature: polygons, each `[exterior, holes…]`, each ring an open list of tile points.
    public typealias Polygons = [[[TilePoint]]]

    /// Douglas–Peucker tolerance in tile units; 0 or less returns the input unchanged.
    public var tolerance: Double
    /// The buffered clip rectangle the pieces were cut to (where borders meet it, vertices are nodes), or nil.
    public var clip: TileRect?

    /// Creates a simplifier.
    public init(tolerance: Double, clip: TileRect? = nil) {
        self.tolerance = tolerance
        self.clip = clip
    }

    /// Simplifies the polygons of one layer in one tile together (`features[f]` is feature `f`'s polygons).
    /// `keepClear`: areas the layer draws in the tile with something not among `features` (small features drawn
    /// as squares); a collapsed ring whose box meets one is not left out.
    public func simplify(_ features: [Polygons], keepClear: [TileRect] = []) -> SharedBorderResult {
        var stats = SharedBorderStatistics()
        var rings: [[TilePoint]] = []
        var owner: [Int] = []
        var isExterior: [Bool] = []
        for (f, polygons) in features.enumerated() {
            for rs in polygons {
                for (k, r) in rs.enumerated() {
                    let ring = Self.cleaned(r)
                    stats.inputVertices += ring.count
                    if ring.count < 3 { stats.unsimplifiedRings += 1 }
                    rings.append(ring)
                    owner.append(f)
                    isExterior.append(k == 0)
                }
            }
        }
        guard tolerance > 0, tolerance.isFinite else {
            stats.outputVertices = stats.inputVertices
            return SharedBorderResult(features: Self.rebuild(features, rings: rings), statistics: stats)
        }
        // The points are hashed once, for both steps.
        var ids = JunctionNoding.VertexIds(rings)
        stats.junctionsInserted = JunctionNoding.insertJunctions(&rings, ids: &ids, clip: clip)
        let graph = ArcGraph(rings: rings, ids: ids, clip: clip)
        stats.nodes = graph.nodes.count
        stats.arcs = graph.arcCount
        stats.sharedArcs = graph.useCount.count { $0 > 1 }
        var kept = ArcDouglasPeucker.keptFlags(graph, tolerance: tolerance)
        // A left-out arc keeps no point: the repair then sees neither its segments nor its ring.
        let dropped = CollapsedRings.droppedArcs(
            graph, kept: kept, rings: rings, owner: owner, isExterior: isExterior, clip: clip,
            keepClear: keepClear.map { GridBox(TilePoint($0.minX, $0.minY), TilePoint($0.maxX, $0.maxY)) })
        for a in dropped.indices where dropped[a] {
            for k in graph.range(ofArc: a) { kept[k] = false }
        }
        var repair = TopologyRepair(graph: graph, kept: kept)
        repair.run()
        stats.verticesRestored = repair.restored
        stats.repairRounds = repair.rounds
        var out: [[TilePoint]?] = []
        out.reserveCapacity(rings.count)
        for r in rings.indices {
            guard let uses = graph.uses(ofRing: r) else {
                out.append(rings[r])
                stats.outputVertices += rings[r].count
                continue
            }
            // A left-out ring has every arc left out, a kept ring none.
            if dropped[Int(uses[uses.startIndex].arc)] {
                out.append(nil)
                stats.droppedRings += 1
                continue
            }
            let outline = repair.outline(uses)
            out.append(outline)
            stats.outputVertices += outline.count
        }
        return SharedBorderResult(features: Self.rebuild(features, rings: out), statistics: stats)
    }

    /// `ring` without consecutive duplicates and without a closing duplicate.
    private static func cleaned(_ ring: [TilePoint]) -> [TilePoint] {
        // Most rings come clean: shared, not copied.
        if ring.count < 2 || (ring.last != ring.first && !zip(ring, ring.dropFirst()).contains { $0 == $1 }) {
            return ring
        }
        var out: [TilePoint] = []
        out.reserveCapacity(ring.count)
        for p in ring where out.last != p { out.append(p) }
        while out.count > 1, out.last == out.first { out.removeLast() }
        return out
    }

    /// `features`' structure filled with `rings`, in flattening order; a left-out ring (nil) is removed, and a
    /// polygon whose exterior is left out goes (`CollapsedRings` leaves out no exterior that has holes).
    private static func rebuild(_ features: [Polygons], rings: [[TilePoint]?]) -> [Polygons] {
        var next = 0
        return features.map { polygons in
            polygons.compactMap { rs in
                let own = rings[next..<(next + rs.count)]
                next += rs.count
                guard let exterior = own.first, let exterior else { return own.isEmpty ? [] : nil }
                return [exterior] + own.dropFirst().compactMap { $0 }
            }
        }
    }
}

/// The result of `SharedBorderSimplifier.simplify(_:)`.
public struct SharedBorderResult: Sendable, Hashable {
    /// The simplified features, in the input's structure.
    public var features: [SharedBorderSimplifier.Polygons]
    /// What the simplifier did.
    public var statistics: SharedBorderStatistics
}

/// Counts from one `SharedBorderSimplifier.simplify(_:)` call.
public struct SharedBorderStatistics: Sendable, Hashable {
    /// Ring vertices in (after duplicate removal).
    public var inputVertices = 0
    /// Ring vertices out.
    public var outputVertices = 0
    /// Distinct nodes (fixed points where borders meet or reach the clip rectangle).
    public var nodes = 0
    /// Distinct arcs, each simplified once.
    public var arcs = 0
    /// Arcs used by more than one ring (shared borders).
    public var sharedArcs = 0
    /// Vertices inserted where one ring's vertex lay inside another ring's edge.
    public var junctionsInserted = 0
    /// Vertices put back to keep rings valid and borders from crossing or swallowing points.
    public var verticesRestored = 0
    /// Rounds of the topology check (1 when simplification broke nothing).
    public var repairRounds = 0
    /// Rings with fewer than 3 distinct points, passed through unchanged.
    public var unsimplifiedRings = 0
    /// Rings Douglas–Peucker collapsed that were left out (`CollapsedRings`), with every ring on their arc.
    public var droppedRings = 0

    /// Creates empty statistics.
    public init() {}
}
