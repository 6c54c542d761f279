import GeometryAlgorithms
import VectorTile

/// The MVT command stream of a piece's geometry (formats.md §1), word by word, as `MVTGeometryEncoder` writes it
/// from the same points: what `TileEncodePass` writes into a tile. The thinning model (`ThinPass`) sizes it and
/// the incremental tile signature (`TileSignature`) hashes it, both without making the array.
extension PieceGeometry {
    /// Calls `body` with each command word in order (dust: its six words, `SmallFeatureDust.commands`).
    @inline(__always)
    package func forEachCommand(_ body: (UInt32) -> Void) {
        var cursor = TilePoint(0, 0)
        @inline(__always) func delta(_ p: TilePoint) {
            body(ZigZag.encode(p.x &- cursor.x))
            body(ZigZag.encode(p.y &- cursor.y))
            cursor = p
        }
        switch self {
        case .point(let p):
            body(MVTCommand.moveTo.integer(count: 1))
            delta(p)
        case .points(let points):
            guard !points.isEmpty else { return }
            let n = min(points.count, MVTCommand.maxCount)
            body(MVTCommand.moveTo.integer(count: n))
            for p in points.prefix(n) { delta(p) }
        case .lines(let parts):
            parts.forEach { part, _ in
                body(MVTCommand.moveTo.integer(count: 1))
                delta(part[part.startIndex])
                // Split only when one LineTo would overflow the count field.
                var i = part.startIndex + 1
                while i < part.endIndex {
                    let n = min(part.endIndex - i, MVTCommand.maxCount)
                    body(MVTCommand.lineTo.integer(count: n))
                    for p in part[i..<(i + n)] { delta(p) }
                    i += n
                }
            }
        case .polygons(let parts):
            parts.forEach { ring, _ in
                body(MVTCommand.moveTo.integer(count: 1))
                delta(ring[ring.startIndex])
                body(MVTCommand.lineTo.integer(count: ring.count - 1))
                for p in ring.dropFirst() { delta(p) }
                body(MVTCommand.closePath.integer(count: 1))
            }
        case .dust(let d):
            for w in d.commands { body(w) }
        }
    }

    /// The command stream written into `out` (emptied first, its capacity kept).
    package func writeCommands(into out: inout [UInt32]) {
        out.removeAll(keepingCapacity: true)
        forEachCommand { out.append($0) }
    }

    /// The command stream as an array.
    package var commands: [UInt32] {
        var out: [UInt32] = []
        writeCommands(into: &out)
        return out
    }

    /// The number of command words.
    package var commandCount: Int {
        var n = 0
        forEachCommand { _ in n += 1 }
        return n
    }

    /// The bytes of the command stream as a packed protobuf field's content (`ProtobufWriter.packedSize`).
    package var packedCommandSize: Int {
        var n = 0
        forEachCommand { n += ProtobufWriter.varintSize(UInt64($0)) }
        return n
    }
}
