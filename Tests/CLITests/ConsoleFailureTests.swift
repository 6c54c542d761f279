import Foundation
import KartpackTestSupport
import Testing

/// Closed, full and broken stdout/stderr (issue 15): never a trap; exit 74 (141 for a broken pipe) after the work is
/// done, the package outcome unchanged; a command that already failed keeps its own code.
@Suite struct ConsoleFailureTests {
    private var vagar: String { RepositoryPaths.sampleForest.appendingPathComponent("vagar.shp").path }

    @Test(arguments: [
        ("$KP --help >&-; echo \"exit=$?\" >&2", 74),
        ("$KP --help > /dev/full; echo \"exit=$?\" >&2", 74),
        ("$KP convert --help >&-; echo \"exit=$?\" >&2", 74),
        ("$KP --version 2>&- > /dev/full; echo \"exit=$?\" >&2", 74),
        ("$KP run missing.json 2>&-; echo \"exit=$?\" >&2", 66),
        ("$KP run missing.json 2>/dev/full; echo \"exit=$?\" >&2", 66),
        ("$KP nosuchcommand 2>/dev/full; echo \"exit=$?\" >&2", 64),
    ])
    func closedOrFullStreamsNeverTrap(_ script: String, _ expected: Int) throws {
        let r = try runShell(script)
        #expect(r.stderr.contains("exit=\(expected)"), "\(script): \(r.stderr)")
        #expect(!r.stderr.contains("Fatal error"), "\(script): \(r.stderr)")
    }

    @Test(arguments: [">&-", "> /dev/full", "2>&- >&-", "2>/dev/full"])
    func convertPublishesWhateverHappensToItsConsole(_ redirection: String) throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("v.pmtiles")
        let r = try runShell(
            "$KP convert '\(vagar)' -o '\(out)' \(redirection); echo \"exit=$?\" >> '\(dir.file("status"))'")
        let status = try String(contentsOfFile: dir.file("status"), encoding: .utf8)
        // stderr only carries warnings here: its failure alone changes nothing when nothing is written to it.
        let expected = redirection == "2>/dev/full" ? ["exit=0", "exit=74"] : ["exit=74"]
        #expect(expected.contains(status.trimmingCharacters(in: .whitespacesAndNewlines)), "\(redirection): \(status)")
        #expect(!r.stderr.contains("Fatal error"))
        // The package is published and valid.
        let check = try runKartpack(["inspect", out, "--format", "json"])
        #expect(check.status == 0, "\(check.stderr)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test func aReaderThatGoesAwayGives141AndTheRunStillFinishes() throws {
        let dir = try TemporaryDirectory()
        // inspect --features prints far more than a pipe holds: the writer meets EPIPE once `head` has gone.
        let script =
            "( $KP inspect '\(RepositoryPaths.sampleForest.path)' --format json --features; "
            + "echo \"exit=$?\" > '\(dir.file("status"))' ) | head -c 100 > /dev/null"
        let r = try runShell(script)
        let status = try String(contentsOfFile: dir.file("status"), encoding: .utf8)
        #expect(status.contains("exit=141"), "\(status) \(r.stderr)")
        #expect(!r.stderr.contains("Fatal error"))
    }

    @Test func aClosedStdoutIsNeverReusedForAnOutputFile() throws {
        // With descriptor 1 closed, the package would be the next file opened and get descriptor 1: text for
        // stdout must not land in it.
        let dir = try TemporaryDirectory()
        let out = dir.file("v.mbtiles")
        _ = try runShell("$KP convert '\(vagar)' -o '\(out)' --report '\(dir.file("r.json"))' >&-")
        let check = try runKartpack(["inspect", out, "--format", "json"])
        #expect(check.status == 0, "\(check.stderr)")
        let report = try String(contentsOfFile: dir.file("r.json"), encoding: .utf8)
        #expect(report.hasPrefix("{") && !report.contains("wrote "))
    }
}
