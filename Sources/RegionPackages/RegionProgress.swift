import Foundation
import ConvertEngine

/// The progress line of `kartpack package` (on stderr when it is a terminal, as `convert` draws it), fed from the
/// region workers: one lock around the reporter, one count per stage.
package final class RegionProgress: @unchecked Sendable {
    private let reporter: ProgressReporter?
    private let lock = NSLock()
    private var stage = ""
    private var done = 0

    package init(_ reporter: ProgressReporter?) {
        self.reporter = reporter
    }

    /// Counts one more item of `stage` (of `total`) and redraws the line (at most a few times a second).
    package func step(_ stage: String, total: Int) {
        guard let reporter else { return }
        lock.lock()
        defer { lock.unlock() }
        if stage != self.stage {
            self.stage = stage
            done = 0
        }
        done += 1
        reporter.update(stage, done: done, total: total)
    }

    /// Clears the line.
    package func finish() {
        guard let reporter else { return }
        lock.lock()
        defer { lock.unlock() }
        reporter.finish()
        stage = ""
    }
}
