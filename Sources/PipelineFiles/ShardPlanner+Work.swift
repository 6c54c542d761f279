import ConvertEngine
import Foundation
import KartpackCore
import Reprojection
import Shapefile

extension ShardPlanner {
    /// The work estimate of the build (`ShardWorkEstimate`) from every record's stored box, vertex and part counts
    /// and `.dbf` row length — no record is decoded; nil when an input is not a Shapefile set whose records and
    /// CRS can be read here (the plan then splits by the area's tiles and at the max zoom).
    package func estimateWork() -> ShardWorkEstimate? {
        let zooms = options.minZoom...max(options.minZoom, options.maxZoom)
        var work = ShardWorkEstimate(zooms: zooms, buffer: options.buffer, extent: options.extent)
        let quiet = DiagnosticSink(sampleLimit: 0)
        for input in options.inputs {
            guard let layers = try? input.inputSets() else { return nil }
            for layer in layers {
                guard case .shapefile(let set) = layer,
                    let intake = try? IntakeReader(
                        set: layer, sourceCRS: input.sourceCRS, encoding: input.encoding, diagnostics: quiet),
                    let transformer = try? CoordinateTransformer(from: intake.crs, to: .webMercator),
                    Self.addRecords(shp: set.shp, dbf: set.dbf, transformer: transformer, to: &work)
                else { return nil }
            }
        }
        return work
    }

    /// Records read and projected in one batch.
    static let batchRecords = 4096

    /// Adds the records of the `.shp` at `shp` to `work`: each record's stored box projected from its corners (a
    /// point's from itself), its vertices and parts; false when the file cannot be read or split into records.
    static func addRecords(
        shp: String, dbf: String?, transformer: CoordinateTransformer, to work: inout ShardWorkEstimate
    ) -> Bool {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: shp), options: .alwaysMapped) else { return false }
        let attributes = dbf.map(attributeBytes(dbf:)) ?? 0
        var corners: [Double] = []
        var counts: [(points: Int, parts: Int)] = []
        func flush() {
            _ = transformer.transform(&corners)
            for (i, c) in counts.enumerated() {
                var box = Bounds.empty
                for p in 0..<4 where corners[8 * i + 2 * p].isFinite && corners[8 * i + 2 * p + 1].isFinite {
                    box.include(x: corners[8 * i + 2 * p], y: corners[8 * i + 2 * p + 1])
                }
                work.add(box: box, points: c.points, parts: c.parts, attributeBytes: attributes)
            }
            corners.removeAll(keepingCapacity: true)
            counts.removeAll(keepingCapacity: true)
        }
        let whole = data.withUnsafeBytes { b -> Bool in
            var at = 100
            while at + 8 <= b.count {
                let words = Int(UInt32(bigEndian: b.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)))
                let content = at + 8
                let end = content + 2 * words
                guard end <= b.count else { return false }
                if let r = record(b, from: content, to: end) {
                    corners += [r.box.minX, r.box.minY, r.box.maxX, r.box.minY, r.box.maxX, r.box.maxY]
                    corners += [r.box.minX, r.box.maxY]
                    counts.append((r.points, r.parts))
                    if counts.count == batchRecords { flush() }
                }
                at = end
            }
            return true
        }
        flush()
        return whole
    }

    /// A record's stored box (a point's own coordinates), vertices and parts; nil for a null or short record.
    static func record(_ b: UnsafeRawBufferPointer, from start: Int, to end: Int) -> (
        box: Bounds, points: Int, parts: Int
    )? {
        guard end - start >= 20 else { return nil }
        func double(_ at: Int) -> Double {
            Double(bitPattern: UInt64(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
        }
        func int(_ at: Int) -> Int { Int(Int32(littleEndian: b.loadUnaligned(fromByteOffset: at, as: Int32.self))) }
        func box() -> Bounds {
            Bounds(
                minX: double(start + 4), minY: double(start + 12), maxX: double(start + 20), maxY: double(start + 28))
        }
        switch int(start) {
        case 1, 11, 21:
            let (x, y) = (double(start + 4), double(start + 12))
            return (Bounds(minX: x, minY: y, maxX: x, maxY: y), 1, 1)
        case 8, 18, 28:
            guard end - start >= 40 else { return nil }
            return (box(), max(0, int(start + 36)), 1)
        case 3, 5, 13, 15, 23, 25, 31:
            guard end - start >= 44 else { return nil }
            return (box(), max(0, int(start + 40)), max(1, int(start + 36)))
        default:
            return nil
        }
    }

    /// The most bytes one `.dbf` row's attributes can take in a tile: the row's bytes (each value at most its
    /// field's width in a value table) and, per field, a key and value index pair and a value's framing.
    static func attributeBytes(dbf: String) -> Int {
        guard let handle = FileHandle(forReadingAtPath: dbf), let head = try? handle.read(upToCount: 32),
            head.count == 32
        else { return 0 }
        try? handle.close()
        let header = Int(UInt16(head[8]) | UInt16(head[9]) << 8)
        let row = Int(UInt16(head[10]) | UInt16(head[11]) << 8)
        let fields = max(0, (header - 33) / 32)
        return row + fields * 12
    }
}
