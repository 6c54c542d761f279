import Glibc

/// The process's peak resident set size so far (`getrusage(RUSAGE_SELF)`, `ru_maxrss`: KiB on Linux), in bytes.
/// Child processes (the `.prj` helper) are not included.
package enum PeakMemory {
    static func residentBytes() -> Int {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        return Int(usage.ru_maxrss) * 1024
    }
}
