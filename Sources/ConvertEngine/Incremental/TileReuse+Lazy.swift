import KartpackCore
import TileArchive

/// Last night's tiles of a lazy zoom (`LazyPieces`) that no change touched, waiting to be copied in tile order,
/// and how far the zoom's copying has got.
struct UnreadCopies {
    var pending: [(key: UInt64, entry: TileIndexEntry)] = []
    var next = 0
}

extension TileReuse {
    /// Whether zoom `z`'s unchanged tiles are copied without their pieces (`LazyPieces`; not while checking, when
    /// every piece is read and every tile signed).
    func copiesUnread(zoom z: Int) -> Bool {
        guard isActive, let lazy, !lazy.checking else { return false }
        return lazy.zooms.contains(z)
    }

    /// Starts zoom `z`'s unread copies: last night's tiles of the zoom not dirty, in tonight's tile order.
    func beginUnread(zoom z: Int) {
        guard copiesUnread(zoom: z), let lazy else {
            unread = UnreadCopies()
            return
        }
        let order = FeatureSummary.orders[lazy.order]
        let dirty = lazy.dirty[z] ?? []
        unread = UnreadCopies(
            pending: previous(zoom: z).filter { !dirty.contains($0.tile) }
                .map { (order.sortKey($0.tile) ?? UInt64.max, $0) }.sorted { $0.key < $1.key })
    }

    /// `made`, the tiles of a batch of zoom `z` (in tile order), with the unread copies before the batch's last
    /// tile (`upTo`; nil: every copy left) put between them in tile order, and their share of the
    /// zoom's statistics added to `tally`. Last night's tile over a limit below the max zoom (the zoom thinned
    /// after all) throws `lazyZoomThinned`: the night is built again in full.
    func withUnread(
        _ made: [EncodedTile], zoom z: Int, upTo lastTile: TileCoordinate?, tally: inout ZoomTally,
        limits: (bytes: Int, features: Int), maxZoom: Int
    ) throws -> [EncodedTile] {
        guard copiesUnread(zoom: z), let lazy else { return made }
        let order = FeatureSummary.orders[lazy.order]
        let last = lastTile.map { order.sortKey($0) ?? UInt64.max }
        var copied: [(key: UInt64, tile: EncodedTile)] = []
        while unread.next < unread.pending.count, last.map({ unread.pending[unread.next].key <= $0 }) ?? true {
            let (key, e) = unread.pending[unread.next]
            unread.next += 1
            let over = e.length > limits.bytes || e.features > limits.features
            if over {
                guard z == maxZoom else { throw TileReuseError.lazyZoomThinned(zoom: z) }
                tally.over += 1
                tally.overBytes = tally.overBytes || e.length > limits.bytes
            }
            let tile = try copy(e)
            noteCopied(e)
            copiedUnread += 1
            if tally.addCopied(tile, entry: e) { copied.append((key, tile)) }
        }
        guard !copied.isEmpty else { return made }
        var out: [EncodedTile] = []
        out.reserveCapacity(made.count + copied.count)
        var i = 0
        for t in made {
            let key = order.sortKey(t.tile) ?? UInt64.max
            while i < copied.count, copied[i].key < key {
                out.append(copied[i].tile)
                i += 1
            }
            out.append(t)
        }
        out += copied[i...].map(\.tile)
        return out
    }
}
