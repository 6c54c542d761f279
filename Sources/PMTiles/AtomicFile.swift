#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import KartpackCore

/// A file published atomically: bytes go to `name.tmp-<pid>-<rand>` in the destination folder (a shortened stem
/// for names near NAME_MAX, `TemporaryName`), and `publish()`
/// fsyncs it, renames it over the target and fsyncs the folder.
///
/// Until `publish()` succeeds the target is untouched; on `discard()` (or when the object dies unpublished)
/// the temp file is removed. Without `overwrite`, an existing target is refused when the object is created and
/// again, atomically (`link`), at publish time.
public final class AtomicFile {
    private enum State { case open, published, discarded }

    /// The final path.
    public let targetPath: String
    /// The temp file in the target's folder.
    public let temporaryPath: String
    /// Whether an existing target may be replaced.
    public let overwrite: Bool
    /// Suffixes of files that belong to the target and must not outlive its replacement, e.g. SQLite's `-wal`,
    /// `-shm` and `-journal`: a stale write-ahead log next to a new MBTiles file makes SQLite read it as
    /// "malformed". Regular files with these names are removed right before the rename; anything else there (a
    /// folder, a FIFO) makes the publish fail, since SQLite would trip over it.
    public let staleSidecarSuffixes: [String]
    private let directory: String
    private var fd: Int32
    private var state = State.open

    /// Creates the temp file (`O_CREAT | O_EXCL`, mode 0644 minus umask) next to `targetPath`.
    /// - Throws: `.targetExists` when the target exists and `overwrite` is false; `.cannotCreate` when the temp
    ///   file cannot be made (missing or read-only folder).
    public init(targetPath: String, overwrite: Bool, staleSidecarSuffixes: [String] = []) throws(TileArchiveError) {
        let (directory, name) = POSIXFile.split(targetPath)
        guard !name.isEmpty, name != ".", name != ".." else { throw .cannotCreate(path: targetPath, errno: EISDIR) }
        if !overwrite && POSIXFile.exists(targetPath) { throw .targetExists(path: targetPath) }
        // Refused before any work: something other than a regular file at the target or a sidecar name.
        for path in [targetPath] + staleSidecarSuffixes.map({ targetPath + $0 }) {
            var st = stat()
            if lstat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFREG {
                throw .cannotCreate(path: path, errno: (st.st_mode & S_IFMT) == S_IFDIR ? EISDIR : EEXIST)
            }
        }
        self.staleSidecarSuffixes = staleSidecarSuffixes
        var attempt = 0
        while true {
            let candidate = (directory == "/" ? "/" : directory + "/") + TemporaryName.make(for: name, pid: getpid())
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                self.fd = fd
                self.temporaryPath = candidate
                break
            }
            let e = errno
            attempt += 1
            if e == EEXIST && attempt < 32 { continue }
            throw .cannotCreate(path: candidate, errno: e)
        }
        self.targetPath = targetPath
        self.overwrite = overwrite
        self.directory = directory
    }

    deinit {
        if state == .open { discard() }
    }

    /// Appends bytes to the temp file.
    public func write(_ bytes: [UInt8]) throws(TileArchiveError) {
        guard state == .open, fd >= 0 else { throw .writerClosed(path: targetPath) }
        try POSIXFile.writeAll(fd, bytes, path: temporaryPath)
    }

    #if os(Linux)
        /// Appends `count` bytes of the open file `source` from `offset`, copied by the kernel (`sendfile`) instead
        /// of read into memory and written back; false, with nothing appended, when the kernel refuses to copy
        /// between these two files.
        func appendCopy(of source: Int32, offset: UInt64, count: UInt64, sourcePath: String) throws(TileArchiveError)
            -> Bool
        {
            guard state == .open, fd >= 0 else { throw .writerClosed(path: targetPath) }
            var position = off_t(offset)
            var left = count
            while left > 0 {
                let n = sendfile(fd, source, &position, Int(min(left, 1 << 30)))
                if n < 0 {
                    let e = errno
                    if e == EINTR { continue }
                    if left == count, e == EINVAL || e == ENOSYS { return false }
                    throw .io(operation: "write", path: temporaryPath, errno: e)
                }
                if n == 0 { throw .io(operation: "read", path: sourcePath, errno: EIO) }
                left -= UInt64(n)
            }
            return true
        }
    #endif

    /// Fsyncs and closes the temp file, renames it over the target and fsyncs the folder.
    /// On failure the temp file is removed and the target is left as it was (unless the rename itself happened).
    public func publish() throws(TileArchiveError) {
        guard state == .open, fd >= 0 else { throw .writerClosed(path: targetPath) }
        do throws(TileArchiveError) {
            try POSIXFile.sync(fd, path: temporaryPath)
            let closing = fd
            fd = -1
            try POSIXFile.closeChecked(closing, path: temporaryPath)
            try moveIntoPlace()
        } catch {
            discard()
            throw error
        }
        state = .published
        try POSIXFile.syncDirectory(directory)
    }

    private func moveIntoPlace() throws(TileArchiveError) {
        for suffix in staleSidecarSuffixes {
            let path = targetPath + suffix
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            guard (st.st_mode & S_IFMT) == S_IFREG else { throw .cannotCreate(path: path, errno: EEXIST) }
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .io(operation: "remove the stale \(suffix) file", path: path, errno: errno)
            }
        }
        if overwrite {
            guard rename(temporaryPath, targetPath) == 0 else {
                throw .io(operation: "rename to \(targetPath)", path: temporaryPath, errno: errno)
            }
            return
        }
        // `link` refuses an existing target atomically; fall back to check-then-rename where links are unsupported.
        if link(temporaryPath, targetPath) == 0 {
            // The target is in place; a failed unlink only leaves a second name for the same file.
            _ = unlink(temporaryPath)
            return
        }
        let e = errno
        if e == EEXIST { throw .targetExists(path: targetPath) }
        guard e == EPERM || e == EOPNOTSUPP || e == EMLINK || e == EXDEV else {
            throw .io(operation: "link to \(targetPath)", path: temporaryPath, errno: e)
        }
        if POSIXFile.exists(targetPath) { throw .targetExists(path: targetPath) }
        guard rename(temporaryPath, targetPath) == 0 else {
            throw .io(operation: "rename to \(targetPath)", path: temporaryPath, errno: errno)
        }
    }

    /// Closes and removes the temp file; the target is not touched. Safe to call more than once.
    public func discard() {
        guard state == .open else { return }
        state = .discarded
        if fd >= 0 {
            _ = close(fd)
            fd = -1
        }
        _ = unlink(temporaryPath)
    }
}
