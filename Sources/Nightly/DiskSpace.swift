import Glibc

/// Free disk space checks before a run writes anything.
package enum DiskSpace {
    /// Bytes available to an unprivileged user on the filesystem holding `path` (`statvfs`: `f_bavail ×
    /// f_frsize`).
    /// - Throws: `.io` (74) when the filesystem cannot be queried (e.g. the folder does not exist).
    package static func available(at path: String) throws(NightlyError) -> UInt64 {
        var s = statvfs()
        guard statvfs(path, &s) == 0 else { throw .io(operation: "statvfs", path: path, errno: errno) }
        let blockSize = s.f_frsize != 0 ? UInt64(s.f_frsize) : UInt64(s.f_bsize)
        let (product, overflow) = UInt64(s.f_bavail).multipliedReportingOverflow(by: blockSize)
        return overflow ? UInt64.max : product
    }

    /// Throws `.insufficientSpace` (exit 74) when `folder` has less than `needed` bytes free.
    package static func check(folder: String, needed: UInt64) throws(NightlyError) {
        let free = try available(at: folder)
        guard free >= needed else { throw .insufficientSpace(folder: folder, available: free, needed: needed) }
    }

    /// A conservative estimate of the space a run needs next to its output: the new package is written whole
    /// before it replaces the old one, so about the previous package's size (or, for a first run, the inputs'
    /// size) plus a 64 MiB margin.
    package static func estimate(inputBytes: UInt64, previousOutputBytes: UInt64?) -> UInt64 {
        let base = previousOutputBytes.map { max($0, inputBytes / 2) } ?? inputBytes
        let (sum, overflow) = base.addingReportingOverflow(64 << 20)
        return overflow ? UInt64.max : sum
    }
}
