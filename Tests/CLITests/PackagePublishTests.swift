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
        // A staged generation, a generation staged in full but never switched to, and temporary links.
        let store = night.out + "/.generations"
        let fm = FileManager.default
        try fm.createDirectory(atPath: store + "/2.tmp-\(pid)-0badf00d", withIntermediateDirectories: false)
        try Data("half a package".utf8).write(to: URL(fileURLWithPath: store + "/2.tmp-\(pid)-0badf00d/r1.pmtiles"))
        try fm.createDirectory(atPath: store + "/7", withIntermediateDirectories: false)
        try fm.createSymbolicLink(atPath: store + "/current.tmp-\(pid)-0badf00d", withDestinationPath: "7")
        try fm.createSymbolicLink(
            atPath: night.out + "/r9.pmtiles.tmp-\(pid)-0badf00d",
            withDestinationPath: ".generations/current/r9.pmtiles")
        let r = try night.run(["--sign", key])
        #expect(r.status == 0, "\(r.stderr)")
        let names = try fm.contentsOfDirectory(atPath: night.out).sorted()
        #expect(
            names == [".generations", "catalog.json", "catalog.json.minisig", "r1.pmtiles", "r2.pmtiles", "r3.pmtiles"])
        #expect(try fm.contentsOfDirectory(atPath: store).sorted() == ["1", "2", "current"])
        #expect(try runKartpack(["verify", night.out, "--pubkey", pub]).status == 0)
    }

    /// A region whose package cannot be written (here: past the file-size limit the run gets, as on a full disk)
    /// fails the night with the I/O exit code and a report naming the region; nothing is published.
    @Test func aRegionThatCannotBeWrittenFailsTheNightWithAReport() throws {
        let night = try Night()
        let before = try night.firstNight()
        // r1 grows far past the limit; the report and the other regions' packages stay under it.
        let many: [(Double, Double)] = (0..<20_000).map { (i: Int) -> (Double, Double) in
            let x: Double = 0.01 + Double(i % 140) * 0.007
            let y: Double = 0.01 + Double(i / 140) * 0.0069
            return (x, y)
        }
        let inside = PackageRefusalTests.inside
        try night.points(many + [inside(1, 0), inside(2, 0)])
        let args = [
            "package", night.plan, "--regions", night.dir.file("regions.shp"), "--id-field", "RID", "-o", night.out,
            "--report", night.dir.file("r.json"), "--threads", "1",
        ].map { "'\($0)'" }.joined(separator: " ")
        let r = try runShell("trap '' XFSZ; ulimit -f 48; exec \"$KP\" \(args)")
        #expect(r.status == 74, "\(r.stderr)")
        #expect(r.stderr.contains("region r1: ") && r.stderr.contains("[region_build_failed]"), "\(r.stderr)")
        #expect(r.stderr.contains("the night failed"), "\(r.stderr)")
        let report = try night.report()
        #expect(report["published"] as? Bool == false)
        #expect(report["exitCode"] as? Int == 74)
        let failed = try night.findings().filter { $0["code"] as? String == "region_build_failed" }
        #expect(failed.map { $0["region"] as? String } == ["r1"], "\(failed)")
        #expect(try night.snapshot() == before)
    }

    /// `--report` is written on every exit path: a night another run holds the lock of, and one whose regions file
    /// cannot be used, leave a report saying nothing was published, why, and the exit code.
    @Test func theReportIsWrittenOnEveryExitPath() throws {
        let night = try Night()
        _ = try night.firstNight()
        // Another run holds the folder's lock.
        let lock = night.out + "/catalog.json.lock"
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        // -o: flock itself holds the lock (not the command), so ending flock releases it.
        holder.arguments = ["-n", "-o", lock, "sleep", "20"]
        try holder.run()
        usleep(300_000)
        let locked = try night.run()
        #expect(locked.status != 0, "\(locked.stderr)")
        var report = try night.report()
        #expect(report["published"] as? Bool == false)
        #expect(report["exitCode"] as? Int == Int(locked.status))
        var codes = try night.findings().compactMap { $0["code"] as? String }
        #expect(codes == ["run_failed"], "\(codes) \(locked.stderr)")
        holder.terminate()
        holder.waitUntilExit()
        // An id field the regions file does not have.
        try FileManager.default.removeItem(atPath: night.dir.file("r.json"))
        let r = try runKartpack([
            "package", night.plan, "--regions", night.dir.file("regions.shp"), "--id-field", "NOPE", "-o", night.out,
            "--report", night.dir.file("r.json"), "--quiet",
        ])
        #expect(r.status != 0, "\(r.stderr)")
        report = try night.report()
        #expect(report["published"] as? Bool == false && report["exitCode"] as? Int == Int(r.status))
        codes = try night.findings().compactMap { $0["code"] as? String }
        #expect(codes == ["run_failed"], "\(codes)")
        let message = try night.findings().first?["message"] as? String ?? ""
        #expect(message.contains("NOPE"), "\(message)")
    }

    /// A folder an earlier Kartpack wrote (regular files, no generations) is adopted: the next night publishes
    /// through generations, verifies, and leaves the files the catalog does not list alone.
    @Test func aFolderWrittenBeforeGenerationsIsAdopted() throws {
        let (night, key, pub, _) = try Self.signedNight()
        let fm = FileManager.default
        for name in ["catalog.json", "catalog.json.minisig", "r1.pmtiles", "r2.pmtiles", "r3.pmtiles"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: night.out + "/" + name))
            try fm.removeItem(atPath: night.out + "/" + name)
            try bytes.write(to: URL(fileURLWithPath: night.out + "/" + name))
        }
        try fm.removeItem(atPath: night.out + "/.generations")
        try Data("a run's output".utf8).write(to: URL(fileURLWithPath: night.out + "/all.pmtiles"))
        #expect(try runKartpack(["verify", night.out, "--pubkey", pub]).status == 0)
        let r = try night.run(["--sign", key])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try runKartpack(["verify", night.out, "--pubkey", pub, "--since", "1"]).status == 0)
        #expect(
            try fm.destinationOfSymbolicLink(atPath: night.out + "/r2.pmtiles") == ".generations/current/r2.pmtiles")
        #expect(try fm.contentsOfDirectory(atPath: night.out + "/.generations").sorted() == ["0", "2", "current"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: night.out + "/all.pmtiles")) == Data("a run's output".utf8))
    }

    /// kill -9 at moments spread over a night's run: after each, the folder verifies against its signature (the
    /// previous night or the new one, never a mix), and the next run completes.
    @Test func aKilledNightLeavesAFolderThatVerifies() throws {
        let (night, key, pub, _) = try Self.signedNight()
        let inside = PackageRefusalTests.inside
        for (k, delay) in [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.6].enumerated() {
            // Each night changes r1 again, so there is always something to publish.
            try night.points([inside(0, 0)] + (0...k).map { inside(0, $0 + 1) } + [inside(1, 0), inside(2, 0)])
            let p = Process()
            p.executableURL = URL(fileURLWithPath: RepositoryPaths.kartpackBinary)
            p.arguments = [
                "package", night.plan, "--regions", night.dir.file("regions.shp"), "--id-field", "RID", "-o",
                night.out, "--quiet", "--threads", "1", "--sign", key,
            ]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            usleep(useconds_t(delay * 1_000_000))
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let v = try runKartpack(["verify", night.out, "--pubkey", pub])
            #expect(v.status == 0, "after a kill at \(delay) s: \(v.stderr)")
        }
        let r = try night.run(["--sign", key])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try runKartpack(["verify", night.out, "--pubkey", pub]).status == 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: night.out + "/.generations")
            .filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
