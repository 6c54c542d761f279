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
    package init(points: [TilePoint]) {
        self = points.count == 1 ? .point(points[0]) : .points(points)
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
        var parts = PieceParts()
        var clean: [TilePoint] = []
        for rings in polygons {
            for (r, ring) in rings.enumerated() {
                Self.removeDuplicates(ring, into: &clean, dropClosing: true)
                guard clean.count >= 3, clean.count - 1 <= MVTCommand.maxCount else {
                    if r == 0 { break }  // No exterior: the holes go too.
                    continue
                }
                let exterior = byStructure ? r == 0 : doubledSignedArea(clean) > 0 || parts.points.isEmpty
                parts.append(clean, exterior: exterior)
            }
        }
        self = .polygons(parts.compacted())
    }

    /// The line parts `lines`, canonical (see the type).
    package init(lines: [[TilePoint]]) {
        var parts = PieceParts()
        var clean: [TilePoint] = []
        for line in lines {
            Self.removeDuplicates(line, into: &clean, dropClosing: false)
            guard clean.count >= 2 else { continue }
            parts.append(clean, exterior: false)
        }
        self = .lines(parts.compacted())
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

    private static func removeDuplicates(_ ring: [TilePoint], into clean: inout [TilePoint], dropClosing: Bool) {
        clean.removeAll(keepingCapacity: true)
        for p in ring where clean.last != p { clean.append(p) }
        if dropClosing {
            while clean.count > 1, clean.last == clean.first { clean.removeLast() }
        }
    }
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

    mutating func append(_ part: [TilePoint], exterior: Bool) {
        points += part
        counts.append(UInt32(part.count) | (exterior ? Self.exteriorBit : 0))
    }

    /// The parts with `counts` left empty when there is one part (a polygon's first ring is its exterior).
    func compacted() -> PieceParts {
        counts.count == 1 ? PieceParts(points: points) : self
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
