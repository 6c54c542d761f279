import Foundation
import KartpackCore
import KartpackKit
import Publishing

extension RegionPackageReport {
    /// The report of a night that ended by an error or a signal before the packager could report (a lock held by
    /// another run, an unreadable regions file, an interruption, …): nothing published, the cause as the one
    /// error finding (`code`), and the exit code. `package --report` writes it on every exit path.
    package static func failure(
        _ options: RegionPackageOptions, code: ReasonCode, message: String, exitCode: ExitCode, started: Date
    ) -> RegionPackageReport {
        let folder = options.outputFolder
        var r = RegionPackageReport(
            kartpack: Kartpack.version, outputFolder: folder, catalog: folder + "/" + Catalog.fileName,
            signed: options.signKey != nil && !options.dryRun, dryRun: options.dryRun, regions: [], removed: [],
            published: false,
            findings: [.endedRun(code: code, message: message)],
            inputs: [], warnings: [:], seconds: 0, exitCode: exitCode.rawValue)
        r.seconds = (Date().timeIntervalSince(started) * 1000).rounded() / 1000
        return r
    }
}
