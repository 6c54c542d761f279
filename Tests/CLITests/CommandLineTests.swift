import Foundation
import KartpackTestSupport
import Testing

@Suite struct CommandLineTests {
    @Test func versionAndHelpExitZero() throws {
        let v = try runKartpack(["--version"])
        #expect(v.status == 0)
        #expect(v.stdout.hasPrefix("kartpack "))
        let h = try runKartpack(["--help"])
        #expect(h.status == 0)
        #expect(h.stdout.contains("inspect"))
        let ih = try runKartpack(["inspect", "--help"])
        #expect(ih.status == 0)
        #expect(ih.stdout.contains("--format"))
    }

    @Test(arguments: [
        ["frobnicate"],
        [],
        ["inspect"],
        ["inspect", "a.shp", "b.shp"],
        ["inspect", "a.shp", "--format", "xml"],
        ["inspect", "a.shp", "--bogus"],
        ["inspect", "a.shp", "--format"],
        ["inspect", "a.shp", "--format", "json", "--format", "text"],
    ])
    func badCommandLinesExit64(_ args: [String]) throws {
        let r = try runKartpack(args)
        #expect(r.status == 64, "\(args): \(r.stderr)")
        #expect(r.stderr.contains("kartpack: "))
        #expect(r.stdout.isEmpty)
    }

    @Test func missingInputExits66() throws {
        let dir = try TemporaryDirectory()
        let r = try runKartpack(["inspect", dir.file("nothing-here.shp")])
        #expect(r.status == 66, "\(r.stderr)")
        #expect(r.stderr.contains("nothing-here.shp"))
    }
}
