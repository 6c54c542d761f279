import Foundation
import KartpackCore
import TileArchive

/// Tile-level incremental encoding (`kartpack run`): last night's tile index (`TileIndex`) and package, and the
/// index tonight's build makes.
///
/// The read, feature and order phases run on every feature, so every decision that spans tiles (the drop order,
/// each zoom's cut-off, `max-points`, `--max-zoom auto`, the metadata's counts) is made as in a full build. Before
/// a batch of tiles is prepared, each tile's signature (`TileSignature`) is compared with last night's: a tile whose
/// signature is unchanged is not prepared or encoded, its stored bytes are copied from the previous package (checked
/// against the index's digest) and its share of the zoom's statistics taken from the index; the other tiles go
/// through the encode passes as always. So the package is byte-identical to a full build.
///
/// Every tile is encoded (the build is full, `fullReason`) when there is no usable index or package, when the
/// build's settings differ (`settingsDigest`), and per tile when copying could differ from encoding: a tile over a
/// limit at a zoom that may still be thinned (its fitting cut-off needs its encoding), and every tile of a zoom that
/// coalesces left-out pieces (what a feature merged into counts once per zoom).
package final class TileReuse: @unchecked Sendable {
    /// Why every tile is encoded; nil while unchanged tiles are copied.
    package private(set) var fullReason: String?
    private var previous: [TileCoordinate: TileIndexEntry] = [:]
    private var previousSettings: TileDigest?
    private var package: (any TileArchiveReading)?
    /// The digest of tonight's settings (set by `begin`).
    package private(set) var settings = TileDigest(high: 0, low: 0)
    /// Tonight's entries of each zoom's current round, and whether each was copied.
    var entries: [Int: [(entry: TileIndexEntry, copied: Bool)]] = [:]
    /// Signatures of the tiles of the current batch that go to the encode passes, and their `keptPieces`.
    var pending: [TileCoordinate: TileDigest] = [:]
    var pendingPieces: [TileCoordinate: Int] = [:]
    /// Tiles whose signature was taken from the index without being made (`unsignedRule`), each once.
    var unsignedTiles: Set<TileCoordinate> = []
    /// `KARTPACK_CHECK_UNSIGNED` set: such signatures are made all the same, and a build whose signature differs
    /// fails (the tests' check of the rule).
    package let checkUnsigned = ProcessInfo.processInfo.environment["KARTPACK_CHECK_UNSIGNED"] != nil
    /// `KARTPACK_NO_WHOLE_ZOOMS` set: a night encodes no zoom whole (`encodesWhole`), so the tests reach the paths
    /// of a thinned zoom that copies (a replayed first round, one that finds no tile over a limit).
    let noWholeZooms = ProcessInfo.processInfo.environment["KARTPACK_NO_WHOLE_ZOOMS"] != nil
    /// Last night's first rounds of thinned zooms (`RoundZeroEntry`), and the zooms they are of.
    var previousRoundZero: [TileCoordinate: RoundZeroEntry] = [:]
    var roundZeroZooms: Set<Int> = []
    /// Tonight's first-round entries, by zoom (kept for the zooms that were thinned, `endZoom`), and the tiles
    /// whose first round was replayed from the index rather than encoded (also when the round then ran again
    /// because it found no tile over a limit); a tile counts once, however often its zoom started again (a
    /// deferred round over a limit after all).
    var roundZero: [Int: [RoundZeroEntry]] = [:]
    var replayed: Set<TileCoordinate> = []
    /// Whether the current round is the first of a zoom that may be thinned.
    var firstRound = false
    /// The zooms encoded whole (`encodesWhole`): every tile encoded, the batches held across rounds.
    var wholeZooms: Set<Int> = []
    /// The current zoom's tiles' piece digests (`TileSignature.parts`), kept from the round that signed them for
    /// its later rounds (`PartsCache`).
    var parts = PartsCache()
    /// The features whose pieces at the lazy zooms stayed in the store, and the tiles tonight's changes touch there
    /// (`LazyPieces`; nil: none), the current lazy zoom's copies, and the tiles copied so, unread.
    var lazy: LazyPieces?
    var unread = UnreadCopies()
    var copiedUnread = 0
    /// Checking (`KARTPACK_CHECK_UNSIGNED`): the tiles of lazy zooms found unchanged that no change touched.
    var checkedUnread: Set<TileCoordinate> = []

    /// The zooms whose tiles not dirtied last night's pieces may stay unread (`LazyPieces`): those above every
    /// zoom last night thinned; none without a usable index.
    package func lazyZooms(maxZoom: Int) -> ZoomSet {
        guard isActive, let top = previous.keys.map(\.z).max() else { return ZoomSet() }
        let thinned = roundZeroZooms.max() ?? -1
        return ZoomSet((thinned + 1)...max(thinned + 1, min(top, maxZoom)))
    }

    /// Last night's entries of zoom `z`.
    func previous(zoom z: Int) -> [TileIndexEntry] { previous.values.filter { $0.tile.z == z } }

    /// Checking: every tile of lazy zoom `z` that no change touched was found unchanged (none vanished).
    func checkUnread(zoom z: Int) throws {
        guard let lazy, lazy.checking, lazy.zooms.contains(z) else { return }
        let dirty = lazy.dirty[z] ?? []
        for e in previous(zoom: z) where !dirty.contains(e.tile) && !checkedUnread.contains(e.tile) {
            throw TileReuseError.lazyCheckFailed("tile \(e.tile) is gone but no change touched it")
        }
    }

    /// A full build that records tonight's index (`--full`, or no usable index: `reason`).
    package init(fullBecause reason: String) { fullReason = reason }

    /// A build that copies the tiles of `package` whose signature `index` holds.
    package init(index: TileIndex, package: any TileArchiveReading) {
        self.package = package
        previousSettings = index.settings
        for e in index.entries { previous[e.tile] = e }
        for e in index.roundZero {
            previousRoundZero[e.tile] = e
            roundZeroZooms.insert(e.tile.z)
        }
    }

    /// Whether unchanged tiles are copied.
    var isActive: Bool { fullReason == nil }

    /// Compares tonight's settings with the index's; other settings make the build full.
    func begin(_ s: EncodeSettings) {
        settings = Self.settingsDigest(s)
        if isActive, previousSettings != settings {
            fullReason = "the options, output layers, Kartpack version or output format differ from the last build's"
        }
        if !isActive { package = nil }
    }

    /// Everything of the encode settings that reaches a tile's bytes, with the Kartpack version and its output
    /// format (`OutputFormat.version`, raised with every change of the bytes Kartpack writes for the same input),
    /// so a rebuild of the same source keeps the index and another encoder does not.
    static func settingsDigest(_ s: EncodeSettings) -> TileDigest {
        var h = TileHasher()
        h.add(Int(TileIndex.version))
        h.add(text: Kartpack.version)
        h.add(OutputFormat.version)
        h.add(s.layerNames.count)
        for name in s.layerNames { h.add(text: name) }
        for v in [s.extent, s.maxTileBytes, s.maxTileFeatures, s.maxZoom] { h.add(v) }
        h.add(text: String(describing: s.compression))
        h.add(text: String(describing: s.sharedBorders))
        h.add(text: String(describing: s.thinning))
        h.add(text: String(describing: s.maxPoints))
        h.add(text: String(describing: s.coalesce))
        h.add(text: String(describing: s.smallFeatures))
        return h.finish()
    }

    /// A new round of zoom `z` (the first, or another after thinning): forgets what the round before recorded.
    /// `first`: the zoom's first round, where it may still be thinned (its answers are kept, `RoundZeroEntry`).
    func beginRound(zoom z: Int, first: Bool = false) {
        entries[z] = []
        firstRound = first
        if first {
            roundZero[z] = []
            // Last night thinned the zoom (more rounds likely), and its tiles are signed, not encoded whole.
            parts = PartsCache(on: isActive && roundZeroZooms.contains(z) && !wholeZooms.contains(z))
        }
    }

    /// Zoom `z` is done; `thinned`: it took more than one round (its first round's answers go into the index).
    func endZoom(_ z: Int, thinned: Bool) {
        firstRound = false
        parts = PartsCache()
        if !thinned { roundZero[z] = nil }
    }

    /// Splits a merged batch of zoom `z` into the tiles to encode (returned as a batch) and the tiles copied from
    /// the previous package (`ReusedTiles`), recording the copied tiles' entries. `unchanged`: per output layer
    /// and feature, whether last night's package had the feature as it is (`PieceReuse.claim`; empty: none).
    /// (A zoom encoded whole, `encodesWhole`, is signed by `signWhole`: every tile to encode.)
    func split(
        _ read: ZoomStream.Batch, selection: ZoomSelection, records: [RecordTable], highest: [[Int8]],
        identities: [[Int32]], unchanged: [[Bool]] = [], thinnable: Bool, coalescing: Bool, workers: ParallelTiles,
        limits: (bytes: Int, features: Int)
    ) throws -> (ZoomStream.Batch, ReusedTiles) {
        let (pieces, runs) = (read.pieces, read.runs)
        let keepsEvery = selection.keepsEvery
        let unsigned = unsignedRule(keepsEvery: keepsEvery, identities: identities, unchanged: unchanged)
        let signatures = try sign(
            read, selection: selection, records: records, highest: highest, identities: identities,
            workers: workers, unsigned: unsigned)
        var dirty = read
        dirty.runs = []
        var reused = ReusedTiles(pieces: pieces)
        pending = [:]
        pendingPieces = [:]
        for (i, run) in runs.enumerated() {
            guard let made = signatures[i] else {
                dirty.runs.append(run)
                continue
            }
            let (signature, skipped) = (made.signature, made.unsigned)
            let tile = pieces[run.lowerBound].tile
            if skipped { unsignedTiles.insert(tile) }
            // (A zoom thinned tonight: the unchecked build builds the night again in full; nothing to check.)
            if keepsEvery, let lazy, lazy.checking, lazy.zooms.contains(tile.z),
                lazy.dirty[tile.z]?.contains(tile) != true
            {
                checkedUnread.insert(tile)
                guard previous[tile]?.signature == signature else {
                    throw TileReuseError.lazyCheckFailed("tile \(tile) changed but no change touched it")
                }
            }
            if isActive, !(coalescing && selection.order != nil), var e = previous[tile],
                e.signature == signature,
                !(thinnable && (e.length > limits.bytes || e.features > limits.features))
            {
                reused.add(try copy(e), entry: e, position: i, run: run)
                // Over a limit where nothing more can be dropped (the max zoom): counted as an encoded tile is.
                if e.length > limits.bytes || e.features > limits.features {
                    reused.over += 1
                    reused.overBytes = reused.overBytes || e.length > limits.bytes
                }
                e.keptPieces = keepsEvery ? run.count : -1
                noteCopied(e)
            } else {
                reused.positions[tile] = i
                pending[tile] = signature
                pendingPieces[tile] = keepsEvery ? run.count : -1
                dirty.runs.append(run)
            }
        }
        return (dirty, reused)
    }

    /// When a tile's signature need not be made (`unsigned`): at a selection that keeps every piece
    /// (`keepsEvery`), without coalescing classes, a tile whose every piece is of a feature last night's package
    /// had as it is (`unchanged`: same pieces, same record, `PieceReuse.featureDigest`) and that has as many pieces
    /// as last night, when it was signed at such a selection too (`TileIndexEntry.keptPieces`), is made of last
    /// night's pieces and records, each feature's flags there (kept, highest zoom) following from its own pieces:
    /// its signature is last night's. Returns that rule (last night's signature, or nil: sign the tile), nil when
    /// no tile can be left unsigned.
    func unsignedRule(
        keepsEvery: Bool, identities: [[Int32]], unchanged: [[Bool]]
    ) -> UnsignedRule? {
        guard isActive, keepsEvery, identities.allSatisfy(\.isEmpty),
            unchanged.contains(where: { !$0.isEmpty })
        else { return nil }
        let previous = previous
        return { run, pieces in
            guard let e = previous[pieces[run.lowerBound].tile], e.keptPieces == run.count else { return nil }
            for p in pieces[run] {
                let (l, f) = (Int(p.layer), Int(p.feature))
                guard l < unchanged.count, f < unchanged[l].count, unchanged[l][f] else { return nil }
            }
            return e.signature
        }
    }

    /// The tile of `e` as the previous package stores it, checked against the index.
    func copy(_ e: TileIndexEntry) throws -> EncodedTile {
        guard e.features > 0 else { return EncodedTile(tile: e.tile, bytes: [], features: 0) }
        let bytes = try package?.storedTile(e.tile) ?? []
        guard bytes.count == e.length, TileDigest.of(bytes) == e.bytes else {
            throw TileReuseError.packageChanged(tile: e.tile.description)
        }
        return EncodedTile(tile: e.tile, bytes: bytes, features: e.features)
    }

    /// Records tonight's entry of a tile copied from the previous package; in a first round, also as its answer
    /// (not over a limit: a zoom that may be thinned copies no such tile).
    func noteCopied(_ e: TileIndexEntry) {
        if firstRound {
            roundZero[e.tile.z, default: []].append(
                RoundZeroEntry(tile: e.tile, signature: e.signature, flags: 0, fitRank: 0))
        }
        entries[e.tile.z, default: []].append((e, true))
    }

    /// Records the tiles the encode passes made of `batch` (`tiles` in its runs' order) with their small-feature
    /// counts (empty when off).
    func noteEncoded(
        _ batch: EncodeBatch, tiles: [EncodedTile], small: [[Int32: SmallFeatureReduction.Counts]],
        firstRound answers: FirstRoundAnswers? = nil
    ) {
        for (i, t) in tiles.enumerated() {
            guard let signature = pending.removeValue(forKey: t.tile) else { continue }
            if firstRound, let answers { noteFirstRound(batch, tile: i, t, signature: signature, answers: answers) }
            let entry = Self.entry(
                t, tile: i, signature: signature, keptPieces: pendingPieces.removeValue(forKey: t.tile) ?? -1,
                fallbacks: batch.tileFallbacks, small: small)
            entries[t.tile.z, default: []].append((entry, false))
        }
    }

    /// The index entry of `t`, tile `i` of its batch, encoded from `signature` (`fallbacks` and `small`: the
    /// batch's per-tile shared-border fallbacks and small-feature counts, empty when off).
    static func entry(
        _ t: EncodedTile, tile i: Int, signature: TileDigest, keptPieces: Int, fallbacks: [Int],
        small: [[Int32: SmallFeatureReduction.Counts]]
    ) -> TileIndexEntry {
        let counts =
            i < small.count ? small[i].sorted { $0.key < $1.key }.map { (layer: $0.key, counts: $0.value) } : []
        return TileIndexEntry(
            tile: t.tile, signature: signature, features: t.features, length: t.features > 0 ? t.bytes.count : 0,
            bytes: t.features > 0 ? TileDigest.of(t.bytes) : TileDigest(high: 0, low: 0),
            sharedBorderFallbacks: i < fallbacks.count ? fallbacks[i] : 0, small: counts, keptPieces: keptPieces)
    }

    /// What tonight's build did with its tiles.
    package struct Counts: Sendable, Equatable {
        /// Tiles with features written from the encode passes, copied from the previous package, and tiles the
        /// previous package had that tonight's has not.
        package var reencoded = 0
        package var copied = 0
        package var removed = 0
        /// Tiles whose first round (at a zoom thinned last night) was not encoded: its answers came from the index.
        package var firstRoundReplayed = 0
        /// Tiles whose signature was taken from the index, not made (`unsignedRule`).
        package var unsigned = 0
        /// The zooms encoded whole (`encodesWhole`), ascending.
        package var wholeZooms: [Int] = []
        /// Tiles copied without their pieces being read (`LazyPieces`), and the zooms where tiles can be.
        package var copiedUnread = 0
        package var unreadZooms: [Int] = []
        /// Features whose pieces at those zooms stayed in the store.
        package var featuresUnread = 0
    }

    /// Tonight's counts (after the encode phase).
    package var counts: Counts {
        var c = Counts()
        var written = Set<TileCoordinate>()
        for (_, zoom) in entries {
            for (e, copied) in zoom where e.features > 0 {
                written.insert(e.tile)
                if copied { c.copied += 1 } else { c.reencoded += 1 }
            }
        }
        c.removed = previous.values.filter { $0.features > 0 && !written.contains($0.tile) }.count
        c.firstRoundReplayed = replayed.count
        c.unsigned = unsignedTiles.count
        c.wholeZooms = wholeZooms.sorted()
        c.copiedUnread = copiedUnread
        if let lazy, !lazy.checking {
            c.unreadZooms = lazy.zooms.zooms
            c.featuresUnread = lazy.features.count
        }
        return c
    }

    /// Tonight's index, for a package of `features` written features.
    package func index(features: Int) -> TileIndex {
        let all = entries.keys.sorted().flatMap { z in
            (entries[z] ?? []).map(\.entry).sorted { ($0.tile.x, $0.tile.y) < ($1.tile.x, $1.tile.y) }
        }
        let firstRounds = roundZero.keys.sorted().flatMap { z in
            (roundZero[z] ?? []).sorted { ($0.tile.x, $0.tile.y) < ($1.tile.x, $1.tile.y) }
        }
        return TileIndex(settings: settings, features: features, entries: all, roundZero: firstRounds)
    }
}

/// A tile to copy no longer has the bytes the index says: the package changed after its index was written.
package enum TileReuseError: KartpackError {
    case packageChanged(tile: String)
    /// Last night's piece store no longer reads as it did when the night began.
    case storeChanged
    /// A zoom whose unchanged pieces were left in the store (`LazyPieces`) is thinned tonight: the night is built
    /// again in full (`run` catches it).
    case lazyZoomThinned(zoom: Int)
    /// `KARTPACK_CHECK_UNSIGNED`: the lazy zooms' rule does not hold (a test's check).
    case lazyCheckFailed(String)

    package var exitCode: ExitCode { .ioError }

    package var description: String {
        switch self {
        case .packageChanged(let tile):
            "tile \(tile) of the previous package is not the one its tile index describes (the package changed "
                + "during the build); nothing was published: run again"
        case .storeChanged:
            "the previous package's piece store changed during the build; nothing was published: run again"
        case .lazyZoomThinned(let z):
            "zoom \(z) is thinned tonight but was not last night; nothing was published: run again with --full"
        case .lazyCheckFailed(let why):
            "KARTPACK_CHECK_UNSIGNED: the rule of the pieces left in the store does not hold: \(why)"
        }
    }
}
