import GeometryAlgorithms
import VectorTile

/// The geometry of one tile piece in integer tile units (y down, `0...extent` the tile), the one form a piece keeps
/// from the tile clip (`TileStage`) through the encode passes (shared borders, small features, coalescing) and the
/// spill (`PieceEncoder`) to the MVT encoder (`TileEncodePass`), which alone turns it into MVT commands.
///
/// Lines and polygons are held canonical: as the MVT encoder would write them and a reader would read them back
/// (consecutive duplicate points and closing points removed, line parts of fewer than 2 points and rings of fewer
/// than 3 dropped, an exterior dropped with its holes; a ring of positive signed area starts a polygon, any other
/// is a hole of the polygon before). So a pass that works on rings sees exactly what it saw when pieces were held
/// as MVT commands and decoded, and the tile bytes are the same.
///
/// A single point is held inline (`point`): no array, so a point piece costs no allocation to make, copy, spill or
/// free (a place is one piece at every zoom). It is the same geometry as `points` of that one point: equal to it,
/// with the same MVT commands and spilled bytes; `init(points:)` makes the canonical one.
package enum PieceGeometry: Sendable, Equatable {
    /// One point (see the type).
    case point(TilePoint)
    /// A multipoint, as given (or no point); one point is `point` when made by `init(points:)`.
    case points([TilePoint])
    /// Line parts, each of at least 2 points.
    case lines(PieceParts)
    /// Polygons, each an exterior and its holes, rings open.
    case polygons(PieceParts)
    /// A piece too small to draw at its zoom, handed to small-feature reduction (never written as such).
    case dust(SmallFeatureDust)

    /// The points `points`: `point` for one.
    package init(points: some Collection<TilePoint>) {
        if points.count == 1, let p = points.first {
            self = .point(p)
        } else {
            self = .points(Array(points))
        }
    }

    /// Equal geometries: `point(p)` and `points([p])` are the same one.
    package static func == (a: PieceGeometry, b: PieceGeometry) -> Bool {
        switch (a, b) {
        case (.point(let p), .point(let q)): p == q
        case (.point(let p), .points(let q)), (.points(let q), .point(let p)): q.count == 1 && q[0] == p
        case (.points(let p), .points(let q)): p == q
        case (.lines(let p), .lines(let q)), (.polygons(let p), .polygons(let q)): p == q
        case (.dust(let p), .dust(let q)): p == q
        default: false
        }
    }

    /// The polygons `polygons` (`[exterior, holes…]`), canonical (see the type).
    package init(polygons: [[[TilePoint]]]) {
        self.init(polygons, byStructure: false)
    }

    /// The polygons `polygons` of a piece whose repair waits for the shared-border pass (`TilePiece.needsRepair`):
    /// duplicates removed as in `init(polygons:)`, but each polygon's first ring stays its exterior and the others
    /// its holes, whatever their signed areas (a ring crossing itself may have any).
    package init(unrepaired polygons: [[[TilePoint]]]) {
        self.init(polygons, byStructure: true)
    }

    /// Polygons with duplicates removed, short rings dropped (an exterior with its holes); a ring starts a polygon
    /// when it is first in `polygons`' structure (`byStructure`) or else when its signed area is positive.
    private init(_ polygons: [[[TilePoint]]], byStructure: Bool) {
        var parts = PartsBuilder(capacity: polygons.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } })
        for rings in polygons {
            for (r, ring) in rings.enumerated() {
                let clean = parts.add(ring, dropClosing: true)
                guard clean.count >= 3, clean.count - 1 <= MVTCommand.maxCount else {
                    parts.dropLast()
                    if r == 0 { break }  // No exterior: the holes go too.
                    continue
                }
                let exterior = byStructure ? r == 0 : doubledSignedArea(clean) > 0 || parts.isFirst
                parts.keepLast(exterior: exterior)
            }
        }
        self = .polygons(parts.built)
    }

    /// The line parts `lines`, canonical (see the type).
    package init(lines: [[TilePoint]]) {
        var parts = PartsBuilder(capacity: lines.reduce(0) { $0 + $1.count })
        for line in lines {
            guard parts.add(line, dropClosing: false).count >= 2 else {
                parts.dropLast()
                continue
            }
            parts.keepLast(exterior: false)
        }
        self = .lines(parts.built)
    }

    /// The MVT geometry type (`unknown` for dust).
    package var type: MVTGeometryType {
        switch self {
        case .point, .points: .point
        case .lines: .lineString
        case .polygons: .polygon
        case .dust: .unknown
        }
    }

    /// True when nothing is left to write.
    package var isEmpty: Bool {
        switch self {
        case .point: false
        case .points(let p): p.isEmpty
        case .lines(let parts), .polygons(let parts): parts.points.isEmpty
        case .dust: false
        }
    }

    /// The first point written (dust: its centre), nil when empty.
    package var firstPoint: TilePoint? {
        switch self {
        case .point(let p): p
        case .points(let p): p.first
        case .lines(let parts), .polygons(let parts): parts.points.first
        case .dust(let d): TilePoint(d.x, d.y)
        }
    }

    /// Polygons as `[exterior, holes…]` (empty for other geometries).
    package var polygons: [[[TilePoint]]] {
        guard case .polygons(let parts) = self else { return [] }
        var out: [[[TilePoint]]] = []
        parts.forEach { ring, exterior in
            if exterior || out.isEmpty { out.append([Array(ring)]) } else { out[out.count - 1].append(Array(ring)) }
        }
        return out
    }

    /// Line parts (empty for other geometries).
    package var lines: [[TilePoint]] {
        guard case .lines(let parts) = self else { return [] }
        var out: [[TilePoint]] = []
        parts.forEach { part, _ in out.append(Array(part)) }
        return out
    }

    /// Roughly what the geometry costs on the heap beyond its enum: its arrays' elements, headers and malloc words.
    var heapBytes: Int {
        switch self {
        case .point: 0
        case .points(let p): 48 + 8 * p.capacity
        case .lines(let parts), .polygons(let parts):
            48 + 8 * parts.points.capacity + (parts.counts.isEmpty ? 0 : 48 + 4 * parts.counts.capacity)
        case .dust: 0
        }
    }

}

/// Builds `PieceParts` part by part: the points go straight into the one array, reserved once (duplicates removed
/// as they come, no buffer per ring), and the counts array is made only for a second part (most pieces have one:
/// `PieceParts` leaves it empty then). `add` appends a part's points, then `keepLast` or `dropLast` settles it.
private struct PartsBuilder {
    private var points: [TilePoint] = []
    private var counts: [UInt32] = []
    /// The word of the first part kept, until a second one makes `counts`.
    private var first: UInt32 = 0
    private var kept = 0
    /// Where the part `add` appended starts.
    private var start = 0

    init(capacity: Int) { points.reserveCapacity(capacity) }

    /// True while no part is kept.
    var isFirst: Bool { kept == 0 }

    /// Appends `part` without its consecutive duplicate points (with `dropClosing`, also without the points at its
    /// end that repeat its first) and returns what is left of it.
    mutating func add(_ part: [TilePoint], dropClosing: Bool) -> ArraySlice<TilePoint> {
        start = points.count
        for p in part where points.count == start || points[points.count - 1] != p { points.append(p) }
        if dropClosing {
            while points.count - start > 1, points[points.count - 1] == points[start] { points.removeLast() }
        }
        return points[start...]
    }

    /// Removes the part `add` appended.
    mutating func dropLast() { points.removeSubrange(start...) }

    /// Keeps the part `add` appended.
    mutating func keepLast(exterior: Bool) {
        let word = UInt32(points.count - start) | (exterior ? PieceParts.exteriorBit : 0)
        kept += 1
        if kept == 1 {
            first = word
        } else {
            if kept == 2 { counts = [first] }
            counts.append(word)
        }
    }

    /// The parts kept (`counts` empty for one part).
    var built: PieceParts { PieceParts(points: points, counts: counts) }
}

/// The points of a piece's line parts or polygon rings in one array, part after part, with the parts' lengths.
package struct PieceParts: Sendable, Equatable {
    /// Every point, part after part (rings open).
    package var points: [TilePoint] = []
    /// Per part its point count, with bit 31 set on a ring that starts a polygon (an exterior). Empty when there
    /// is one part (for polygons: one exterior) holding every point, as most pieces are: no second array.
    package var counts: [UInt32] = []

    static let exteriorBit: UInt32 = 1 << 31

    package init(points: [TilePoint] = [], counts: [UInt32] = []) {
        self.points = points
        self.counts = counts
    }

    /// Calls `body` with each part and whether it starts a polygon (true for the one part of a compact piece).
    @inline(__always)
    package func forEach(_ body: (ArraySlice<TilePoint>, Bool) -> Void) {
        guard !counts.isEmpty else {
            if !points.isEmpty { body(points[...], true) }
            return
        }
        var start = 0
        for c in counts {
            let n = Int(c & ~Self.exteriorBit)
            body(points[start..<(start + n)], c & Self.exteriorBit != 0)
            start += n
        }
    }
}
