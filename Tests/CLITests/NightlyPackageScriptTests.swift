import Foundation
import KartpackTestSupport
import Testing

/// `scripts/nightly.sh package` (cron's wrapper of `kartpack package`) keeps a report of every night: a good one
/// with what a tablet downloads, and one that failed before the packager could report (another run holds the lock,
/// a regions file without the id field), each with the exit code the script returns.
@Suite struct NightlyPackageScriptTests {
    typealias Night = PackageRefusalTests.Night

    /// Runs the script with its logs in `logs/`; returns the result and the report it kept (the only new one).
    func nightly(_ night: Night, idField: String = "RID") throws -> (ProcessResult, [String: Any]) {
        let logs = night.dir.file("logs")
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: logs)) ?? [])
        // One report per second-stamped night: two nights in the same second would share a name.
        sleep(1)
        let script = RepositoryPaths.root.appendingPathComponent("scripts/nightly.sh").path
        let r = try runShell(
            "KARTPACK=\"$KP\" KARTPACK_LOG_DIR='\(logs)' '\(script)' package '\(night.plan)' --regions "
                + "'\(night.dir.file("regions.shp"))' --id-field \(idField) -o '\(night.out)' --threads 1")
        let names = try FileManager.default.contentsOfDirectory(atPath: logs).filter {
            !before.contains($0) && $0.hasPrefix("report-package-")
        }
        #expect(names.count == 1, "\(names)")
        let data = try Data(contentsOf: URL(fileURLWithPath: logs + "/" + (names.first ?? "none")))
        return (r, try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]))
    }

    @Test func everyNightUnderTheScriptLeavesAReport() throws {
        let night = try Night()
        try night.regions((0..<3).map(PackageRefusalTests.square))
        let inside = PackageRefusalTests.inside
        try night.points([inside(0, 0), inside(1, 0), inside(2, 0)])
        let (good, report) = try nightly(night)
        #expect(good.status == 0, "\(good.stderr)")
        let counts = try #require(report["night"] as? [String: Any], "\(report)")
        #expect(counts["added"] as? Int == 3 && counts["unchanged"] as? Int == 0, "\(counts)")
        #expect((counts["downloadBytes"] as? Int ?? 0) > 0, "\(counts)")

        // Another run holds the folder's lock: exit 75, and a report that says so.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["-n", "-o", night.out + "/catalog.json.lock", "sleep", "20"]
        try holder.run()
        defer {
            holder.terminate()
            holder.waitUntilExit()
        }
        usleep(300_000)
        let (locked, lockReport) = try nightly(night)
        #expect(locked.status == 75, "\(locked.stderr)")
        #expect(locked.stderr.contains("already running"), "\(locked.stderr)")
        #expect(lockReport["published"] as? Bool == false && lockReport["exitCode"] as? Int == 75, "\(lockReport)")
        #expect(lockReport["night"] == nil, "\(lockReport)")
        holder.terminate()
        holder.waitUntilExit()

        // A regions file without the id field: the night fails, and its report names the cause.
        let (failed, failReport) = try nightly(night, idField: "NOPE")
        #expect(failed.status != 0, "\(failed.stderr)")
        #expect(failed.stderr.contains("failed with exit \(failed.status)"), "\(failed.stderr)")
        #expect(failReport["exitCode"] as? Int == Int(failed.status), "\(failReport)")
        let findings = (failReport["findings"] as? [[String: Any]]) ?? []
        #expect(findings.map { $0["code"] as? String } == ["run_failed"], "\(findings)")
        let message = findings.first?["message"] as? String ?? ""
        #expect(message.contains("NOPE"), "\(findings)")
    }
}
