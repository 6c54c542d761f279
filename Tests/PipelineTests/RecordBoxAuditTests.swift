import Foundation
import KartpackTestSupport
import Testing

@testable import PipelineFiles

/// The plan's audit of stored record boxes (`ShapefileRecordDigest.digestAuditingBoxes`): every sample layer's
/// boxes hold; a box that misses a vertex, a vertex that is not a number, a `.shx` that does not index the records
/// in file order and a missing `.shx` are each doubted, and the digest is the one the fingerprint uses.
@Suite struct RecordBoxAuditTests {
    /// Copies sample layer `name` into `dir`; returns the paths of its `.shp`, `.dbf` and `.shx`.
    static func copy(_ name: String, to dir: TemporaryDirectory) throws -> (shp: String, dbf: String, shx: String) {
        for ext in ["shp", "shx", "dbf"] {
            try FileManager.default.copyItem(
                atPath: RepositoryPaths.sampleForest.appendingPathComponent("\(name).\(ext)").path,
                toPath: dir.file("\(name).\(ext)"))
        }
        return (dir.file("\(name).shp"), dir.file("\(name).dbf"), dir.file("\(name).shx"))
    }

    /// Rewrites 8 bytes at `offset` of `path` with `value` (little-endian double).
    static func poke(_ path: String, at offset: Int, _ value: Double) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        withUnsafeBytes(of: value.bitPattern.littleEndian) { data.replaceSubrange(offset..<offset + 8, with: $0) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    @Test(arguments: ["kommuner", "fastigheter", "avdelningar", "hansyn", "vagar", "fornminnen"])
    func sampleBoxesHold(layer: String) throws {
        let dir = try TemporaryDirectory()
        let f = try Self.copy(layer, to: dir)
        let audited = ShapefileRecordDigest.digestAuditingBoxes(shp: f.shp, dbf: f.dbf, shx: f.shx)
        #expect(audited.boxDoubt == nil)
        #expect(audited.digest != nil)
        #expect(audited.digest == ShapefileRecordDigest.digest(shp: f.shp, dbf: f.dbf))
    }

    @Test func aBoxThatMissesAVertexOrAVertexThatIsNotANumberIsDoubted() throws {
        let dir = try TemporaryDirectory()
        let f = try Self.copy("avdelningar", to: dir)
        // Record 1 starts at byte 100: header 8, type 4, box 32, parts 4, points 4, part starts, then x, y pairs.
        let original = try Data(contentsOf: URL(fileURLWithPath: f.shp))
        let parts = Int(original[148]) | Int(original[149]) << 8
        let firstX = 100 + 8 + 44 + 4 * parts
        let minX = Double(
            bitPattern: original[(100 + 8 + 4)..<(100 + 8 + 12)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        try Self.poke(f.shp, at: 100 + 8 + 20, minX)  // Xmax = Xmin: a vertex east of Xmin leaves the box
        let lying = ShapefileRecordDigest.digestAuditingBoxes(shp: f.shp, dbf: f.dbf, shx: f.shx)
        #expect(lying.boxDoubt == "record 1's stored box does not hold its vertices")
        #expect(lying.digest != nil)

        try original.write(to: URL(fileURLWithPath: f.shp))
        try Self.poke(f.shp, at: firstX, .nan)
        let nan = ShapefileRecordDigest.digestAuditingBoxes(shp: f.shp, dbf: f.dbf, shx: f.shx)
        #expect(nan.boxDoubt == "record 1's stored box does not hold its vertices")
    }

    @Test func anIndexOutOfFileOrderOrNoIndexIsDoubted() throws {
        let dir = try TemporaryDirectory()
        let f = try Self.copy("vagar", to: dir)
        var shx = try Data(contentsOf: URL(fileURLWithPath: f.shx))
        #expect(shx.count >= 116, "two records at least")
        let first = shx[100..<108]
        shx.replaceSubrange(100..<108, with: shx[108..<116])
        shx.replaceSubrange(108..<116, with: first)
        try shx.write(to: URL(fileURLWithPath: f.shx))
        let swapped = ShapefileRecordDigest.digestAuditingBoxes(shp: f.shp, dbf: f.dbf, shx: f.shx)
        #expect(swapped.boxDoubt == "its .shx does not index the records in file order (from record 1)")
        let none = ShapefileRecordDigest.digestAuditingBoxes(shp: f.shp, dbf: f.dbf, shx: nil)
        #expect(none.boxDoubt == "it has no readable .shx")
    }
}
