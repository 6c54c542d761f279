import GeometryAlgorithms
import KartpackCore
import VectorTile

/// The compact form of sorted tile pieces in a sort run: varints, with the tile, layer and feature written as
/// deltas from the piece before (pieces are sorted by tile key, layer, feature, so every delta is ≥ 0).
///
/// Per piece: a flag byte (bit 0: a new tile follows, bit 3: a new layer follows, bits 1–2: the MVT geometry type,
/// 0 for small-feature dust, bit 4: `TilePiece.needsRepair`), then for a new tile the key delta, x and y; for a new
/// tile or layer the layer and the feature, else the feature delta; then the geometry (`PieceGeometry`): for dust
/// its centre (zigzag), measure word, family and angle word; else the part count (0 for points and one-part
/// pieces), each part's count, the point count and the points as zigzag deltas from the one before (the first from
/// (0, 0)). Each block starts from zero, so it decodes on its own.
package struct PieceEncoder {
    private(set) var bytes: [UInt8] = []
    private var key: UInt64 = 0
    private var layer: Int32 = -1
    private var feature: Int32 = 0
    private var started = false
    /// Pieces written into this block.
    private(set) var count = 0

    package init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    package mutating func append(_ p: TilePiece) {
        let newTile = !started || p.key != key
        let newLayer = newTile || p.layer != layer
        var flags = UInt8(truncatingIfNeeded: p.type.rawValue & 3) << 1
        if newTile { flags |= 1 }
        if newLayer && !newTile { flags |= 8 }
        if p.needsRepair { flags |= 16 }
        bytes.append(flags)
        if newTile {
            Self.varint(p.key &- key, into: &bytes)
            Self.varint(UInt64(p.tile.x), into: &bytes)
            Self.varint(UInt64(p.tile.y), into: &bytes)
        }
        if newLayer {
            Self.varint(UInt64(UInt32(bitPattern: p.layer)), into: &bytes)
            Self.varint(UInt64(UInt32(bitPattern: p.feature)), into: &bytes)
        } else {
            Self.varint(UInt64(UInt32(bitPattern: p.feature &- feature)), into: &bytes)
        }
        appendGeometry(p.geometry)
        key = p.key
        layer = p.layer
        feature = p.feature
        started = true
        count += 1
    }

    private mutating func appendGeometry(_ g: PieceGeometry) {
        switch g {
        case .dust(let d):
            Self.varint(UInt64(ZigZag.encode(d.x)), into: &bytes)
            Self.varint(UInt64(ZigZag.encode(d.y)), into: &bytes)
            Self.varint(UInt64(d.measureWord), into: &bytes)
            bytes.append(d.polygon ? 0 : 1)
            Self.varint(UInt64(d.angleWord), into: &bytes)
        case .point(let q):
            bytes.append(0)  // As `points` of one point.
            appendPoints(CollectionOfOne(q))
        case .points(let p):
            bytes.append(0)
            appendPoints(p)
        case .lines(let parts), .polygons(let parts):
            Self.varint(UInt64(parts.counts.count), into: &bytes)
            for c in parts.counts { Self.varint(UInt64(c), into: &bytes) }
            appendPoints(parts.points)
        }
    }

    /// The point count, then each point as a zigzag delta from the one before (the first from the origin).
    private mutating func appendPoints(_ points: some Collection<TilePoint>) {
        Self.varint(UInt64(points.count), into: &bytes)
        var cursor = TilePoint(0, 0)
        for q in points {
            Self.varint(UInt64(ZigZag.encode(q.x &- cursor.x)), into: &bytes)
            Self.varint(UInt64(ZigZag.encode(q.y &- cursor.y)), into: &bytes)
            cursor = q
        }
    }

    @inline(__always)
    static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }
}

/// Reads back what `PieceEncoder` wrote, for one zoom level (the zoom is not stored per piece).
package struct PieceDecoder {
    package let bytes: [UInt8]
    package let zoom: Int
    private var at = 0
    /// Where the block ends in `bytes`.
    private let end: Int
    private var key: UInt64 = 0
    private var layer: Int32 = 0
    private var feature: Int32 = 0
    private var x = 0
    private var y = 0

    package init(bytes: [UInt8], zoom: Int) {
        self.init(bytes: bytes, zoom: zoom, range: 0..<bytes.count)
    }

    /// A decoder of the block that fills `range` of `bytes` (a piece store record's block, read in place).
    package init(bytes: [UInt8], zoom: Int, range: Range<Int>) {
        self.bytes = bytes
        self.zoom = zoom
        at = range.lowerBound
        end = range.upperBound
    }

    var isAtEnd: Bool { at >= end }

    /// The next piece, or nil at the end of the block.
    /// - Throws: `SpillError.corrupt` when the block ends inside a piece or a value overflows.
    package mutating func next() throws(SpillError) -> TilePiece? {
        guard let entry = try next(skipping: { _, _ in false }), case .piece(let p) = entry else { return nil }
        return p
    }

    /// One entry of a block: a whole piece, or only the layer and feature of a piece `skipping` passed over.
    package enum Entry {
        case piece(TilePiece)
        case skipped(layer: Int32, feature: Int32)
    }

    /// The next entry, or nil at the end of the block. A piece whose layer and feature `skip` accepts is passed
    /// over without decoding its geometry (no allocation): what a merge needs for pieces it will not keep.
    /// - Throws: `SpillError.corrupt` when the block ends inside a piece or a value overflows.
    package mutating func next(skipping skip: (Int32, Int32) -> Bool) throws(SpillError) -> Entry? {
        guard at < end else { return nil }
        let flags = bytes[at]
        at += 1
        if flags & 1 != 0 {
            key &+= try varint()
            x = Int(try varint())
            y = Int(try varint())
        }
        if flags & 9 != 0 {
            layer = Int32(bitPattern: UInt32(truncatingIfNeeded: try varint()))
            feature = Int32(bitPattern: UInt32(truncatingIfNeeded: try varint()))
        } else {
            feature &+= Int32(bitPattern: UInt32(truncatingIfNeeded: try varint()))
        }
        let type = MVTGeometryType(rawValue: UInt32(flags >> 1) & 3) ?? .unknown
        if skip(layer, feature) {
            try skipGeometry(type)
            return .skipped(layer: layer, feature: feature)
        }
        let tile = TileCoordinate(z: zoom, x: x, y: y)
        return .piece(
            TilePiece(
                key: key, layer: layer, feature: feature, tile: tile, geometry: try geometry(type),
                needsRepair: flags & 16 != 0))
    }

    /// The tile of the next piece, its geometry passed over (no allocation), or nil at the end of the block.
    /// - Throws: `SpillError.corrupt` when the block ends inside a piece or a value overflows.
    package mutating func nextTile() throws(SpillError) -> TileCoordinate? {
        guard try next(skipping: { _, _ in true }) != nil else { return nil }
        return TileCoordinate(z: zoom, x: x, y: y)
    }

    /// Reads a piece's geometry of MVT type `type` (dust: `unknown`).
    private mutating func geometry(_ type: MVTGeometryType) throws(SpillError) -> PieceGeometry {
        if type == .unknown {
            let x = ZigZag.decode(UInt32(truncatingIfNeeded: try varint()))
            let y = ZigZag.decode(UInt32(truncatingIfNeeded: try varint()))
            let measure = UInt32(truncatingIfNeeded: try varint())
            let polygon = try varint() == 0
            let angle = UInt16(truncatingIfNeeded: try varint())
            return .dust(SmallFeatureDust(x: x, y: y, measureWord: measure, angleWord: angle, polygon: polygon))
        }
        let m = try count()
        if type == .point && m == 0 {
            // Points: one (inline, no array) or a multipoint.
            let n = try count()
            if n == 1 { return .point(try point(after: TilePoint(0, 0))) }
            return .points(try points(n))
        }
        var counts: [UInt32] = []
        counts.reserveCapacity(m)
        for _ in 0..<m { counts.append(UInt32(truncatingIfNeeded: try varint())) }
        let points = try points(try count())
        switch type {
        case .point: return .points(points)
        case .lineString: return .lines(PieceParts(points: points, counts: counts))
        default: return .polygons(PieceParts(points: points, counts: counts))
        }
    }

    /// Reads `n` points, each a delta from the one before (the first from the origin).
    private mutating func points(_ n: Int) throws(SpillError) -> [TilePoint] {
        var points: [TilePoint] = []
        points.reserveCapacity(n)
        var cursor = TilePoint(0, 0)
        for _ in 0..<n {
            cursor = try point(after: cursor)
            points.append(cursor)
        }
        return points
    }

    /// Reads one point written as a delta from `cursor`.
    @inline(__always)
    private mutating func point(after cursor: TilePoint) throws(SpillError) -> TilePoint {
        let dx = ZigZag.decode(UInt32(truncatingIfNeeded: try varint()))
        let dy = ZigZag.decode(UInt32(truncatingIfNeeded: try varint()))
        return TilePoint(cursor.x &+ dx, cursor.y &+ dy)
    }

    /// Passes over a piece's geometry of MVT type `type`.
    private mutating func skipGeometry(_ type: MVTGeometryType) throws(SpillError) {
        if type == .unknown {
            for _ in 0..<5 { _ = try varint() }
            return
        }
        for _ in 0..<(try count()) { _ = try varint() }
        for _ in 0..<(2 * (try count())) { _ = try varint() }
    }

    /// A count of values that follow, each at least one byte.
    private mutating func count() throws(SpillError) -> Int {
        let n = Int(truncatingIfNeeded: try varint())
        guard n >= 0, n <= end - at else { throw .corrupt("count \(n) past the end of a block") }
        return n
    }

    @inline(__always)
    private mutating func varint() throws(SpillError) -> UInt64 {
        var v: UInt64 = 0
        var shift: UInt64 = 0
        while at < end {
            let b = bytes[at]
            at += 1
            guard shift < 64 else { break }
            v |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return v }
            shift += 7
        }
        throw .corrupt("varint runs past the end of a block")
    }
}
