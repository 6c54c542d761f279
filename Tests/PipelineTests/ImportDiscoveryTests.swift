import Foundation
import Glibc
import KartpackCore
import KartpackTestSupport
import Shapefile
import Testing

@testable import Import

/// Creates the files (with `data`) and folders under `root`.
private func makeTree(_ root: String, _ files: [String], data: [UInt8] = [1]) throws {
    for f in files {
        let path = root + "/" + f
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(data).write(to: URL(fileURLWithPath: path))
    }
}

@Suite struct ImportDiscoveryTests {
    @Test func findsSetsInNestedFoldersWithCaseInsensitiveExtensions() throws {
        let dir = try TemporaryDirectory(prefix: "kp-discovery")
        try makeTree(
            dir.path,
            [
                "top.shp",
                "Export/Roads.SHP", "Export/Roads.Shx", "Export/ROADS.DBF", "Export/roads.prj", "Export/Roads.cpg",
                "Export/sub/Lakes.shp", "Export/sub/Lakes.dbf", "Export/sub/deeper/x.Shp", "Export/notes.txt",
            ])
        let result = try ShapefileDiscovery().discover(in: dir.path)
        #expect(
            result.shapefiles.map(\.relativePath) == [
                "Export/Roads.SHP", "Export/sub/Lakes.shp", "Export/sub/deeper/x.Shp", "top.shp",
            ])
        #expect(result.warnings.isEmpty)
        let roads = result.shapefiles[0]
        #expect(roads.shp == dir.path + "/Export/Roads.SHP")
        #expect(roads.files.shx == dir.path + "/Export/Roads.Shx")
        #expect(roads.files.dbf == dir.path + "/Export/ROADS.DBF")
        #expect(roads.files.prj == dir.path + "/Export/roads.prj")
        #expect(roads.files.cpg == dir.path + "/Export/Roads.cpg")
        #expect(roads.baseName == "Roads")
        #expect(roads.layerName == "Roads")
        #expect(roads.warnings.isEmpty)
        let lakes = result.shapefiles[1]
        #expect(lakes.files.dbf == dir.path + "/Export/sub/Lakes.dbf")
        #expect(lakes.files.shx == nil && lakes.files.prj == nil && lakes.files.cpg == nil)
        #expect(result.shapefiles[3].files.dbf == nil)
        // A trailing slash on the root changes nothing.
        #expect(try ShapefileDiscovery().discover(in: dir.path + "/").shapefiles == result.shapefiles)
    }

    @Test func settlesCaseCollisionsDeterministically() throws {
        let dir = try TemporaryDirectory(prefix: "kp-discovery")
        try makeTree(
            dir.path,
            [
                "one/a.shp", "one/A.shp", "one/a.SHP", "one/A.dbf", "one/a.dbf", "one/a.DBF", "one/a.Prj",
                "two/b.SHP", "two/B.Shp", "two/b.dbf",
            ])
        let result = try ShapefileDiscovery().discover(in: dir.path)
        // Base names that differ in case are different layers (the same rule as convert); extension-case variants
        // of one base are one set.
        #expect(result.shapefiles.map(\.relativePath) == ["one/A.shp", "one/a.shp", "two/B.Shp", "two/b.SHP"])
        #expect(result.shapefiles.map(\.layerName) == ["A", "a_2", "B", "b_2"])
        let upper = result.shapefiles[0]
        #expect(upper.files.dbf == dir.path + "/one/A.dbf")
        #expect(upper.files.prj == nil)
        #expect(upper.warnings.map(\.code) == [])
        let a = result.shapefiles[1]
        // Exact lower-case extension first; sidecars of the same base, lower-case extension first.
        #expect(a.files.shp == dir.path + "/one/a.shp")
        #expect(a.files.dbf == dir.path + "/one/a.dbf")
        #expect(a.files.prj == dir.path + "/one/a.Prj")
        #expect(a.warnings.map(\.code) == [.duplicateShapefile, .duplicateSidecar, .layerRenamed])
        #expect(a.warnings[0].message.contains("one/a.SHP"))
        #expect(a.warnings[1].message.contains("one/a.DBF"))
        // b.dbf has an exact base, so it is b.SHP's, not B.Shp's.
        #expect(result.shapefiles[2].files.dbf == nil)
        #expect(result.shapefiles[3].files.dbf == dir.path + "/two/b.dbf")
    }

    @Test func aSidecarDifferingOnlyInCaseJoinsTheOneShapefileOfItsName() throws {
        let dir = try TemporaryDirectory(prefix: "kp-discovery")
        try makeTree(dir.path, ["Roads.shp", "roads.dbf", "roads.PRJ", "x.shp", "X.dbf", "X.shp", "y.dbf", "Y.DBF"])
        let result = try ShapefileDiscovery().discover(in: dir.path)
        #expect(result.shapefiles.map(\.relativePath) == ["Roads.shp", "X.shp", "x.shp"])
        #expect(result.shapefiles[0].files.dbf == dir.path + "/roads.dbf")
        #expect(result.shapefiles[0].files.prj == dir.path + "/roads.PRJ")
        #expect(result.shapefiles[1].files.dbf == dir.path + "/X.dbf")
        #expect(result.shapefiles[2].files.dbf == nil)
        #expect(result.warnings.map(\.code) == [.orphanSidecar, .orphanSidecar])
        // convert groups the folder the same way.
        let sets = try ShapefileLocator.shapefiles(at: dir.path)
        #expect(sets == result.shapefiles.map(\.files))
        #expect(try ShapefileLocator.shapefiles(at: dir.path + "/Roads.shp") == [result.shapefiles[0].files])
    }

    @Test func neverGroupsSidecarsFromOtherFolders() throws {
        let dir = try TemporaryDirectory(prefix: "kp-discovery")
        try makeTree(dir.path, ["x/a.shp", "y/a.dbf", "y/a.prj", "a.shx"])
        let result = try ShapefileDiscovery().discover(in: dir.path)
        #expect(result.shapefiles.count == 1)
        let a = try #require(result.shapefiles.first)
        #expect(a.files.shx == nil && a.files.dbf == nil && a.files.prj == nil)
        #expect(result.warnings.map(\.code) == [.orphanSidecar, .orphanSidecar, .orphanSidecar])
        #expect(result.warnings.map { $0.file ?? "" } == ["a.shx", "y/a.dbf", "y/a.prj"])
    }

    @Test func makesLayerNamesUniqueAcrossFolders() throws {
        let dir = try TemporaryDirectory(prefix: "kp-discovery")
        try makeTree(dir.path, ["a/roads.shp", "b/Roads.shp", "roads.shp", "roads_2.shp"])
        let result = try ShapefileDiscovery().discover(in: dir.path)
        #expect(result.shapefiles.map(\.relativePath) == ["a/roads.shp", "b/Roads.shp", "roads.shp", "roads_2.shp"])
        #expect(result.shapefiles.map(\.layerName) == ["roads", "Roads_2", "roads_3", "roads_2_2"])
        #expect(
            result.shapefiles.map { $0.warnings.map(\.code) } == [
                [], [.layerRenamed], [.layerRenamed], [.layerRenamed],
            ])
    }

    @Test func skipsLinksSpecialFilesAndResourceForks() throws {
        let dir = try TemporaryDirectory(prefix: "kp-discovery")
        try makeTree(dir.path, ["real/a.shp", "__MACOSX/real/._a.shp", "real/._a.shp", "outside/b.shp"])
        #expect(symlink(dir.path + "/real/a.shp", dir.path + "/real/link.shp") == 0)
        #expect(symlink(dir.path + "/outside", dir.path + "/real/linked") == 0)
        #expect(symlink("/dev/zero", dir.path + "/real/a.dbf") == 0)
        #expect(mkfifo(dir.path + "/real/a.shx", 0o600) == 0)
        let result = try ShapefileDiscovery().discover(in: dir.path + "/real")
        #expect(result.shapefiles.map(\.relativePath) == ["a.shp"])
        #expect(result.shapefiles[0].files.dbf == nil && result.shapefiles[0].files.shx == nil)
        #expect(
            result.warnings.map(\.code) == [
                .symlinkSkipped, .specialFileSkipped, .symlinkSkipped, .symlinkSkipped,
            ])
        #expect(result.warnings.map { $0.file ?? "" } == ["a.dbf", "a.shx", "link.shp", "linked"])
        // A root that is itself a link is followed (it was named by the user).
        #expect(symlink(dir.path + "/real", dir.path + "/rootlink") == 0)
        #expect(try ShapefileDiscovery().discover(in: dir.path + "/rootlink").shapefiles.count == 1)
    }

    @Test func capsDepthAndEntriesAndRefusesMissingRoots() throws {
        let dir = try TemporaryDirectory(prefix: "kp-discovery")
        try makeTree(dir.path, ["a.shp", "d1/b.shp", "d1/d2/c.shp"])
        let shallow = try ShapefileDiscovery(maxDepth: 1).discover(in: dir.path)
        #expect(shallow.shapefiles.map(\.relativePath) == ["a.shp", "d1/b.shp"])
        #expect(shallow.warnings.map(\.code) == [.folderTooDeep])
        let error = try #require(refusal { try ShapefileDiscovery(maxEntries: 3).discover(in: dir.path) })
        guard case .limitExceeded = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        let missing = try #require(refusal { try ShapefileDiscovery().discover(in: dir.path + "/nope") })
        #expect(missing.exitCode == .noInput)
        let file = try #require(refusal { try ShapefileDiscovery().discover(in: dir.path + "/a.shp") })
        #expect(file.description.contains("not a folder"))
    }

    @Test func zipToReaderEndToEndWithMixedCaseNames() throws {
        // A Windows-style export: upper-case .SHP, other cases for the sidecars, backslash folders, CP437 name.
        let dir = try TemporaryDirectory(prefix: "kp-discovery")
        var fixture = ShapefileFixture(shapeType: .point, shapes: [.point(1, 2), .point(3, 4), .point(5, 6)])
        fixture.fields = [ShapefileFixture.Field("NAME", "C", width: 10)]
        fixture.rows = [[Array("alpha".utf8)], [Array("beta".utf8)], [Array("gamma".utf8)]]
        fixture.prj = Array("GEOGCS[\"WGS 84\"]".utf8)
        try fixture.write(to: dir.path, baseName: "src")
        let (shp, shx) = fixture.shpAndSHX()
        var entries = [
            TestZipEntry("Export\\Roads.SHP", shp), TestZipEntry("Export\\roads.Shx", shx),
            TestZipEntry("Export\\ROADS.DBF", fixture.dbf()), TestZipEntry("Export\\Roads.prj", fixture.prj ?? []),
            TestZipEntry("__MACOSX/Export/._Roads.SHP", [0, 5, 22, 7]),
        ]
        entries.append(TestZipEntry("Other/Roads.shp", shp, method: 0))
        let box = try ImportSandbox()
        let extracted = try box.extract(entries)
        let found = try ShapefileDiscovery().discover(in: extracted.root)
        #expect(found.shapefiles.map(\.relativePath) == ["Export/Roads.SHP", "Other/Roads.shp"])
        #expect(found.shapefiles.map(\.layerName) == ["Roads", "Roads_2"])
        let set = found.shapefiles[0].files
        #expect(set.dbf?.hasSuffix("Export/ROADS.DBF") == true)
        #expect(set.shx?.hasSuffix("Export/roads.Shx") == true)
        let reader = try ShapefileReader(files: set, diagnostics: DiagnosticSink())
        var names: [String] = []
        while let f = try reader.next() {
            if case .string(let s)? = f.properties["NAME"] { names.append(s) }
        }
        #expect(names == ["alpha", "beta", "gamma"])
        #expect(reader.prjText?.contains("WGS 84") == true)
        extracted.remove()
        #expect(try box.leftovers() == [])
    }
}
