import KartpackCore

/// One feature's feature-phase output as the piece store keeps it (`PieceStore`): what `FeatureChain` made of the
/// feature's geometry — its pieces and label pieces at every zoom, the repairs, the zooms where nothing was left,
/// its bounds — everything of a `TiledFeature.Tiling` except the style decisions, which are made again each night
/// (`FeatureChain.style`) and must match the stored digest of those it was tiled with.
///
/// Layout: the digest of the style decisions it was tiled with (16 bytes, `PieceReuse.styleDigest`) · what the
/// style asked of its point on surface (a byte: 0 nothing, 1 no point, 2 a point, then x and y as Float64 bit
/// patterns) · zooms (lower, upper) · bounds (4 × Float64 bit patterns) · repair count, each reason code's name ·
/// collapsed count, each zoom · for the pieces, then the label pieces: a byte 1 and their `FeatureSummary` per tile
/// order (top zoom + 1, anchor x and y, size as a Float64 bit pattern), or a byte 0 when there are none · for the
/// pieces, then the label pieces: block count, per block (one zoom) its zoom, its byte length and the pieces as
/// `PieceEncoder` writes them (layer and feature 0, a running tile key). All integers are varints.
/// `PieceStoreWriter` puts a 64-bit check of these bytes before them.
enum PieceRecord {
    /// The stored form of `tiling`; `checked`: with its 64-bit check before it, as the store keeps it
    /// (`PieceStoreWriter.append(key:checked:)`, made on the worker rather than on the collecting thread).
    /// `extent`: the tile extent the summaries' anchors are measured in.
    static func encode(
        _ tiling: TiledFeature.Tiling, style: TileDigest, extent: Int = 4096, checked: Bool = false
    ) -> [UInt8] {
        var out: [UInt8] = checked ? [UInt8](repeating: 0, count: 8) : []
        out.reserveCapacity(72 + tiling.pieces.count * 48)
        putWord(style.high, &out)
        putWord(style.low, &out)
        switch tiling.surfacePoint {
        case .notAsked, .failed: out.append(0)
        case .noPoint: out.append(1)
        case .point(let x, let y):
            out.append(2)
            putWord(x.bitPattern, &out)
            putWord(y.bitPattern, &out)
        }
        PieceEncoder.varint(UInt64(tiling.zooms.lowerBound), into: &out)
        PieceEncoder.varint(UInt64(tiling.zooms.upperBound), into: &out)
        let b = tiling.bounds
        for v in [b.minX, b.minY, b.maxX, b.maxY] { putWord(v.bitPattern, &out) }
        let repairs = tiling.repairs.sorted()
        PieceEncoder.varint(UInt64(repairs.count), into: &out)
        for r in repairs {
            let name = Array(r.rawValue.utf8)
            PieceEncoder.varint(UInt64(name.count), into: &out)
            out += name
        }
        PieceEncoder.varint(UInt64(tiling.collapsedAt.count), into: &out)
        for z in tiling.collapsedAt { PieceEncoder.varint(UInt64(z), into: &out) }
        FeatureSummary.put(tiling.pieces, extent: extent, into: &out)
        FeatureSummary.put(tiling.labelPieces, extent: extent, into: &out)
        putBlocks(tiling.pieces, &out)
        putBlocks(tiling.labelPieces, &out)
        if checked { PieceStore.seal(&out) }
        return out
    }

    /// The tiling stored in `bytes` (style decisions and warnings left empty) and the digest of the style
    /// decisions it was made with; nil when the bytes do not parse.
    static func decode(_ bytes: [UInt8]) -> (style: TileDigest, tiling: TiledFeature.Tiling)? {
        decode(bytes, from: 0)
    }

    /// `decode(_:)` of the record that starts at byte `start` of `bytes` and runs to their end.
    static func decode(_ bytes: [UInt8], from start: Int) -> (style: TileDigest, tiling: TiledFeature.Tiling)? {
        decode(bytes, from: start, leaving: ZoomSet()).map { ($0.style, $0.tiling) }
    }

    /// A record decoded but for the blocks of the zooms in `leaving`, which are only located (`StoredParts`).
    struct Decoded {
        var style: TileDigest
        var tiling: TiledFeature.Tiling
        var left: StoredParts
    }

    /// `decode(_:from:)` leaving the pieces of the zooms in `leaving` in the bytes (`Decoded.left`).
    static func decode(_ bytes: [UInt8], from start: Int, leaving: ZoomSet) -> Decoded? {
        var r = RecordReader(bytes: bytes, at: start)
        guard let high = r.word(), let low = r.word(), let surface = r.surface() else { return nil }
        var left = StoredParts()
        guard var tiling = decodeTiling(&r, leaving: leaving, left: &left) else { return nil }
        tiling.surfacePoint = surface
        return Decoded(style: TileDigest(high: high, low: low), tiling: tiling, left: left)
    }

    /// The pieces (`label`: the label pieces) of block `block` of a record (`StoredParts.blocks`), decoded from
    /// the record's bytes; nil when they do not parse.
    static func pieces(of block: StoredParts.Block, in bytes: [UInt8]) -> [TilePiece]? {
        var decoder = PieceDecoder(bytes: bytes, zoom: Int(block.zoom), range: block.bytes)
        var pieces: [TilePiece] = []
        do throws(SpillError) {
            while var p = try decoder.next() {
                p.key = 0
                pieces.append(p)
            }
        } catch {
            return nil
        }
        return pieces
    }

    private static func decodeTiling(
        _ r: inout RecordReader, leaving: ZoomSet, left: inout StoredParts
    ) -> TiledFeature.Tiling? {
        guard let lo = r.int(), let hi = r.int(), lo <= hi, let minX = r.word(), let minY = r.word(),
            let maxX = r.word(), let maxY = r.word(), let repairCount = r.count()
        else { return nil }
        var tiling = TiledFeature.Tiling(zooms: lo...hi)
        tiling.bounds = Bounds(
            minX: Double(bitPattern: minX), minY: Double(bitPattern: minY), maxX: Double(bitPattern: maxX),
            maxY: Double(bitPattern: maxY))
        for _ in 0..<repairCount {
            guard let name = r.text(), let code = ReasonCode(rawValue: name) else { return nil }
            tiling.repairs.insert(code)
        }
        guard let collapsedCount = r.count() else { return nil }
        for _ in 0..<collapsedCount {
            guard let z = r.int() else { return nil }
            tiling.collapsedAt.append(z)
        }
        guard let summaries = r.summaries(), let labelSummaries = r.summaries(),
            let pieces = r.blocks(leaving: leaving, label: false, into: &left.blocks),
            let labels = r.blocks(leaving: leaving, label: true, into: &left.blocks), r.isAtEnd
        else { return nil }
        (left.summaries, left.labelSummaries) = (summaries, labelSummaries)
        tiling.pieces = pieces
        tiling.labelPieces = labels
        return tiling
    }

    private static func putWord(_ w: UInt64, _ out: inout [UInt8]) {
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: w >> (8 * UInt64(i)))) }
    }

    /// Pieces in tile order, one block per zoom.
    private static func putBlocks(_ pieces: [TilePiece], _ out: inout [UInt8]) {
        var zooms: [(z: Int, range: Range<Int>)] = []
        var start = 0
        for i in pieces.indices where i + 1 == pieces.count || pieces[i + 1].tile.z != pieces[i].tile.z {
            zooms.append((pieces[i].tile.z, start..<(i + 1)))
            start = i + 1
        }
        PieceEncoder.varint(UInt64(zooms.count), into: &out)
        for (z, range) in zooms {
            var block = PieceEncoder(capacity: range.count * 48)
            for (n, i) in range.enumerated() {
                var p = pieces[i]
                (p.key, p.layer, p.feature) = (UInt64(n + 1), 0, 0)
                block.append(p)
            }
            PieceEncoder.varint(UInt64(z), into: &out)
            PieceEncoder.varint(UInt64(block.bytes.count), into: &out)
            out += block.bytes
        }
    }
}

/// Reads the varints, words and blocks of a `PieceRecord`; every read answers nil past the end.
private struct RecordReader {
    let bytes: [UInt8]
    var at = 0

    var isAtEnd: Bool { at == bytes.count }

    mutating func varint() -> UInt64? {
        var v: UInt64 = 0
        var shift: UInt64 = 0
        while at < bytes.count, shift < 64 {
            let b = bytes[at]
            at += 1
            v |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return v }
            shift += 7
        }
        return nil
    }

    mutating func int() -> Int? {
        guard let v = varint(), v <= UInt64(Int32.max) else { return nil }
        return Int(v)
    }

    /// A count or length: no larger than the bytes left.
    mutating func count() -> Int? {
        guard let n = int(), n <= bytes.count - at else { return nil }
        return n
    }

    mutating func word() -> UInt64? {
        guard bytes.count - at >= 8 else { return nil }
        var w: UInt64 = 0
        for i in 0..<8 { w |= UInt64(bytes[at + i]) << (8 * UInt64(i)) }
        at += 8
        return w
    }

    mutating func surface() -> SurfacePoint? {
        guard at < bytes.count else { return nil }
        at += 1
        switch bytes[at - 1] {
        case 0: return .notAsked
        case 1: return .noPoint
        case 2:
            guard let x = word(), let y = word() else { return nil }
            return .point(Double(bitPattern: x), Double(bitPattern: y))
        default: return nil
        }
    }

    mutating func text() -> String? {
        guard let n = count() else { return nil }
        defer { at += n }
        return String(decoding: bytes[at..<(at + n)], as: UTF8.self)
    }

    /// A record's summaries of its pieces, one per tile order (empty: no pieces).
    mutating func summaries() -> [FeatureSummary]? {
        guard at < bytes.count else { return nil }
        at += 1
        guard bytes[at - 1] == 1 else { return bytes[at - 1] == 0 ? [] : nil }
        var out: [FeatureSummary] = []
        for _ in FeatureSummary.orders {
            guard let top = varint(), top <= 64, let x = varint(), let y = varint(), x <= UInt32.max,
                y <= UInt32.max, let size = word()
            else { return nil }
            out.append(
                FeatureSummary(
                    top: Int8(Int(top) - 1), anchor: FeatureAnchor(x: UInt32(x), y: UInt32(y)),
                    size: Double(bitPattern: size)))
        }
        return out
    }

    /// The pieces of the blocks that follow, but for those of the zooms in `leaving`, which are appended to
    /// `left` (`label`: these are the label pieces' blocks).
    mutating func blocks(
        leaving: ZoomSet, label: Bool, into left: inout [StoredParts.Block]
    ) -> [TilePiece]? {
        guard let n = count() else { return nil }
        var pieces: [TilePiece] = []
        for _ in 0..<n {
            guard let z = int(), z <= TileCoordinate.maxZoom, let length = count() else { return nil }
            if leaving.contains(z) {
                // Walked (tiles only, no geometry), so that decoding it later cannot fail.
                var walk = PieceDecoder(bytes: bytes, zoom: z, range: at..<(at + length))
                do throws(SpillError) {
                    while try walk.nextTile() != nil {}
                } catch {
                    return nil
                }
                left.append(StoredParts.Block(zoom: Int8(z), label: label, bytes: at..<(at + length)))
                at += length
                continue
            }
            let block = StoredParts.Block(zoom: Int8(z), label: label, bytes: at..<(at + length))
            at += length
            guard let decoded = PieceRecord.pieces(of: block, in: bytes) else { return nil }
            pieces += decoded
        }
        return pieces
    }
}
