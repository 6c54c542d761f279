import KartpackCore

/// A thinned zoom's tiles' piece digests (`TileSignature.parts`), kept from the round that signed them, so that
/// its later rounds (at another cut-off) only combine them at their own selection (`TileSignature.combined`): a
/// thinned tile's records and commands are hashed once per night, not once per round (a replayed first round
/// and the cut-off round each signed every tile of zooms 6–10 before).
///
/// On only for a zoom last night thinned whose tiles are signed, not encoded whole (`TileReuse.beginRound`), and
/// up to `maxPieces` pieces (about 24 bytes each). It changes no signature, only how often one is made.
struct PartsCache: Sendable {
    static let maxPieces = 1 << 21
    private(set) var on = false
    private(set) var tiles: [TileCoordinate: [SignedPiece]] = [:]
    private(set) var pieces = 0

    init(on: Bool = false) { self.on = on }

    /// Keeps `signed` as tile `tile`'s piece digests, while on and under `maxPieces`.
    mutating func keep(_ tile: TileCoordinate, _ signed: [SignedPiece]) {
        guard on, pieces + signed.count <= Self.maxPieces, tiles[tile] == nil else { return }
        tiles[tile] = signed
        pieces += signed.count
    }
}

/// A tile's signature as `TileReuse.sign` has it.
struct MadeSignature: Sendable {
    var signature: TileDigest
    /// Taken from last night's index (`TileReuse.unsignedRule`), not made.
    var unsigned: Bool
    /// The tile's piece digests when made now to be kept (`PartsCache`); nil when not to be kept, kept from an
    /// earlier round or taken.
    var parts: [SignedPiece]?
}

/// Which of last night's signatures a tile has without being signed (`TileReuse.unsignedRule`).
typealias UnsignedRule = @Sendable (Range<Int>, [TilePiece]) -> TileDigest?

extension TileReuse {
    /// The signature of every tile of `read` at `selection` (nil for an empty run): last night's where `unsigned`
    /// gives it (made all the same and compared with `KARTPACK_CHECK_UNSIGNED`), else combined from the tile's
    /// kept piece digests (`parts`) or made; those made now are kept while the cache is on (a whole zoom's are
    /// kept with its held batches instead, `signWhole`).
    func sign(
        _ read: ZoomStream.Batch, selection: ZoomSelection, records: [RecordTable], highest: [[Int8]],
        identities: [[Int32]], workers: ParallelTiles, unsigned: UnsignedRule?
    ) throws -> [MadeSignature?] {
        let keeps = parts.on
        let made = try Self.madeSignatures(
            read, selection: selection, records: records, highest: highest, identities: identities,
            workers: workers, kept: parts.tiles, handing: keeps ? .madeNow : .none, check: checkUnsigned,
            unsigned: unsigned)
        guard keeps else { return made }
        for (i, m) in made.enumerated() {
            if let p = m?.parts { parts.keep(read.pieces[read.runs[i].lowerBound].tile, p) }
        }
        return made
    }

    /// Which tiles' piece digests `madeSignatures` hands back (`MadeSignature.parts`).
    enum HandedParts {
        /// None (nothing keeps them).
        case none
        /// Those made now, to be kept for the zoom's later rounds (`PartsCache`).
        case madeNow
        /// Every tile's, made also where last night's signature is taken: a whole zoom's held batch, signed again
        /// at each later cut-off (`signWhole`).
        case every
    }

    /// The signature of every tile of `read` at `selection` (nil for an empty run), as `sign` describes, with the
    /// piece digests `handing` asks for.
    static func madeSignatures(
        _ read: ZoomStream.Batch, selection: ZoomSelection, records: [RecordTable], highest: [[Int8]],
        identities: [[Int32]], workers: ParallelTiles, kept: [TileCoordinate: [SignedPiece]],
        handing: HandedParts, check: Bool, unsigned: UnsignedRule?
    ) throws -> [MadeSignature?] {
        let (pieces, runs) = (read.pieces, read.runs)
        return try workers.map(runs.count) { i throws(PipelineError) -> MadeSignature? in
            let run = runs[i]
            guard !run.isEmpty else { return nil }
            let tile = pieces[run.lowerBound].tile
            let known = unsigned?(run, pieces)
            if let known, !check, handing != .every { return MadeSignature(signature: known, unsigned: true) }
            var made: [SignedPiece]?
            let signature: TileDigest
            if let signed = kept[tile], signed.count == run.count {
                signature = TileSignature.combined(tile, signed, selection: selection, highest: highest)
                if check {
                    let fresh = try TileSignature.of(
                        run, pieces: pieces, records: records, selection: selection, highest: highest,
                        identities: identities)
                    guard fresh == signature else {
                        throw PipelineError.tileEncoding(
                            tile: tile.description,
                            reason: "its piece digests kept from an earlier round do not give its signature "
                                + "(KARTPACK_CHECK_UNSIGNED)")
                    }
                }
            } else {
                let signed = try TileSignature.parts(run, pieces: pieces, records: records, identities: identities)
                signature = TileSignature.combined(tile, signed, selection: selection, highest: highest)
                // Handed back only to be kept: a batch's digests are not held to no purpose.
                if handing != .none { made = signed }
            }
            if check, let known, known != signature {
                throw PipelineError.tileEncoding(
                    tile: tile.description,
                    reason:
                        "made of unchanged features, but its signature is not last night's (KARTPACK_CHECK_UNSIGNED)")
            }
            return MadeSignature(signature: known ?? signature, unsigned: known != nil, parts: made)
        }
    }
}
