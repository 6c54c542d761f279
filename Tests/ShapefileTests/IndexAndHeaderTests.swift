import Foundation
import KartpackCore
import KartpackTestSupport
import Testing

@testable import Shapefile

@Suite struct IndexAndHeaderTests {
    func threePolygons() -> ShapefileFixture {
        var f = ShapefileFixture(
            shapeType: .polygon,
            shapes: [.polygon([square(0, 0, 1)]), .polygon([square(5, 5, 2)]), .polygon([square(9, 9, 3)])])
        f.addNames()
        return f
    }

    @Test func missingSHXIsRebuiltInMemory() throws {
        var f = threePolygons()
        f.writeSHX = false
        let dir = try TemporaryDirectory(prefix: "kartpack-shp")
        let path = try f.write(to: dir.path)
        let before = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        let r = try readPath(path)
        #expect(r.features.map(\.id) == [1, 2, 3])
        #expect(r.features.map { $0.properties["NAME"] } == [.string("r1"), .string("r2"), .string("r3")])
        #expect(r.stats.repaired[.rebuiltIndex] == 1 && r.stats.recordsInFile == 3)
        #expect(r.sink.count(.rebuiltIndex) == 1)
        // Nothing was written next to the input.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == before)
    }

    @Test func truncatedOrBadMagicSHXIsRebuilt() throws {
        var truncated = threePolygons()
        truncated.truncateSHX = 100 + 8 + 3
        let a = try readFixture(truncated)
        #expect(a.features.count == 3 && a.stats.repaired[.rebuiltIndex] == 1)
        var magic = threePolygons()
        magic.shxMagic = 1234
        let b = try readFixture(magic)
        #expect(b.features.count == 3 && b.stats.repaired[.rebuiltIndex] == 1)
    }

    @Test func shxCutAtAnEntryBoundaryIsRebuilt() throws {
        var f = threePolygons()
        f.truncateSHX = 100 + 8  // one entry left; the header still claims three
        let r = try readFixture(f)
        #expect(r.features.count == 3 && r.stats.repaired[.rebuiltIndex] == 1)
    }

    @Test func shxListingFewerRecordsWarns() throws {
        var f = threePolygons()
        var (_, shx) = f.shpAndSHX()
        shx = Array(shx.prefix(100 + 16))
        shx.replaceSubrange(24..<28, with: [0, 0, 0, UInt8((100 + 16) / 2)])
        let dir = try TemporaryDirectory(prefix: "kartpack-shp")
        f.writeSHX = false
        let path = try f.write(to: dir.path)
        try Data(shx).write(to: URL(fileURLWithPath: dir.file("layer.shx")))
        let r = try readPath(path)
        #expect(r.features.count == 2 && r.sink.count(.unindexedBytes) == 1)
    }

    @Test func fifoNamedLikeAnInputIsRefusedWithoutBlocking() throws {
        var f = threePolygons()
        f.writeDBF = false
        let dir = try TemporaryDirectory(prefix: "kartpack-shp")
        let path = try f.write(to: dir.path)
        #expect(mkfifo(dir.file("layer.dbf"), 0o600) == 0)
        let error = #expect(throws: ShapefileError.self) {
            _ = try ShapefileReader(path: path, diagnostics: DiagnosticSink())
        }
        #expect(error == .notARegularFile(path: dir.file("layer.dbf"), kind: "FIFO"))
        #expect(error?.exitCode == .dataError && error?.code == .notARegularFile)
    }

    @Test func symlinkedInputIsRefused() throws {
        let dir = try TemporaryDirectory(prefix: "kartpack-shp")
        let real = try TemporaryDirectory(prefix: "kartpack-shp")
        let target = try threePolygons().write(to: real.path)
        try FileManager.default.createSymbolicLink(atPath: dir.file("layer.shp"), withDestinationPath: target)
        for ext in ["shx", "dbf"] {
            try FileManager.default.copyItem(atPath: real.file("layer.\(ext)"), toPath: dir.file("layer.\(ext)"))
        }
        let error = #expect(throws: ShapefileError.self) {
            _ = try ShapefileReader(path: dir.file("layer.shp"), diagnostics: DiagnosticSink())
        }
        #expect(error == .notARegularFile(path: dir.file("layer.shp"), kind: "symbolic link"))
        #expect(error?.exitCode == .dataError)
        #expect(error?.description.hasSuffix("[not_a_regular_file]") == true)
    }

    @Test func truncatedSHPRecordIsSkippedAsTruncated() throws {
        var f = threePolygons()
        f.writeSHX = false
        let (shp, _) = f.shpAndSHX()
        f.truncateSHP = shp.count - 20
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [1, 2])
        #expect(r.stats.skipped == [.truncated: 1])
        #expect(r.stats.warnings[.truncatedAt] == 1)
        #expect(r.diagnostics(.truncatedAt).first?.message.contains("byte \(shp.count - 20)") == true)
    }

    @Test func shxEntriesPastTheEndOfACutFileAreTruncated() throws {
        var f = threePolygons()
        let (shp, _) = f.shpAndSHX()
        f.truncateSHP = shp.count - 150  // records are 136 bytes: record 3 is gone entirely, record 2 is cut
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [1])
        #expect(r.stats.skipped == [.truncated: 2])
        #expect(r.stats.warnings[.truncatedAt] == 2 && r.sink.count(.truncatedAt) == 1)
        #expect(r.diagnostics(.truncatedAt).first?.record == 2)
    }

    @Test func badSHXEntriesAreSkipped() throws {
        var f = threePolygons()
        f.shxEntryOverrides[0] = (0, 64)  // offset 0: the file header
        f.shxEntryOverrides[1] = (20, 64)  // inside the header
        var g = threePolygons()
        g.shxEntryOverrides[2] = (1_000_000, 64)  // past the end
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [3])
        #expect(r.stats.skipped == [.badIndexEntry: 2])
        let s = try readFixture(g)
        #expect(s.features.map(\.id) == [1, 2] && s.stats.skipped == [.badIndexEntry: 1])
        #expect(s.diagnostics(.badIndexEntry).first?.record == 3)
    }

    @Test func recordNumberMismatchIsReadAndWarnedOnce() throws {
        var f = threePolygons()
        f.recordNumberOverrides[1] = 7
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [1, 2, 3])
        #expect(r.features[1].properties["NAME"] == .string("r2"))
        #expect(r.stats.skipped.isEmpty && r.stats.warnings[.recordNumberMismatch] == 1)
        #expect(r.diagnostics(.recordNumberMismatch).first?.message.contains("says record 7") == true)
    }

    @Test func recordsNumberedFromZeroLoseNothing() throws {
        var f = threePolygons()
        for i in 0..<3 { f.recordNumberOverrides[i] = Int32(i) }
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [1, 2, 3])
        #expect(r.stats.warnings[.recordNumberMismatch] == 3)
        // One diagnostic for the file, naming the first record and the count.
        let d = r.diagnostics(.recordNumberMismatch)
        #expect(d.count == 1 && d.first?.record == 1 && d.first?.message.contains("3 records in all") == true)
    }

    @Test func recordLengthMismatchIsWarnedOncePerFile() throws {
        var f = threePolygons()
        f.shxEntryOverrides[0] = (50, 70)  // the record holds 64 words; the index says 70 (still inside the file)
        f.shxEntryOverrides[1] = (50 + 4 + 64, 70)
        let r = try readFixture(f)
        #expect(r.stats.warnings[.lengthMismatch] == 2 && r.sink.count(.lengthMismatch) == 1)
        #expect(r.features.map(\.id) == [1, 2, 3])
    }

    @Test func badSHPMagicOrShortFileIsRejected() throws {
        var f = threePolygons()
        f.shpMagic = 1
        let e = try openError(f)
        #expect(e?.exitCode == .dataError)
        #expect(e?.description.contains("magic") == true)
        var short = threePolygons()
        short.truncateSHP = 60
        let s = try openError(short)
        #expect(s?.exitCode == .dataError)
        #expect(s?.description.contains("layer.shp") == true)
    }

    @Test func unknownFileTypeIsRejectedWhenNoRecordTellsTheType() throws {
        let f = ShapefileFixture(shapeTypeCode: 77, shapes: [])
        #expect(try openError(f) == .unsupportedShapeType(code: 77, file: "layer.shp"))
        let nulls = ShapefileFixture(shapeTypeCode: 77, shapes: [.null, .null])
        #expect(try openError(nulls) == .unsupportedShapeType(code: 77, file: "layer.shp"))
    }

    @Test func unknownOrNullHeaderTypeIsTakenFromTheRecords() throws {
        // GDAL reads such files by their records; so does Kartpack, with a warning.
        for code: Int32 in [77, 0] {
            let f = ShapefileFixture(shapeTypeCode: code, shapes: [.null, .polygon([square(0, 0, 1)]), .point(5, 5)])
            let r = try readFixture(f)
            #expect(r.schema.sourceShapeType == "Polygon" && r.schema.geometryKind == .polygon)
            #expect(r.features.map(\.id) == [2])
            #expect(r.stats.skipped == [.nullGeometry: 1, .typeMismatch: 1])
            let w = try #require(r.diagnostics(.headerShapeTypeFromRecords).first)
            #expect(w.message.contains(code == 0 ? "is Null" : "unknown (77)") && w.message.contains("Polygon"))
        }
    }

    @Test func missingFileIsNoInput() throws {
        let dir = try TemporaryDirectory(prefix: "kartpack-shp")
        #expect(throws: ShapefileError.self) {
            _ = try ShapefileReader(path: dir.file("nothing.shp"), diagnostics: DiagnosticSink())
        }
        do {
            _ = try ShapefileReader(path: dir.file("nothing.shp"), diagnostics: DiagnosticSink())
        } catch {
            #expect(error.exitCode == .noInput)
        }
    }

    @Test func mixedCaseExtensionsAreRead() throws {
        var f = threePolygons()
        f.extensions = ("Shp", "SHX", "Dbf", "prj", "cpg")
        let r = try readFixture(f)
        #expect(r.features.count == 3 && r.stats.repaired[.rebuiltIndex] == nil)
        #expect(r.features[2].properties["NAME"] == .string("r3"))
    }

    @Test func emptyLayerWarns() throws {
        let r = try readFixture(ShapefileFixture(shapeType: .point, shapes: []))
        #expect(r.features.isEmpty && r.stats.recordsInFile == 0)
        #expect(r.sink.count(.emptyLayer) == 1)
    }

    @Test func schemaHasNameBoundsAndCount() throws {
        var f = threePolygons()
        f.prj = Array("GEOGCS[\"WGS 84\"]".utf8)
        let r = try readFixture(f, baseName: "stands")
        #expect(r.schema.name == "stands" && r.schema.recordCount == 3 && r.schema.crs == nil)
        #expect(r.schema.bounds == Bounds(minX: 0, minY: 0, maxX: 12, maxY: 12))
        #expect(r.prjText == "GEOGCS[\"WGS 84\"]")
    }

    @Test func latin1PRJIsDecoded() throws {
        var f = threePolygons()
        f.prj = ShapefileFixture.latin1("PROJCS[\"Göteborg\"]")
        #expect(try readFixture(f).prjText == "PROJCS[\"Göteborg\"]")
    }

    @Test func hugePRJIsIgnoredWithAWarning() throws {
        var f = threePolygons()
        f.prj = [UInt8](repeating: 0x41, count: ShapefileReader.maxPRJBytes + 1)
        let r = try readFixture(f)
        #expect(r.prjText == nil && r.sink.count(.prjTooLarge) == 1)
    }

    @Test func readerIsStreamingAndStatsAreLive() throws {
        let dir = try TemporaryDirectory(prefix: "kartpack-shp")
        let path = try threePolygons().write(to: dir.path)
        let reader = try ShapefileReader(path: path, diagnostics: DiagnosticSink())
        #expect(reader.stats.recordsRead == 0 && reader.stats.recordsInFile == 3)
        _ = try reader.next()
        #expect(reader.stats.recordsRead == 1 && reader.stats.featuresEmitted == 1)
    }
}

@Suite struct LocatorTests {
    @Test func findsEveryShapefileInAFolderSortedWithCompanions() throws {
        let dir = try TemporaryDirectory(prefix: "kartpack-shp")
        var b = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        b.prj = Array("x".utf8)
        b.cpg = Array("UTF-8".utf8)
        try b.write(to: dir.path, baseName: "b")
        var a = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        a.extensions = ("SHP", "SHX", "DBF", "PRJ", "CPG")
        a.writeSHX = false
        try a.write(to: dir.path, baseName: "a")
        try Data("not a shapefile".utf8).write(to: URL(fileURLWithPath: dir.file("notes.txt")))
        let sets = try ShapefileLocator.shapefiles(at: dir.path)
        #expect(sets.map(\.baseName) == ["a", "b"])
        #expect(sets[0].shp == dir.file("a.SHP") && sets[0].shx == nil && sets[0].dbf == dir.file("a.DBF"))
        #expect(
            sets[1].prj == dir.file("b.prj") && sets[1].cpg == dir.file("b.cpg") && sets[1].shx == dir.file("b.shx"))
        let one = try ShapefileLocator.shapefiles(at: dir.file("b.shp"))
        #expect(one == [sets[1]])
    }

    @Test func errors() throws {
        let dir = try TemporaryDirectory(prefix: "kartpack-shp")
        #expect(throws: ShapefileError.noShapefiles(path: dir.path)) { try ShapefileLocator.shapefiles(at: dir.path) }
        #expect(throws: ShapefileError.fileNotFound(path: dir.file("x.shp"))) {
            try ShapefileLocator.shapefiles(at: dir.file("x.shp"))
        }
        #expect(ShapefileError.noShapefiles(path: "p").exitCode == .noInput)
    }
}
