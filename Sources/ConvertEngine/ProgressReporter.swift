import Foundation
import KartpackCore

/// A progress line on stderr with counts and an ETA, redrawn in place at most a few times a second.
/// Created only when stderr is a terminal; otherwise the pipeline is quiet.
package final class ProgressReporter {
    private var lastDraw = 0.0
    private var stageStart = Date().timeIntervalSince1970
    private var stage = ""
    private var drawn = false

    /// Creates a reporter, or nil when stderr is not a terminal (or `enabled` is false).
    package static func forStandardError(enabled: Bool = true) -> ProgressReporter? {
        enabled && isatty(2) == 1 ? ProgressReporter() : nil
    }

    /// Updates the line: `stage: done/total (percent), ETA`.
    package func update(_ stage: String, done: Int, total: Int?) {
        let now = Date().timeIntervalSince1970
        if stage != self.stage {
            self.stage = stage
            stageStart = now
        }
        guard now - lastDraw >= 0.2 || done == total else { return }
        lastDraw = now
        var line = "\(stage): \(done)"
        if let total, total > 0 {
            let pct = Double(done) / Double(total) * 100
            line += "/\(total) (\(Int(pct))%)"
            let elapsed = now - stageStart
            if done > 0 && done < total && elapsed > 1 {
                let eta = elapsed / Double(done) * Double(total - done)
                line += ", ETA \(Self.duration(eta))"
            }
        }
        StandardStreams.write("\r\u{1B}[K" + line, to: .error)
        drawn = true
    }

    /// Clears the line.
    package func finish() {
        if drawn { StandardStreams.write("\r\u{1B}[K", to: .error) }
        drawn = false
    }

    static func duration(_ s: Double) -> String {
        if s < 60 { return "\(Int(s.rounded(.up)))s" }
        return "\(Int(s) / 60)m\(Int(s) % 60)s"
    }
}
