import Foundation
import GeometryOps
import KartpackCore
import Synchronization
import Testing

@testable import ConvertEngine

/// A giant polygon's descent handed out as subtrees (`TileStage.fork`, `help`): the pieces, collapsed zooms and
/// repairs are those of the descent in line, whoever cuts which subtree.
@Suite struct TileStageForkTests {
    let parameters = TilingParameters(minZoom: 0, maxZoom: 9, extent: 4096, buffer: 80, simplify: 1)

    /// A wavy ring of `n` vertices around (cx, cy), large enough to span many tiles at zooms 5–9.
    static func giant(vertices n: Int) -> Geometry {
        let (cx, cy) = (1_800_000.0, 8_300_000.0)
        var ring: [Double] = []
        for i in 0...n {
            let a = Double(i % n) / Double(n) * 2 * .pi
            let r = 300_000 * (1 + 0.05 * sin(37 * a))
            ring += [cx + r * cos(a), cy + r * sin(a)]
        }
        return Geometry.polygons([[ring]])
    }

    /// What `stage` makes of `g` (a recorded issue when rejected).
    func tiling(_ g: Geometry, _ stage: TileStage) -> TiledFeature.Tiling {
        switch stage.tile(g, zooms: parameters.minZoom...parameters.maxZoom) {
        case .tiled(let t): return t
        case .rejected(let issue):
            Issue.record("rejected: \(issue.message)")
            return TiledFeature.Tiling(zooms: 0...0)
        }
    }

    func expectSame(_ a: TiledFeature.Tiling, _ b: TiledFeature.Tiling) {
        #expect(a.pieces.count == b.pieces.count)
        #expect(a.pieces.map(\.tile) == b.pieces.map(\.tile))
        #expect(a.pieces.map(\.geometry) == b.pieces.map(\.geometry))
        #expect(a.pieces.map(\.needsRepair) == b.pieces.map(\.needsRepair))
        #expect(a.collapsedAt == b.collapsedAt)
        #expect(a.repairs == b.repairs)
    }

    /// A ring of 20,000 vertices; stages fork cuts of 2,000 or more (every cut of zooms 5–7 or so).
    let g = Self.giant(vertices: 20_000)
    let forkVertices = 2_000

    @Test func subtreesCutOnOtherThreadsGiveThePiecesOfTheDescentInLine() {
        let inLine = tiling(g, TileStage(engine: GeometryEngine(), parameters: parameters))
        #expect(inLine.pieces.count > 100)
        let stage = TileStage(engine: GeometryEngine(), parameters: parameters)
        stage.forkVertices = forkVertices
        let offers = Mutex(0)
        let p = parameters
        stage.offerSubtrees = { group in
            offers.withLock { $0 += 1 }
            // A helper with an engine of its own, on its own thread, as a worker of the team would be.
            Thread.detachNewThread {
                let helper = TileStage(engine: GeometryEngine(), parameters: p)
                helper.forkVertices = 2_000
                helper.help(group)
            }
        }
        expectSame(tiling(g, stage), inLine)
        #expect(offers.withLock { $0 } > 0)
    }

    @Test func subtreesAllTakenByAHelperFirstGiveTheSamePieces() {
        let inLine = tiling(g, TileStage(engine: GeometryEngine(), parameters: parameters))
        let stage = TileStage(engine: GeometryEngine(), parameters: parameters)
        stage.forkVertices = forkVertices
        let helper = TileStage(engine: GeometryEngine(), parameters: parameters)
        let taken = Mutex(0)
        // Runs at once on this thread: the forking stage finds every subtree taken and only waits for none.
        nonisolated(unsafe) let h = helper
        stage.offerSubtrees = { group in
            taken.withLock { $0 += 1 }
            h.help(group)
        }
        expectSame(tiling(g, stage), inLine)
        #expect(taken.withLock { $0 } > 0)
    }

    @Test func aPolygonBelowTheForkSizeIsNotOffered() {
        let stage = TileStage(engine: GeometryEngine(), parameters: parameters)
        stage.forkVertices = 20_001
        let offers = Mutex(0)
        stage.offerSubtrees = { _ in offers.withLock { $0 += 1 } }
        _ = tiling(g, stage)
        #expect(offers.withLock { $0 } == 0)
    }

    /// Two workers sharing a board (`SubtreeBoard`), as a team's chains do: the forking one cuts the helper's own
    /// forks while it waits, the helper forks smaller cuts while someone waits; the pieces are those in line.
    @Test(arguments: 0..<3)
    func workersSharingABoardGiveThePiecesOfTheDescentInLine(round: Int) {
        let inLine = tiling(g, TileStage(engine: GeometryEngine(), parameters: parameters))
        let board = SubtreeBoard()
        let p = parameters
        let posts = Mutex(0)
        func stage() -> TileStage {
            let s = TileStage(engine: GeometryEngine(), parameters: p)
            s.forkVertices = 4_000
            s.board = board
            return s
        }
        let helper = stage()
        nonisolated(unsafe) let h = helper
        let offer: @Sendable (SubtreeGroup) -> Void = { group in
            posts.withLock { $0 += 1 }
            board.post(group)
            Thread.detachNewThread { h.help(group) }
        }
        helper.offerSubtrees = offer
        let forking = stage()
        forking.offerSubtrees = offer
        expectSame(tiling(g, forking), inLine)
        #expect(posts.withLock { $0 } > 0)
    }

    /// A worker waiting for its fork's helpers cuts the subtrees of another open fork meanwhile, and returns once
    /// its own are finished.
    @Test func aWaitingWorkerCutsAnotherForksSubtrees() {
        let board = SubtreeBoard()
        let sub = Subtree(
            tile: TileCoordinate(z: 1, x: 0, y: 0), cut: g, boxes: [],
            cutBounds: Bounds(minX: 0, minY: 0, maxX: 1, maxY: 1))
        let mine = SubtreeGroup([sub], family: .polygon, top: 3, board: board)
        let other = SubtreeGroup([sub, sub], family: .polygon, top: 3, board: board)
        board.post(other)
        // A helper took this worker's only subtree and finishes it a little later.
        let (i, _) = mine.claim(byHelper: true)!
        #expect(board.someoneWaits == false)
        Thread.detachNewThread {
            while !board.someoneWaits { Thread.sleep(forTimeInterval: 0.001) }
            Thread.sleep(forTimeInterval: 0.02)
            mine.finish(i, .success(TileStage.Descent(family: .polygon, top: 3)), byHelper: true)
        }
        var helped = 0
        board.wait(for: mine) { group in
            while let (k, _) = group.claim(byHelper: true) {
                helped += 1
                group.finish(k, .success(TileStage.Descent(family: .polygon, top: 3)), byHelper: true)
            }
        }
        #expect(helped == 2 && !other.isOpen && other.isDone && mine.isDone)
        #expect(board.someoneWaits == false)
    }
}
