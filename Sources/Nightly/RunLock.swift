import Glibc
import KartpackCore

/// An exclusive lock that keeps two runs of one pipeline from writing the same output at once.
///
/// The lock is a kernel `flock(LOCK_EX | LOCK_NB)` on `<output>.lock` in the output's folder, so it vanishes
/// with its process however that process ends: a lock file left by a killed run is simply locked again. The
/// holder writes `pid host started-at` into the file, and a second run reads it back to say who holds the lock.
/// Releasing (explicitly or when the object dies) removes the file while still holding the lock, and taking the
/// lock checks that the locked file is still the one at the path, so the removal cannot let two runs in.
package final class RunLock {
    /// The lock file's path.
    package let path: String
    /// The text written into the lock file: `pid host started-at`.
    package let holder: String
    private var fd: Int32

    /// The lock path for an output package: `<output>.lock` (a shortened stem for names near NAME_MAX, so a
    /// 255-byte output name still gets a lock; `TemporaryName.lockName`).
    package static func lockPath(forOutput output: String) -> String {
        guard let slash = output.lastIndex(of: "/") else { return TemporaryName.lockName(for: output) }
        return String(output[...slash]) + TemporaryName.lockName(for: String(output[output.index(after: slash)...]))
    }

    /// Takes the lock for `output` without waiting.
    /// - Throws: `.lockHeld` (exit 75) naming the holder when another process holds it; `.lockFailed` (73) when
    ///   the lock file cannot be created (missing or read-only folder).
    package convenience init(output: String) throws(NightlyError) {
        try self.init(lockPath: Self.lockPath(forOutput: output))
    }

    /// Takes the lock at `lockPath` without waiting (see `init(output:)`).
    package init(lockPath: String) throws(NightlyError) {
        path = lockPath
        var attempts = 0
        while true {
            attempts += 1
            let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard fd >= 0 else { throw .lockFailed(lockPath: lockPath, errno: errno) }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let e = errno
                if e == EWOULDBLOCK || e == EAGAIN {
                    let text = Self.readHolder(fd)
                    _ = close(fd)
                    throw .lockHeld(lockPath: lockPath, holder: text)
                }
                _ = close(fd)
                if e == EINTR && attempts < 100 { continue }
                throw .lockFailed(lockPath: lockPath, errno: e)
            }
            // A releasing holder unlinks the file before unlocking: if the path now names another file (or none),
            // we locked a dead inode; start again on the current one.
            var mine = stat()
            var named = stat()
            if fstat(fd, &mine) == 0, stat(lockPath, &named) == 0, mine.st_dev == named.st_dev,
                mine.st_ino == named.st_ino
            {
                self.fd = fd
                break
            }
            _ = close(fd)
            guard attempts < 100 else { throw .lockFailed(lockPath: lockPath, errno: EAGAIN) }
        }
        var host = [CChar](repeating: 0, count: 256)
        let hostName =
            gethostname(&host, host.count - 1) == 0
            ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
        let safeHost = hostName.isEmpty ? "unknown" : hostName.replacing(" ", with: "_")
        holder = "\(getpid()) \(safeHost) \(UTCTimestamp.format(secondsSince1970: UTCTimestamp.now()))"
        // The holder text is informative only: a failure to write it does not give up the lock.
        _ = ftruncate(fd, 0)
        let line = Array((holder + "\n").utf8)
        _ = line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit { release() }

    /// True while the lock is held.
    package var isHeld: Bool { fd >= 0 }

    /// Removes the lock file and releases the lock. Safe to call more than once.
    package func release() {
        guard fd >= 0 else { return }
        _ = unlink(path)
        _ = close(fd)
        fd = -1
    }

    /// The holder's text. A holder that has just taken the lock may not have written it yet: retry briefly.
    private static func readHolder(_ fd: Int32) -> String {
        for attempt in 0..<10 {
            var buffer = [UInt8](repeating: 0, count: 512)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                let text = String(decoding: buffer[..<n], as: UTF8.self)
                let line = text.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? ""
                let cleaned = String(
                    line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
                if !cleaned.isEmpty { return cleaned }
            }
            if attempt < 9 { usleep(20_000) }
        }
        return ""
    }
}
