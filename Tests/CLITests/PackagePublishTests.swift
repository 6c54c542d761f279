import Foundation
import KartpackTestSupport
import Testing

/// `kartpack package` publishes nothing it cannot sign and leaves no debris (issue 32, finding 1), through the real
/// binary on `PackageRefusalTests.Night`'s small inputs: a second night that changes region r1 is signed before
/// anything of the first is replaced, so a failure to sign leaves the first night verifying against its signature.
@Suite struct PackagePublishTests {
    typealias Night = PackageRefusalTests.Night

    /// A first night signed with a fresh password-less key; returns the night, the key, the public key and the
    /// folder's bytes. The points are then changed so that the next night rebuilds r1.
    static func signedNight() throws -> (Night, key: String, pub: String, before: [String: Data]) {
        let night = try Night()
        let key = night.dir.file("k.key")
        let pub = night.dir.file("k.pub")
        let g = try runProcess("/usr/bin/minisign", ["-G", "-W", "-p", pub, "-s", key])
        #expect(g.status == 0, "\(g.stderr)")
        try night.regions((0..<3).map(PackageRefusalTests.square))
        let inside = PackageRefusalTests.inside
        try night.points([inside(0, 0), inside(1, 0), inside(2, 0)])
        let r = try night.run(["--sign", key])
        #expect(r.status == 0, "\(r.stderr)")
        let before = try night.snapshot()
        try night.points([inside(0, 0), inside(0, 1), inside(1, 0), inside(2, 0)])
        return (night, key, pub, before)
    }

    /// The folder is byte for byte `before` and still verifies against its signature.
    static func expectUnchanged(
        _ night: Night, before: [String: Data], pub: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let after = try night.snapshot()
        #expect(after.keys.sorted() == before.keys.sorted(), sourceLocation: sourceLocation)
        for (name, bytes) in before {
            #expect(after[name] == bytes, "\(name) changed", sourceLocation: sourceLocation)
        }
        let v = try runKartpack(["verify", night.out, "--pubkey", pub])
        #expect(v.status == 0, "\(v.stderr)", sourceLocation: sourceLocation)
    }

    @Test func anUnusableKeyPublishesNothing() throws {
        let (night, _, pub, before) = try Self.signedNight()
        let bad = night.dir.file("bad.key")
        try Data("untrusted comment: not a key\nAAAA\n".utf8).write(to: URL(fileURLWithPath: bad))
        let r = try night.run(["--sign", bad])
        #expect(r.status == 78, "\(r.stderr)")
        try Self.expectUnchanged(night, before: before, pub: pub)
    }

    @Test func aFIFOAsKeyOrPasswordIsRefusedAtOnce() throws {
        let (night, key, pub, before) = try Self.signedNight()
        let fifo = night.dir.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        for extra in [["--sign", fifo], ["--sign", key, "--sign-password-file", fifo]] {
            // `timeout` ends the old behaviour, which hung on the FIFO.
            let r = try runProcess(
                "/usr/bin/timeout",
                [
                    "60", RepositoryPaths.kartpackBinary, "package", night.plan, "--regions",
                    night.dir.file("regions.shp"), "--id-field", "RID", "-o", night.out, "--quiet",
                ] + extra)
            #expect(r.status == 66, "\(r.stderr)")
            #expect(r.stderr.contains("FIFO, not a regular file"), "\(r.stderr)")
        }
        try Self.expectUnchanged(night, before: before, pub: pub)
    }

    @Test func withoutMinisignSigningExits69AndPublishesNothing() throws {
        let (night, key, pub, before) = try Self.signedNight()
        let r = try runProcess(
            RepositoryPaths.kartpackBinary,
            [
                "package", night.plan, "--regions", night.dir.file("regions.shp"), "--id-field", "RID", "-o",
                night.out, "--quiet", "--sign", key,
            ], environment: ["PATH": night.dir.file("no-bin")])
        #expect(r.status == 69, "\(r.stderr)")
        #expect(r.stderr.contains("minisign is not installed"), "\(r.stderr)")
        try Self.expectUnchanged(night, before: before, pub: pub)
    }

    @Test func theNextRunSweepsWhatAKilledRunLeft() throws {
        let (night, key, pub, _) = try Self.signedNight()
        // A process that has ended: its pid names the killed run.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let pid = gone.processIdentifier
        let leftovers = [
            "r1.pmtiles.tmp-\(pid)-0123abcd", "r1.pmtiles.tmp-\(pid)-0123abcd.tmp-\(pid)-89abcdef",
            "r9.pmtiles.tmp-\(pid)-00000001", "catalog.json.tmp-\(pid)-00000002",
            "catalog.json.minisig.tmp-\(pid)-00000003",
        ]
        for name in leftovers {
            try Data("left by a killed run".utf8).write(to: URL(fileURLWithPath: night.out + "/" + name))
        }
        let r = try night.run(["--sign", key])
        #expect(r.status == 0, "\(r.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: night.out).sorted()
        #expect(names == ["catalog.json", "catalog.json.minisig", "r1.pmtiles", "r2.pmtiles", "r3.pmtiles"])
        #expect(try runKartpack(["verify", night.out, "--pubkey", pub]).status == 0)
    }
}
