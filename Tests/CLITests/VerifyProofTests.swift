import Foundation
import KartpackTestSupport
import Testing

/// `kartpack verify` proves something (issue 32, finding 3), through the real binary on
/// `PackageRefusalTests.Night`'s small inputs: a signed sequence refuses a rollback, each entry must name its own
/// file, and only regular files of the listed size are read.
@Suite struct VerifyProofTests {
    typealias Night = PackageRefusalTests.Night

    static func sequence(_ folder: String) throws -> Int? {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/catalog.json"))
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["sequence"] as? Int
    }

    @Test func aRollbackToAnOlderSignedCatalogFailsWithSince() throws {
        let (night, key, pub, _) = try PackagePublishTests.signedNight()
        #expect(try Self.sequence(night.out) == 1)
        let old = night.dir.file("old")
        try FileManager.default.copyItem(atPath: night.out, toPath: old)
        let r = try night.run(["--sign", key])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.sequence(night.out) == 2)
        #expect(try runKartpack(["verify", night.out, "--pubkey", pub, "--since", "1"]).status == 0)
        // The whole folder rolled back: its signature holds, but it is not newer than what was accepted.
        let rolled = try runKartpack(["verify", old, "--pubkey", pub, "--since", "1"])
        #expect(rolled.status == 65, "\(rolled.stderr)")
        #expect(rolled.stderr.contains("sequence 1 is not newer than 1"), "\(rolled.stderr)")
    }

    @Test func anEntryMustNameItsOwnRegionsFile() throws {
        let night = try Night()
        _ = try night.firstNight()
        let path = night.published("catalog.json")
        // r1's entry points at r2's (intact) package.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let swapped = text.replacingOccurrences(of: "\"file\": \"r1.pmtiles\"", with: "\"file\": \"r2.pmtiles\"")
        #expect(swapped != text)
        try swapped.write(toFile: path, atomically: true, encoding: .utf8)
        let v = try runKartpack(["verify", night.out])
        #expect(v.status == 65)
        #expect(v.stderr.contains("region r1: file 'r2.pmtiles' is not the region's own file"), "\(v.stderr)")
    }

    @Test func aFIFOOrAHugeSparsePackageIsRefusedWithoutReadingIt() throws {
        let (night, _, pub, _) = try PackagePublishTests.signedNight()
        let r2 = night.published("r2.pmtiles")
        #expect(truncate(r2, 64 << 30) == 0)
        let r3 = night.published("r3.pmtiles")
        try FileManager.default.removeItem(atPath: r3)
        #expect(mkfifo(r3, 0o600) == 0)
        let sig = night.published("catalog.json.minisig")
        try FileManager.default.removeItem(atPath: sig)
        #expect(mkfifo(sig, 0o600) == 0)
        // `timeout` ends the old behaviour, which hung on the FIFOs or hashed 64 GB.
        let v = try runProcess(
            "/usr/bin/timeout", ["60", RepositoryPaths.kartpackBinary, "verify", night.out, "--pubkey", pub])
        #expect(v.status == 65, "\(v.stderr)")
        #expect(v.stderr.contains("r2.pmtiles has 68719476736 bytes, the catalog says"), "\(v.stderr)")
        #expect(v.stderr.contains("r3.pmtiles is a FIFO, not a regular file"), "\(v.stderr)")
        #expect(v.stderr.contains("catalog.json.minisig (signature): is a FIFO"), "\(v.stderr)")
    }

    @Test func aPublicKeyThatIsNotARegularFileIsRefusedAtOnce() throws {
        let (night, _, _, _) = try PackagePublishTests.signedNight()
        let fifo = night.dir.file("k.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        for (key, reason) in [(fifo, "is a FIFO, not a regular file"), (night.dir.file("none.pub"), "No such file")] {
            let v = try runProcess(
                "/usr/bin/timeout", ["60", RepositoryPaths.kartpackBinary, "verify", night.out, "--pubkey", key])
            #expect(v.status == 66, "\(key): \(v.stderr)")
            #expect(v.stderr.contains("\(key) (--pubkey): \(reason)"), "\(v.stderr)")
        }
    }

    @Test func withoutMinisignVerifyExits69() throws {
        let (night, _, pub, _) = try PackagePublishTests.signedNight()
        let v = try runProcess(
            RepositoryPaths.kartpackBinary, ["verify", night.out, "--pubkey", pub],
            environment: ["PATH": night.dir.file("no-bin")])
        #expect(v.status == 69, "\(v.stderr)")
        #expect(v.stderr.contains("minisign is not installed"), "\(v.stderr)")
    }
}
