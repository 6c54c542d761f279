import Foundation
import KartpackTestSupport
import Testing

/// `kartpack package` writes and deletes only the files it owns (issue 32, finding 2), through the real binary on
/// `PackageRefusalTests.Night`'s small inputs.
@Suite struct PackageOwnershipTests {
    typealias Night = PackageRefusalTests.Night

    @Test func aReportAtAnInputOrAManagedFileIsRefused() throws {
        let night = try Night()
        let before = try night.firstNight()
        let dbf = try Data(contentsOf: URL(fileURLWithPath: night.dir.file("regions.dbf")))
        for target in [
            night.out + "/catalog.json", night.dir.file("regions.dbf"), night.out + "/r2.pmtiles", night.plan,
            night.out + "/.generations/1/r.json", night.out + "/.generations/current/r.json",
            night.out + "/.generations",
        ] {
            let r = try runKartpack([
                "package", night.plan, "--regions", night.dir.file("regions.shp"), "--id-field", "RID", "-o",
                night.out, "--report", target, "--quiet",
            ])
            #expect(r.status == 64, "\(target): \(r.stderr)")
            #expect(r.stderr.contains("--report \(target)"), "\(r.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: night.dir.file("regions.dbf"))) == dbf)
        let after = try night.snapshot()
        #expect(after == before)
    }

    @Test func aFileTheCatalogDoesNotListIsNotOverwritten() throws {
        let night = try Night()
        _ = try night.firstNight()
        let foreign = night.out + "/r4.pmtiles"
        try Data("someone else's".utf8).write(to: URL(fileURLWithPath: foreign))
        let before = try night.snapshot()
        try night.regions((0..<4).map(PackageRefusalTests.square))
        let inside = PackageRefusalTests.inside
        try night.points([inside(0, 0), inside(1, 0), inside(2, 0), inside(3, 0)])
        let r = try night.run()
        #expect(r.status == 73, "\(r.stderr)")
        #expect(r.stderr.contains("r4.pmtiles exists but the previous catalog does not list it"), "\(r.stderr)")
        #expect(try night.snapshot() == before)
    }
}
