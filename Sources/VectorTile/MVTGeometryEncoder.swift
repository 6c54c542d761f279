import GeometryAlgorithms

/// Builds MVT geometry command streams from integer tile coordinates (formats.md §1, "Geometry command stream").
///
/// The cursor starts at (0,0) for each call (one call = one feature) and carries across parts and rings.
/// Parameters are zigzag-encoded deltas. Consecutive duplicate points are removed, so no zero-length LineTo is
/// ever written. Orientation is written as given: the `Quantizer` is responsible for exterior-positive winding.
public enum MVTGeometryEncoder {
    /// A point or multipoint: one MoveTo with one repetition per point. Empty input gives an empty stream.
    /// Points beyond `MVTCommand.maxCount` (2^29 − 1) are not written.
    public static func points(_ points: [TilePoint]) -> [UInt32] {
        guard !points.isEmpty else { return [] }
        let n = min(points.count, MVTCommand.maxCount)
        var out: [UInt32] = []
        out.reserveCapacity(1 + 2 * n)
        var cursor = TilePoint(0, 0)
        out.append(MVTCommand.moveTo.integer(count: n))
        for p in points.prefix(n) { appendDelta(&out, &cursor, p) }
        return out
    }

    /// Lines: each part becomes MoveTo(1) + LineTo(n − 1). Consecutive duplicates are removed first, and parts
    /// left with fewer than 2 distinct points are dropped.
    public static func lines(_ parts: [[TilePoint]]) -> [UInt32] {
        var out: [UInt32] = []
        var cursor = TilePoint(0, 0)
        var clean: [TilePoint] = []
        for part in parts {
            removeConsecutiveDuplicates(part, into: &clean, dropClosing: false)
            guard clean.count >= 2 else { continue }
            out.append(MVTCommand.moveTo.integer(count: 1))
            appendDelta(&out, &cursor, clean[0])
            // Lines may use several LineTo commands; split only when one would overflow the count field.
            var i = 1
            while i < clean.count {
                let n = min(clean.count - i, MVTCommand.maxCount)
                out.append(MVTCommand.lineTo.integer(count: n))
                for p in clean[i..<(i + n)] { appendDelta(&out, &cursor, p) }
                i += n
            }
        }
        return out
    }

    /// Polygons, each given as `[exterior, hole, hole, …]` without closing duplicates (one is removed if present).
    /// Each ring becomes MoveTo(1) + LineTo(n − 1) + ClosePath. Consecutive duplicates are removed; a ring left
    /// with fewer than 3 points is dropped, and an exterior dropped this way takes its holes with it.
    public static func polygons(_ polygons: [[[TilePoint]]]) -> [UInt32] {
        var out: [UInt32] = []
        var cursor = TilePoint(0, 0)
        var clean: [TilePoint] = []
        for rings in polygons {
            for (r, ring) in rings.enumerated() {
                removeConsecutiveDuplicates(ring, into: &clean, dropClosing: true)
                guard clean.count >= 3, clean.count - 1 <= MVTCommand.maxCount else {
                    if r == 0 { break }  // No exterior: the holes go too.
                    continue
                }
                out.append(MVTCommand.moveTo.integer(count: 1))
                appendDelta(&out, &cursor, clean[0])
                out.append(MVTCommand.lineTo.integer(count: clean.count - 1))
                for p in clean.dropFirst() { appendDelta(&out, &cursor, p) }
                out.append(MVTCommand.closePath.integer(count: 1))
            }
        }
        return out
    }

    @inline(__always)
    static func appendDelta(_ out: inout [UInt32], _ cursor: inout TilePoint, _ p: TilePoint) {
        out.append(ZigZag.encode(p.x &- cursor.x))
        out.append(ZigZag.encode(p.y &- cursor.y))
        cursor = p
    }

    /// Copies `ring` into `clean` without consecutive duplicates (and without closing duplicates when asked).
    static func removeConsecutiveDuplicates(_ ring: [TilePoint], into clean: inout [TilePoint], dropClosing: Bool) {
        clean.removeAll(keepingCapacity: true)
        for p in ring where clean.last != p { clean.append(p) }
        if dropClosing {
            while clean.count > 1, clean.last == clean.first { clean.removeLast() }
        }
    }
}
