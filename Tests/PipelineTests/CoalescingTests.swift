import GeometryAlgorithms
import KartpackCore
import Testing
import VectorTile

@testable import ConvertEngine

/// Coalescing thinned pieces into kept neighbours (`--coalesce`), on hand-made tiles.
@Suite struct CoalescingTests {
    private let tile = TileCoordinate(z: 10, x: 3, y: 5)

    private func square(_ x: Int32, _ y: Int32, _ side: Int32, layer: Int32 = 0, feature: Int32) -> TilePiece {
        let ring = [TilePoint(x, y), TilePoint(x + side, y), TilePoint(x + side, y + side), TilePoint(x, y + side)]
        return TilePiece(
            layer: layer, feature: feature,
            tile: tile, geometry: PieceGeometry(polygons: [[ring]]))
    }

    private func line(_ points: [(Int32, Int32)], feature: Int32) -> TilePiece {
        TilePiece(
            layer: 0, feature: feature,
            tile: tile, geometry: PieceGeometry(lines: [points.map { TilePoint($0.0, $0.1) }]))
    }

    private func polygon(_ ring: [(Int32, Int32)], layer: Int32 = 0, feature: Int32) -> TilePiece {
        TilePiece(
            layer: layer, feature: feature,
            tile: tile, geometry: PieceGeometry(polygons: [[ring.map { TilePoint($0.0, $0.1) }]]))
    }

    @Test func neighboursAreWeightedBySharedEdgesAndStayInTheirLayer() {
        // 0 (10 × 20) and 1 (20 × 20) share one edge; 1 and 2 share two (both have a vertex at (30, 10)); 3 touches
        // 0 at a corner only; 4 shares 0's left edge but lies in another layer.
        let pieces = [
            polygon([(0, 0), (10, 0), (10, 20), (0, 20)], feature: 0),
            polygon([(10, 0), (30, 0), (30, 10), (30, 20), (10, 20)], feature: 1),
            polygon([(30, 0), (40, 0), (40, 20), (30, 20), (30, 10)], feature: 2),
            square(-10, -10, 10, feature: 3),
            polygon([(-10, 0), (0, 0), (0, 20), (-10, 20)], layer: 1, feature: 4),
        ]
        let graph = Coalescing.neighbours(0..<5, pieces: pieces)
        #expect(graph.adjacent[0].map(\.piece) == [1])
        #expect(graph.adjacent[1].map(\.piece) == [0, 2])
        #expect(graph.adjacent[1].first { $0.piece == 2 }?.weight == 2)
        #expect(graph.adjacent[3].isEmpty, "a corner is not a border")
        #expect(graph.adjacent[4].isEmpty, "another layer")
    }

    @Test func linesAreNeighboursWhereTheyShareAnEndPoint() {
        let pieces = [
            line([(0, 0), (10, 0)], feature: 0), line([(10, 0), (20, 5)], feature: 1),
            line([(5, 5), (5, 20)], feature: 2),
        ]
        let graph = Coalescing.neighbours(0..<3, pieces: pieces)
        #expect(graph.adjacent[0].map(\.piece) == [1])
        #expect(graph.adjacent[2].isEmpty)
    }

    @Test func aChainOfLeftOutPiecesGoesToTheKeptOneItReaches() {
        // A row of five squares: 0 kept, 1–3 left out, 4 kept. 1 is next to 0, 3 next to 4; 2 is reached in the
        // second round from both sides with one edge each: the lower owner wins the tie.
        let pieces = (0..<5).map { square(Int32($0) * 10, 0, 10, feature: Int32($0)) }
        let graph = Coalescing.neighbours(0..<5, pieces: pieces)
        let owners = Coalescing.owners(graph, isOwner: { [0, 4].contains($0) }, isLeftOut: { (1...3).contains($0) })
        #expect(owners.map(\.piece) == [1, 3, 2], "nearest first")
        #expect(Dictionary(uniqueKeysWithValues: owners.map { ($0.piece, $0.owner) }) == [1: 0, 3: 4, 2: 0])
    }

    @Test func aLeftOutPieceGoesOnlyToAnOwnerOfItsIdentity() {
        // A row of five squares: 0 (owner A) and 4 (owner B) kept; 1 and 2 are A's, 3 is B's. Without identity 3
        // would go to 4 and 2 to 0 or 4; with it 1 and 2 go to 0, 3 to 4, and nothing crosses from A to B.
        let pieces = (0..<5).map { square(Int32($0) * 10, 0, 10, feature: Int32($0)) }
        let graph = Coalescing.neighbours(0..<5, pieces: pieces)
        let identity = [1, 1, 1, 2, 2]
        let owners = Coalescing.owners(
            graph, isOwner: { [0, 4].contains($0) }, isLeftOut: { (1...3).contains($0) },
            canJoin: { identity[$0] == identity[$1] })
        #expect(Dictionary(uniqueKeysWithValues: owners.map { ($0.piece, $0.owner) }) == [1: 0, 2: 0, 3: 4])
        // A left-out piece with no neighbour of its identity stays out, even when it touches a kept piece.
        let lonely = Coalescing.owners(
            graph, isOwner: { [0, 4].contains($0) }, isLeftOut: { (1...3).contains($0) },
            canJoin: { piece, owner in piece != 2 && identity[piece] == identity[owner] })
        #expect(lonely.map(\.piece).sorted() == [1, 3])
    }

    @Test func aLeftOutPieceTakesTheOwnerItSharesMostBorderWith() {
        // 0 (kept) touches the left-out 2 along one edge; 1 (kept) along two (2's right side is noded).
        let left = square(0, 0, 20, feature: 0)
        let right = polygon([(40, 0), (60, 0), (60, 20), (40, 20), (40, 10)], feature: 1)
        let middle = polygon([(20, 0), (40, 0), (40, 10), (40, 20), (20, 20)], feature: 2)
        let graph = Coalescing.neighbours(0..<3, pieces: [left, right, middle])
        let owners = Coalescing.owners(graph, isOwner: { $0 < 2 }, isLeftOut: { $0 == 2 })
        #expect(owners.count == 1 && owners[0].owner == 1)
    }

    @Test func mergedPolygonsAreTheirUnionAndInvalidUnionsKeepWhatStaysValid() throws {
        let kept = square(0, 0, 10, feature: 0)
        let beside = square(10, 0, 10, feature: 1)
        let merged = try #require(Coalescing.merged(kept, with: [beside]))
        #expect(merged.taken == [0])
        let polygons = merged.geometry.polygons
        #expect(polygons.count == 1 && polygons[0].count == 1)
        #expect(doubledSignedArea(polygons[0][0]) == 2 * 200)
        // An overlapping piece cannot be merged; the one beside still is.
        let overlapping = square(5, 5, 10, feature: 2)
        let partly = try #require(Coalescing.merged(kept, with: [overlapping, beside]))
        #expect(partly.taken == [1])
        #expect(Coalescing.merged(kept, with: [overlapping]) == nil)
    }

    @Test func mergedLinesBecomeOneMultiLine() throws {
        let first = line([(0, 0), (10, 0)], feature: 0)
        let merged = try #require(Coalescing.merged(first, with: [line([(10, 0), (20, 5)], feature: 1)]))
        #expect(
            merged.geometry.lines == [
                [TilePoint(0, 0), TilePoint(10, 0)], [TilePoint(10, 0), TilePoint(20, 5)],
            ])
    }
}
