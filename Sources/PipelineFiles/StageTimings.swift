import Foundation

/// Wall time per stage of a run in seconds, to the millisecond (a run report's `timings`).
struct StageTimings {
    private(set) var seconds: [String: Double] = [:]
    private var clock = Date()

    /// Ends `stage` now; the next stage starts.
    mutating func lap(_ stage: String) {
        seconds[stage] = (Date().timeIntervalSince(clock) * 1000).rounded() / 1000
        clock = Date()
    }
}
