import KartpackCore

/// What the encode phase hands the publish phase: the finished tiles of every zoom (each zoom in archive order)
/// and per-zoom statistics.
///
/// The encode phase makes zooms from the max zoom down and the archive takes them from the min zoom up, so every
/// zoom waits for the others. Once the tiles held pass `holdBytes` they go to a scratch file (`SpillFile`: no name,
/// gone on any exit) and only their places stay in memory (about 40 bytes a tile); the publish phase reads them
/// back one at a time. Without a scratch place everything is held (tests, small callers).
package final class EncodedTiles: @unchecked Sendable {
    /// Per-zoom statistics of the encode phase.
    package var stats: [Int: ZoomStats] = [:]
    private var held: [Int: [EncodedTile]] = [:]
    private var stored: [Int: [StoredTile]] = [:]
    private let scratch: ScratchPlace?
    /// Tiles held in memory up to this many bytes; past it, every held zoom goes to the scratch file.
    let holdBytes: Int
    private(set) var heldBytes = 0
    private var file: SpillFile?
    /// The zoom of the last `add`: the only one that may grow or be discarded.
    private var latestZoom: Int?

    /// Where one tile's bytes are in the scratch file.
    private struct StoredTile {
        var tile: TileCoordinate
        var offset: UInt64
        var length: Int
    }

    /// Tiles held in memory only.
    package init() {
        scratch = nil
        holdBytes = .max
    }

    /// Tiles held up to `holdBytes`, the rest in a scratch file in `scratch`'s folder.
    package init(scratch: ScratchPlace, holdBytes: Int) {
        self.scratch = scratch
        self.holdBytes = holdBytes
    }

    /// The hold of a conversion: a sixteenth of its memory budget (16 MiB by default), so small packages never
    /// touch the disk.
    package convenience init(spill: SpillSettings) {
        self.init(scratch: spill.scratch, holdBytes: spill.budget / 16)
    }

    /// Tiles in all.
    package var count: Int { held.values.reduce(0) { $0 + $1.count } + stored.values.reduce(0) { $0 + $1.count } }

    /// Bytes written to the scratch file (0 when every tile was held).
    var scratchBytes: UInt64 { file?.size ?? 0 }

    /// Adds finished tiles of zoom `z` (in archive order, after those added before; tiles without features are left
    /// out by the caller). A zoom comes in one or more calls, and only the zoom added last may get more tiles.
    package func add(_ tiles: [EncodedTile], zoom z: Int) throws(SpillError) {
        precondition(latestZoom == z || (held[z] == nil && stored[z] == nil), "zoom \(z) added after another zoom")
        latestZoom = z
        held[z, default: []] += tiles
        heldBytes += tiles.reduce(0) { $0 + $1.bytes.count }
        if heldBytes > holdBytes, scratch != nil { try spillHeld() }
    }

    /// Forgets every tile of `z`, the zoom added last (the encode phase does a thinning round again), and gives
    /// the scratch space its tiles took back: they are the end of the scratch file (see `spillHeld`).
    package func discard(zoom z: Int) throws(SpillError) {
        precondition(latestZoom == z, "only the zoom added last can be discarded")
        if let tiles = held.removeValue(forKey: z) { heldBytes -= tiles.reduce(0) { $0 + $1.bytes.count } }
        if let places = stored.removeValue(forKey: z), let first = places.first, let file {
            try file.truncate(to: first.offset)
        }
    }

    /// Writes every held zoom to the scratch file (in blocks of about 1 MiB) and forgets its bytes. The zoom added
    /// last goes last, so its tiles are always the end of the file (what `discard` relies on).
    private func spillHeld() throws(SpillError) {
        guard let scratch else { return }
        if file == nil { file = try SpillFile(folder: scratch.folder, outputName: scratch.outputName) }
        guard let file else { return }
        try scratch.checkSpace(forBytes: UInt64(heldBytes))
        for z in held.keys.sorted(by: { ($0 == latestZoom ? 1 : 0, $0) < ($1 == latestZoom ? 1 : 0, $1) }) {
            var places: [StoredTile] = []
            var block: [UInt8] = []
            var blockStart = file.size
            for t in held[z] ?? [] {
                if block.count + t.bytes.count > 1 << 20, !block.isEmpty {
                    try file.append(block)
                    block.removeAll(keepingCapacity: true)
                    blockStart = file.size
                }
                places.append(
                    StoredTile(tile: t.tile, offset: blockStart + UInt64(block.count), length: t.bytes.count))
                block.append(contentsOf: t.bytes)
            }
            if !block.isEmpty { try file.append(block) }
            stored[z, default: []] += places
        }
        held = [:]
        heldBytes = 0
    }

    /// Calls `body` with each tile of zoom `z` and its bytes, in archive order. A spilled zoom's tiles are read
    /// back a run at a time (tiles stored one after another, up to `readSpan` bytes: one read, not one per tile).
    /// A zoom's spilled tiles came before the ones still held.
    package func forEachTile(zoom z: Int, _ body: (TileCoordinate, [UInt8]) throws -> Void) throws {
        if let places = stored[z], let file {
            var start = 0
            while start < places.count {
                var end = start + 1
                var span = places[start].length
                while end < places.count, places[end].offset == places[end - 1].offset + UInt64(places[end - 1].length),
                    span + places[end].length <= Self.readSpan
                {
                    span += places[end].length
                    end += 1
                }
                let bytes = try file.read(offset: places[start].offset, count: span)
                var at = 0
                for p in places[start..<end] {
                    try body(p.tile, Array(bytes[at..<at + p.length]))
                    at += p.length
                }
                start = end
            }
        }
        for t in held[z] ?? [] { try body(t.tile, t.bytes) }
    }

    /// The most bytes of spilled tiles `forEachTile` reads at once (a larger tile is read alone).
    static let readSpan = 1 << 20

    /// Gives the scratch space back (the file has no name: closing it frees it).
    package func close() { file?.close() }
}
