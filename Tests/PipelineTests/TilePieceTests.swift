import GeometryAlgorithms
import KartpackCore
import Testing
import VectorTile

@testable import ConvertEngine

/// A piece is held by the million (sort runs, held batches, the piece store): its layout is part of the memory
/// budget, and its packed tile must give back every tile an archive can address.
@Suite struct TilePieceTests {
    @Test func aPieceTakesFortyEightBytes() {
        // key 8, layer 4, feature 4, tile 9 (column, row, zoom), needsRepair 1, padding 6, geometry 16.
        #expect(MemoryLayout<TilePiece>.stride == 48)
    }

    @Test func thePackedTileKeepsEveryAddressableTile() {
        let top = TileCoordinate.maxZoom
        let corners = [
            TileCoordinate(z: 0, x: 0, y: 0), TileCoordinate(z: 14, x: 8_801, y: 4_700),
            TileCoordinate(z: top, x: (1 << top) - 1, y: (1 << top) - 1),
            TileCoordinate(z: top, x: 0, y: (1 << top) - 1),
        ]
        for t in corners {
            var piece = TilePiece(tile: t, geometry: .points([TilePoint(1, 2)]), needsRepair: true)
            #expect(piece.tile == t)
            #expect(piece.needsRepair)
            piece.tile = TileCoordinate(z: 3, x: 7, y: 1)
            #expect(piece.tile == TileCoordinate(z: 3, x: 7, y: 1))
            #expect(piece.needsRepair)
        }
    }
}
