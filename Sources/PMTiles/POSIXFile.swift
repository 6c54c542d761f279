#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import KartpackCore

/// Checked POSIX file calls shared by the writers and readers. Every result is checked; failures become
/// `TileArchiveError.io` (exit code 74) carrying errno.
package enum POSIXFile {
    /// Writes every byte, retrying on `EINTR` and short writes.
    /// Writes all of `bytes` (typed throws cannot cross `withUnsafeBytes`, so the result is carried out).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(TileArchiveError) {
        let result: Result<Void, TileArchiveError> = bytes.withUnsafeBytes { raw in
            Result { () throws(TileArchiveError) in try writeAll(fd, raw, path: path) }
        }
        try result.get()
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(TileArchiveError) {
        guard var p = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = write(fd, p, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "write", path: path, errno: errno)
            }
            if n == 0 { throw .io(operation: "write", path: path, errno: EIO) }
            p += n
            left -= n
        }
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (fewer only at end of file).
    static func readAll(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, offset: UInt64, path: String
    ) throws(TileArchiveError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let (position, overflow) = offset.addingReportingOverflow(UInt64(done))
            guard !overflow, position <= UInt64(Int64.max) else { break }
            let n = pread(fd, base + done, buffer.count - done, off_t(position))
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "read", path: path, errno: errno)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// `fsync`, retrying on `EINTR`.
    static func sync(_ fd: Int32, path: String) throws(TileArchiveError) {
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            throw .io(operation: "fsync", path: path, errno: errno)
        }
    }

    /// Fsyncs a directory, so that a rename inside it is durable (`RegularFile.syncFolder`; `EINVAL`, from file
    /// systems that cannot sync directories, is accepted).
    static func syncDirectory(_ directory: String) throws(TileArchiveError) {
        if let failed = RegularFile.syncFolder(directory) {
            throw .io(operation: failed.operation, path: directory, errno: failed.errno)
        }
    }

    /// Closes a descriptor, reporting errors (`close` can report a delayed `EIO`/`ENOSPC`). `EINTR` is not retried:
    /// on Linux the descriptor is already released.
    static func closeChecked(_ fd: Int32, path: String) throws(TileArchiveError) {
        if close(fd) != 0 && errno != EINTR { throw .io(operation: "close", path: path, errno: errno) }
    }

    /// True when something (a file, a link, a directory) exists at `path`.
    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// The size of the file at `path`, or nil when it cannot be examined.
    package static func size(of path: String) -> UInt64? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return UInt64(max(0, st.st_size))
    }

    /// The folder holding `path` (`.` for a bare name) and the last component.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let dir = String(path[..<slash])
        return (dir.isEmpty ? "/" : dir, String(path[path.index(after: slash)...]))
    }

    /// The size of an open file, and whether it is a regular file.
    static func fileStatus(fd: Int32, path: String) throws(TileArchiveError) -> (size: UInt64, isRegular: Bool) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .io(operation: "fstat", path: path, errno: errno) }
        return (UInt64(max(0, st.st_size)), (st.st_mode & S_IFMT) == S_IFREG)
    }
}
