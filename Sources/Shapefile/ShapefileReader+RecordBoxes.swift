import KartpackCore

extension ShapefileReader {
    /// The box a record stores ahead of its parts and points (`Xmin, Ymin, Xmax, Ymax` after the shape type; a
    /// point's own `X, Y`), read without decoding the record, in the file's coordinates. Nil for a null shape, an
    /// unknown type, a record too short to hold it, or a box that is not finite or not ordered: the record is then
    /// read as usual. The box is the file's word for where the record lies; a damaged record whose vertices leave
    /// its box is not detected here, but by a shard plan (`RecordBoxAudit`), whose shards then read the file whole.
    func storedBox(offset: Int, length: Int) throws(ShapefileError) -> Bounds? {
        // Records come in file order: their boxes are served from the read-ahead window, not one `pread` each.
        let bytes = try shpFile.aheadBytes(at: offset + 8, count: min(length, 36))
        guard bytes.count >= 4 else { return nil }
        let type = bytes.int32LE(0)
        guard let (family, _, _) = ShapeType.describe(type) else { return nil }
        let box: Bounds
        if family == .point {
            guard bytes.count >= 20 else { return nil }
            let x = bytes.doubleLE(4)
            let y = bytes.doubleLE(12)
            box = Bounds(minX: x, minY: y, maxX: x, maxY: y)
        } else {
            guard bytes.count >= 36 else { return nil }
            box = Bounds(
                minX: bytes.doubleLE(4), minY: bytes.doubleLE(12), maxX: bytes.doubleLE(20), maxY: bytes.doubleLE(28))
        }
        guard box.minX.isFinite, box.minY.isFinite, box.maxX.isFinite, box.maxY.isFinite, box.minX <= box.maxX,
            box.minY <= box.maxY
        else { return nil }
        return box
    }
}
