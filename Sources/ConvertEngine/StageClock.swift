import Foundation

/// Wall time per stage, in seconds (rounded to milliseconds), for reports: a conversion's `timings` and a
/// pipeline run's.
package struct StageClock: Sendable {
    package private(set) var timings: [String: Double] = [:]
    private var clock = Date()
    package let started = Date()

    /// A clock whose first stage starts now.
    package init() {}

    /// Ends a stage: records the time since the previous one.
    package mutating func lap(_ stage: String) {
        timings[stage] = (Date().timeIntervalSince(clock) * 1000).rounded() / 1000
        clock = Date()
    }

    /// Seconds since the clock was made.
    var elapsed: Double { (Date().timeIntervalSince(started) * 1000).rounded() / 1000 }
}
