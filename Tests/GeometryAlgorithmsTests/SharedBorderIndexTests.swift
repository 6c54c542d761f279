import KartpackTestSupport
import Testing

@testable import GeometryAlgorithms

/// The hash table and grid under the shared-border simplifier, against brute force.
@Suite struct SharedBorderIndexTests {
    @Test func pointTableNumbersKeysInFirstInsertionOrder() {
        var rng = SplitMix64(seed: 5)
        var table = PointTable(capacity: 4)  // grows many times
        var reference: [UInt64: Int32] = [:]
        var order: [UInt64] = []
        for _ in 0..<20_000 {
            let p = TilePoint(Int32.random(in: -3000...3000, using: &rng), Int32.random(in: -50...50, using: &rng))
            let key = PointTable.key(p)
            let (id, inserted) = table.insert(key)
            if let known = reference[key] {
                #expect(!inserted && id == known)
            } else {
                #expect(inserted && Int(id) == order.count)
                reference[key] = id
                order.append(key)
            }
        }
        #expect(table.count == order.count)
        for (i, key) in order.enumerated() { #expect(table.id(key) == Int32(i)) }
        #expect(table.id(PointTable.key(TilePoint(9999, 9999))) == nil)
        // Extreme coordinates and id pairs do not collide.
        #expect(PointTable.key(TilePoint(-1, 0)) != PointTable.key(TilePoint(0, -1)))
        #expect(PointTable.key(Int32(1), Int32(2)) != PointTable.key(Int32(2), Int32(1)))
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func cellGridFindsEveryOverlappingBox(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        func box(maxSize: Int32) -> GridBox {
            let a = TilePoint(Int32.random(in: -100...4200, using: &rng), Int32.random(in: -100...4200, using: &rng))
            let b = TilePoint(
                a.x + Int32.random(in: -maxSize...maxSize, using: &rng),
                a.y + Int32.random(in: -maxSize...maxSize, using: &rng))
            return GridBox(a, b)
        }
        // Mostly short boxes, a few long ones, some points.
        let boxes = (0..<3000).map { k in box(maxSize: k % 100 == 0 ? 3000 : k % 3 == 0 ? 0 : 20) }
        let queries = (0..<500).map { _ in box(maxSize: 60) }
        let grid = CellGrid(boxes: boxes, queries: queries)
        for q in queries {
            var found = Set<Int32>()
            grid.forEachCell(in: q) { _, items in for i in items where boxes[Int(i)].intersects(q) { found.insert(i) } }
            let expected = Set(boxes.indices.filter { boxes[$0].intersects(q) }.map { Int32($0) })
            #expect(found == expected)
        }
    }

    /// The ids `JunctionNoding` keeps while it inserts junctions number the new rings' points as hashing them
    /// afresh would (the same partition into equal points), so the arc graph can take them without hashing again.
    @Test(arguments: [UInt64(1), 2, 3])
    func junctionNodingKeepsVertexIdsOfItsResult(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        // Axis-parallel rings on a coarse lattice: many T-junctions, shared edges, repeated points, and short rings.
        var rings: [[TilePoint]] = []
        for k in 0..<60 {
            let x = Int32.random(in: 0...8, using: &rng) * 4, y = Int32.random(in: 0...8, using: &rng) * 4
            let w = Int32.random(in: 1...3, using: &rng) * 4, h = Int32.random(in: 1...3, using: &rng) * 4
            switch k % 10 {
            case 0: rings.append([TilePoint(x, y), TilePoint(x + w, y)])
            case 1: rings.append([TilePoint(x, y)])
            default:
                rings.append([TilePoint(x, y), TilePoint(x + w, y), TilePoint(x + w, y + h), TilePoint(x, y + h)])
            }
        }
        var ids = JunctionNoding.VertexIds(rings)
        let inserted = JunctionNoding.insertJunctions(&rings, ids: &ids)
        #expect(inserted > 0)
        let fresh = JunctionNoding.VertexIds(rings)
        #expect(ids.count == fresh.count && ids.ids.count == fresh.ids.count)
        let points = rings.filter { $0.count >= 2 }.flatMap { $0 }
        #expect(points.count == ids.ids.count)
        var byId: [Int32: TilePoint] = [:]
        var idOf: [TilePoint: Int32] = [:]
        for (p, id) in zip(points, ids.ids) {
            #expect(byId.updateValue(p, forKey: id).map { $0 == p } ?? true)
            #expect(idOf.updateValue(id, forKey: p).map { $0 == id } ?? true)
        }
        #expect(ids.ids.allSatisfy { $0 >= 0 && Int($0) < ids.count })
    }

    /// Junctions found by looking up an edge's lattice points are those the grid finds (long and diagonal edges,
    /// collinear overlaps, points on edges of their own ring).
    @Test(arguments: [UInt64(4), 5, 6])
    func junctionLookupByLatticePointsMatchesTheGrid(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var rings: [[TilePoint]] = []
        for _ in 0..<80 {
            let n = Int.random(in: 3...7, using: &rng)
            rings.append(
                (0..<n).map { _ in
                    TilePoint(Int32.random(in: 0...12, using: &rng) * 3, Int32.random(in: 0...12, using: &rng) * 2)
                })
        }
        rings = rings.map { r in r.enumerated().compactMap { k, p in k > 0 && r[k - 1] == p ? nil : p } }
        var byLattice = rings, byGrid = rings
        var latticeIds = JunctionNoding.VertexIds(byLattice), gridIds = JunctionNoding.VertexIds(byGrid)
        let a = JunctionNoding.insertJunctions(&byLattice, ids: &latticeIds, latticeFactor: 1 << 40)
        let b = JunctionNoding.insertJunctions(&byGrid, ids: &gridIds, latticeFactor: -1)
        #expect(a > 0 && a == b)
        #expect(byLattice == byGrid)
        #expect(latticeIds.ids == gridIds.ids)
    }

    /// Junctions on edges along the clip rectangle found in the sorted candidates of its line (`LineCandidates`)
    /// are those the lattice look-ups and the grid find, in the same order (a frame on the clip rectangle,
    /// rectangles along it and inside it, diagonal edges, edges running both ways).
    @Test(arguments: [UInt64(7), 8, 9])
    func junctionLookupAlongLinesMatchesTheGrid(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var rings: [[TilePoint]] = [[TilePoint(0, 0), TilePoint(96, 0), TilePoint(96, 96), TilePoint(0, 96)]]
        for k in 0..<70 {
            let x = Int32.random(in: 0...20, using: &rng) * 4, y = Int32.random(in: 0...20, using: &rng) * 4
            let w = Int32.random(in: 1...6, using: &rng) * 4, h = Int32.random(in: 1...6, using: &rng) * 4
            let (x0, y0) = (k % 7 == 0 ? 0 : x, k % 11 == 0 ? 96 - h : y)
            var ring = [TilePoint(x0, y0), TilePoint(x0 + w, y0), TilePoint(x0 + w, y0 + h), TilePoint(x0, y0 + h)]
            if k % 5 == 0 { ring = [TilePoint(x0, y0), TilePoint(x0 + w, y0 + h), TilePoint(x0, y0 + h)] }
            if k % 2 == 0 { ring.reverse() }
            rings.append(ring)
        }
        var byLine = rings, byLattice = rings, byGrid = rings
        var lineIds = JunctionNoding.VertexIds(byLine), latticeIds = JunctionNoding.VertexIds(byLattice)
        var gridIds = JunctionNoding.VertexIds(byGrid)
        let a = JunctionNoding.insertJunctions(
            &byLine, ids: &lineIds, clip: TileRect(minX: 0, minY: 0, maxX: 96, maxY: 96), latticeFactor: 1 << 40,
            lineRun: 0)
        let b = JunctionNoding.insertJunctions(&byLattice, ids: &latticeIds, latticeFactor: 1 << 40, lineRun: .max)
        let c = JunctionNoding.insertJunctions(&byGrid, ids: &gridIds, latticeFactor: -1)
        #expect(a > 20 && a == b && a == c)
        #expect(byLine == byLattice && byLine == byGrid)
        #expect(lineIds.ids == latticeIds.ids && lineIds.ids == gridIds.ids)
    }
}
