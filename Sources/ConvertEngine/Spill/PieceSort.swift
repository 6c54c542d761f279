import KartpackCore
import TileArchive

/// What the held pieces are sorted by (`PackedKey`): the tile's key in the archive order, then layer (high 32 bits)
/// and feature, then the piece's place among the pieces added (so no two keys are equal and every sort gives one
/// order).
enum PieceSortKey {
    /// Sets every piece's key in `order` (an invalid tile's is `UInt64.max`) and returns the pieces' sort keys in
    /// their order, made in two parts side by side when `threads` > 1 (`ParallelSort.forEachPart`).
    static func make(_ pieces: inout [TilePiece], order: TileOrder, threads: Int) -> [PackedKey] {
        let n = pieces.count
        return [PackedKey](unsafeUninitializedCapacity: n) { keys, count in
            pieces.withUnsafeMutableBufferPointer { all in
                guard let source = all.baseAddress, let target = keys.baseAddress else { return }
                let buffers = SortBuffers(pieces: source, keys: target)
                ParallelSort.forEachPart(count: n, threads: threads) { range in
                    for i in range {
                        let p = buffers.pieces + i
                        let k = order.sortKey(p.pointee.tile) ?? UInt64.max
                        p.pointee.key = k
                        let lf =
                            UInt64(UInt32(bitPattern: p.pointee.layer)) << 32
                            | UInt64(UInt32(bitPattern: p.pointee.feature))
                        (buffers.keys + i).initialize(to: PackedKey(first: k, second: lf, index: i))
                    }
                }
            }
            count = n
        }
    }
}

extension PieceSpool {
    /// The pieces in the order of `sortedIndices` (each piece's key set), moved rather than copied (no reference
    /// counting per piece), on two threads when `threads` > 1; `pieces` is left empty.
    static func sorted(_ pieces: inout [TilePiece], order: TileOrder, threads: Int = 1) -> [TilePiece] {
        var keys = PieceSortKey.make(&pieces, order: order, threads: threads)
        // Only the indices are kept past the sort (a third of the keys' bytes beside the two arrays of pieces).
        let permutation = ParallelSort.sorted(&keys, threads: threads) { $0.index }
        let n = pieces.count
        let sorted = [TilePiece](unsafeUninitializedCapacity: n) { out, count in
            pieces.withUnsafeMutableBufferPointer { all in
                permutation.withUnsafeBufferPointer { indices in
                    guard let source = all.baseAddress, let target = out.baseAddress,
                        let firstIndex = indices.baseAddress
                    else { return }
                    let moves = PermutationMoves(source: source, target: target, indices: firstIndex)
                    ParallelSort.forEachPart(count: n, threads: threads) { range in
                        for p in range {
                            (moves.target + p).initialize(to: (moves.source + moves.indices[p]).move())
                        }
                    }
                    // Every piece was moved out: the slots get a piece that holds no reference, so freeing the
                    // array releases nothing.
                    source.initialize(repeating: Self.placeholder, count: n)
                }
            }
            count = n
        }
        pieces = []
        return sorted
    }

    /// A piece without heap storage, for slots whose piece was moved out.
    private static let placeholder = TilePiece(
        tile: TileCoordinate(z: 0, x: 0, y: 0),
        geometry: .dust(SmallFeatureDust(x: 0, y: 0, measureWord: 0, angleWord: 0, polygon: false)))
}

/// The buffers `PieceSortKey.make` fills, each part of the work its own range of both.
private struct SortBuffers: @unchecked Sendable {
    let pieces: UnsafeMutablePointer<TilePiece>
    let keys: UnsafeMutablePointer<PackedKey>
}

/// The pieces moved into sorted order: `target[p]` is `source[indices[p]]`, each part of the work its own range of
/// `target` (the indices are a permutation, so no source piece is moved twice).
private struct PermutationMoves: @unchecked Sendable {
    let source: UnsafeMutablePointer<TilePiece>
    let target: UnsafeMutablePointer<TilePiece>
    let indices: UnsafePointer<Int>
}
