import KartpackCore

/// Step 3b of shared-border simplification: rings that Douglas–Peucker collapses are left out where that changes
/// nothing else, as the per-feature path does (a ring simplified to two points is dropped when it is quantized).
///
/// Without this step, `TopologyRepair` put vertices back into every collapsed ring, so a coast's sub-pixel islets
/// stayed as triangles at every zoom: at z1–z11 the five NYC boroughs had 2–3 times the rings of the per-feature
/// path, most of them 3 or 4 points, and their package was 5 % larger.
///
/// A ring is left out when
/// 1. its outline at the Douglas–Peucker flags has fewer than 3 points or no area, it does not reach the clip
///    rectangle (a piece of a larger polygon cut at the tile's edge goes on in the neighbour tile, whose copy of
///    the seam must match), and it shares no border: each
///    of its arcs is its own, or a closed arc (no node), whose every ring goes with it (an island and the hole of
///    the neighbour it fills), so no gap or overlap opens;
/// 2. no vertex of another ring lies in its bounding box (edges included), except where a ring that leaves the box
///    touches it at one of its vertices: nothing lies inside it, so no hole loses its exterior and no polygon
///    ends up inside a filled hole; nor does its box meet an area to keep clear (what the layer draws there that is
///    not among the rings: a small feature's square);
/// 3. its feature keeps a polygon: when every exterior of a feature would go, the largest (by area, then by the
///    smaller first point) stays, with the rings on its arc.
///
/// Each rule is decided from the whole layer, never from the order of features or rings.
enum CollapsedRings {
    /// The arcs to leave out (true per arc) given the Douglas–Peucker flags `kept`, the rings of each feature
    /// (`owner[r]`: the feature of ring `r`; `isExterior[r]`: whether it is its polygon's exterior), the clip
    /// rectangle and the boxes to keep clear.
    static func droppedArcs(
        _ graph: ArcGraph, kept: [Bool], rings: [[TilePoint]], owner: [Int], isExterior: [Bool],
        clip: TileRect? = nil, keepClear: [GridBox] = []
    ) -> [Bool] {
        var dropped = [Bool](repeating: false, count: graph.arcCount)
        // Rule 1: collapsed rings on arcs of their own (or closed arcs, whose every ring uses only them).
        var candidates: [Int] = []
        var candidateOf = [Int](repeating: -1, count: rings.count)
        // The rings of each closed arc that more than one ring runs through (an island and its neighbour's hole).
        var ringsOfSharedClosedArc: [Int32: [Int]] = [:]
        for r in rings.indices {
            guard let uses = graph.uses(ofRing: r), uses.count == 1 else { continue }
            let a = uses[uses.startIndex].arc
            if graph.useCount[Int(a)] > 1 { ringsOfSharedClosedArc[a, default: []].append(r) }
        }
        for r in rings.indices {
            guard let uses = graph.uses(ofRing: r), candidateOf[r] < 0 else { continue }
            guard uses.allSatisfy({ graph.useCount[Int($0.arc)] == 1 || isClosed(Int($0.arc), graph) }) else {
                continue
            }
            guard isCollapsed(uses, graph: graph, kept: kept) else { continue }
            if let clip, rings[r].contains(where: clip.isOnBoundary) { continue }
            // The other rings on a closed arc go with it.
            let group = uses.count == 1 ? ringsOfSharedClosedArc[uses[uses.startIndex].arc] ?? [r] : [r]
            for o in group { candidateOf[o] = candidates.count }
            candidates.append(r)
        }
        guard !candidates.isEmpty else { return dropped }
        // Rule 2: no vertex of a ring off the candidate's arcs in its box, other than the candidate's own vertices
        // where a ring that leaves the box touches it; no box to keep clear meets it.
        let boxes = candidates.map { GridBox(rings[$0]) }
        var blocked = [Bool](repeating: false, count: candidates.count)
        var own: [[TilePoint]?] = Array(repeating: nil, count: candidates.count)
        let grid = CellGrid(boxes: boxes)
        var touched: [Int] = []
        for (r, ring) in rings.enumerated() {
            touched.removeAll(keepingCapacity: true)
            for p in ring {
                grid.forEachCell(in: GridBox(point: p)) { _, items in
                    for c32 in items {
                        let c = Int(c32)
                        guard !blocked[c], candidateOf[r] != c, boxes[c].contains(p) else { continue }
                        if own[c] == nil { own[c] = rings[candidates[c]].sorted(by: TilePoint.precedes) }
                        if Self.contains(own[c]!, p) { touched.append(c) } else { blocked[c] = true }
                    }
                }
            }
            // A ring that meets the candidate only at its vertices touches it from outside when it leaves the box;
            // one with every vertex on the candidate may lie inside it (an islet in a hole of other vertices).
            for c in Set(touched) where !blocked[c] && ring.allSatisfy({ boxes[c].contains($0) }) { blocked[c] = true }
        }
        for clear in keepClear {
            grid.forEachCell(in: clear) { _, items in
                for c in items where boxes[Int(c)].intersects(clear) { blocked[Int(c)] = true }
            }
        }
        var leftOut = [Bool](repeating: false, count: rings.count)
        for r in rings.indices where candidateOf[r] >= 0 && !blocked[candidateOf[r]] { leftOut[r] = true }
        // Rule 3: every feature keeps an exterior (decided on the drops of rules 1 and 2 only).
        var keepsOne: [Int: Bool] = [:]
        var largest: [Int: Int] = [:]
        for r in rings.indices where isExterior[r] {
            let f = owner[r]
            keepsOne[f] = (keepsOne[f] ?? false) || !leftOut[r]
            guard leftOut[r] else { continue }
            if let best = largest[f] {
                let (ab, ar) = (abs(graph.ringAreas[best]), abs(graph.ringAreas[r]))
                if ar > ab || (ar == ab && TilePoint.precedes(smallest(rings[r]), smallest(rings[best]))) {
                    largest[f] = r
                }
            } else {
                largest[f] = r
            }
        }
        var stays = Set<Int>()
        for (f, r) in largest where keepsOne[f] == false { stays.insert(candidateOf[r]) }
        for r in rings.indices where leftOut[r] && !stays.contains(candidateOf[r]) {
            for u in graph.uses(ofRing: r)! { dropped[Int(u.arc)] = true }
        }
        return dropped
    }

    /// Whether the ring's outline at the Douglas–Peucker flags has fewer than 3 points or no area.
    private static func isCollapsed(_ uses: ArraySlice<ArcUse>, graph: ArcGraph, kept: [Bool]) -> Bool {
        var points: [TilePoint] = []
        for u in uses {
            let r = graph.range(ofArc: Int(u.arc))
            for k in r.lowerBound..<(r.upperBound - 1) where kept[k] {
                points.append(graph.points[k])
                if points.count > 64 { return false }  // far from collapsed; no need to sum its area
            }
        }
        return points.count < 3 || doubledSignedArea(points) == 0
    }

    /// The ring's smallest point (by `TilePoint.precedes`): a tie-break that does not depend on where it starts.
    private static func smallest(_ ring: [TilePoint]) -> TilePoint {
        ring.dropFirst().reduce(ring[0]) { TilePoint.precedes($1, $0) ? $1 : $0 }
    }

    /// Whether arc `a` is closed: it starts and ends at the same point, which is not a node.
    private static func isClosed(_ a: Int, _ graph: ArcGraph) -> Bool {
        let r = graph.range(ofArc: a)
        return graph.points[r.lowerBound] == graph.points[r.upperBound - 1]
            && !isNode(graph.points[r.lowerBound], graph)
    }

    /// Whether the sorted `points` hold `p`.
    private static func contains(_ points: [TilePoint], _ p: TilePoint) -> Bool {
        let lo = points.partitioningIndex { !TilePoint.precedes($0, p) }
        return lo < points.count && points[lo] == p
    }

    /// Whether `p` is one of the graph's nodes (sorted by `TilePoint.precedes`).
    private static func isNode(_ p: TilePoint, _ graph: ArcGraph) -> Bool {
        let lo = graph.nodes.partitioningIndex { !TilePoint.precedes($0, p) }
        return lo < graph.nodes.count && graph.nodes[lo] == p
    }
}
