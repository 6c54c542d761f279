import Foundation

/// Why a file could not be read or written as a regular file.
public struct FileAccessError: KartpackError, Sendable {
    public var path: String
    public var reason: String
    public var exitCode: ExitCode
    public var description: String { "\(path): \(reason)" }

    public init(path: String, reason: String, exitCode: ExitCode) {
        self.path = path
        self.reason = reason
        self.exitCode = exitCode
    }
}

/// Reading and writing the small files around a run (stylesheets, icons, reports, styles, sprites) so that
/// nothing can make Kartpack block or write through something that is not a regular file.
///
/// - Reading opens with `O_NONBLOCK` (opening a FIFO never waits for a writer) and `fstat` must report a regular
///   file; a FIFO, device, socket or folder is refused (exit 66).
/// - Writing refuses a target that exists and is not a regular file — a FIFO, device, socket, folder or
///   symbolic link (exit 73) — before anything is written, then writes a temporary file in the target's folder
///   (`TemporaryName`), fsyncs it and renames it over the target: a reader never sees half a report.
public enum RegularFile {
    /// The kind of the object at `path` (not following a final symbolic link), or nil when nothing is there.
    public static func kind(at path: String) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return describe(st.st_mode)
    }

    /// "regular file", "FIFO", "folder", … for a `st_mode`.
    public static func describe(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "regular file"
        case S_IFIFO: return "FIFO"
        case S_IFDIR: return "folder"
        case S_IFLNK: return "symbolic link"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        case S_IFSOCK: return "socket"
        default: return "special file"
        }
    }

    /// Reads a whole regular file of at most `maxBytes`.
    /// - Throws: exit 66 when it is missing, unreadable, not a regular file or too large; 74 on a read error.
    public static func read(_ path: String, maxBytes: Int) throws(FileAccessError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw openFailure(path, errno: errno, exitCode: .noInput) }
        defer { _ = close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw FileAccessError(path: path, reason: "cannot examine it: \(message(errno))", exitCode: .ioError)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw FileAccessError(
                path: path, reason: "is a \(describe(st.st_mode)), not a regular file", exitCode: .noInput)
        }
        guard st.st_size <= maxBytes else {
            throw FileAccessError(path: path, reason: "is larger than \(maxBytes) bytes", exitCode: .noInput)
        }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileAccessError(path: path, reason: "read failed: \(message(errno))", exitCode: .ioError)
            }
            if n == 0 { return out }
            out.append(contentsOf: chunk[..<n])
            if out.count > maxBytes {
                throw FileAccessError(path: path, reason: "is larger than \(maxBytes) bytes", exitCode: .noInput)
            }
        }
    }

    /// Checks, before any work, that `path` can be written: its folder exists, and nothing but a regular file is
    /// at the path. Throws exit 73 otherwise.
    public static func checkWritable(_ path: String) throws(FileAccessError) {
        let (folder, name) = split(path)
        guard !name.isEmpty, name != ".", name != ".." else {
            throw FileAccessError(path: path, reason: "is not a file name", exitCode: .cantCreate)
        }
        guard !path.utf8.contains(0) else {
            throw FileAccessError(path: path, reason: "holds a NUL byte", exitCode: .cantCreate)
        }
        var st = stat()
        if lstat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFREG {
            throw FileAccessError(
                path: path, reason: "is a \(describe(st.st_mode)); refusing to write through it", exitCode: .cantCreate)
        }
        guard stat(folder, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw FileAccessError(path: path, reason: "the folder \(folder) does not exist", exitCode: .cantCreate)
        }
        guard name.utf8.count <= TemporaryName.maxNameBytes else {
            throw FileAccessError(path: path, reason: "the file name is longer than 255 bytes", exitCode: .cantCreate)
        }
    }

    /// Writes `bytes` to `path` atomically (temporary file, fsync, rename); see the type's documentation.
    public static func write(_ bytes: [UInt8], to path: String) throws(FileAccessError) {
        try checkWritable(path)
        let (folder, name) = split(path)
        let temporary = (folder == "/" ? "/" : folder + "/") + TemporaryName.make(for: name, pid: getpid())
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw openFailure(temporary, errno: errno, exitCode: .cantCreate) }
        var failure: Int32? = nil
        bytes.withUnsafeBytes { raw in
            guard var p = raw.baseAddress else { return }
            var left = raw.count
            while left > 0 {
                let n = Glibc.write(fd, p, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                p += n
                left -= n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == nil, errno != EINTR { failure = errno }
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if let failure {
            _ = unlink(temporary)
            throw FileAccessError(path: path, reason: "cannot write it: \(message(failure))", exitCode: .ioError)
        }
        // The rename is durable once the folder is synced; the file is already in place, so a folder that cannot
        // be synced does not undo the write.
        syncFolder(folder)
    }

    /// Fsyncs a folder so that a rename or link made inside it survives a crash: the one place that does it for
    /// every atomic publish. `EINTR` is retried; `EINVAL` (a file system that cannot sync folders) counts as
    /// synced. Returns what failed (`open directory` or `fsync directory`, and errno), nil when synced.
    @discardableResult
    public static func syncFolder(_ folder: String) -> (operation: String, errno: Int32)? {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return ("open directory", errno) }
        var failure: Int32 = 0
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            if errno != EINVAL { failure = errno }
            break
        }
        if close(fd) != 0 && failure == 0 && errno != EINTR { failure = errno }
        return failure == 0 ? nil : ("fsync directory", failure)
    }

    /// Writes text (UTF-8); see `write(_:to:)`.
    public static func write(_ text: String, to path: String) throws(FileAccessError) {
        try write(Array(text.utf8), to: path)
    }

    /// The folder (`.` for a bare name) and the last component of a path.
    public static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    /// The folder part of `path` as Foundation's `deletingLastPathComponent` gives it: "" for a bare name, "/"
    /// for a name in the root, trailing slashes ignored. Foundation's own traps on Linux for a one-character name
    /// (`"a"`, `"."`: `kartpack package … --report whole.json` crashed), so Kartpack uses this instead.
    public static func parentPath(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.last == "/" { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "" }
        var folder = p[..<slash]
        while folder.count > 1, folder.last == "/" { folder = folder.dropLast() }
        return folder.isEmpty ? "/" : String(folder)
    }

    /// `realpath(3)`: the absolute path with every link, `.` and `..` resolved; nil when it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    static func message(_ e: Int32) -> String { String(cString: strerror(e)) }

    /// An open failure: EMFILE/ENFILE are the environment's fault and say so (exit 74).
    static func openFailure(_ path: String, errno e: Int32, exitCode: ExitCode) -> FileAccessError {
        if e == EMFILE || e == ENFILE {
            return FileAccessError(path: path, reason: OpenFileLimit.message(errno: e), exitCode: .ioError)
        }
        return FileAccessError(path: path, reason: "cannot open it: \(message(e))", exitCode: exitCode)
    }
}

/// The open-file limit, for messages that blame the environment rather than the data (EMFILE, ENFILE).
public enum OpenFileLimit {
    /// The soft `RLIMIT_NOFILE`, or nil when unknown.
    public static var soft: UInt64? {
        var r = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r) == 0 else { return nil }
        return UInt64(r.rlim_cur)
    }

    /// True for EMFILE and ENFILE.
    public static func isExhausted(_ e: Int32) -> Bool { e == EMFILE || e == ENFILE }

    /// The stable reason code of an environment failure on open (exit 74).
    public static let code = ReasonCode.tooManyOpenFiles

    /// "too many open files: the limit is 24 (ulimit -n); …".
    public static func message(errno e: Int32) -> String { reason(errno: e) + " [\(code)]" }

    /// `message(errno:)` without the reason code in brackets (for errors that append their own).
    public static func reason(errno e: Int32) -> String {
        if e == ENFILE { return "too many open files in the whole system (ENFILE); close other programs and retry" }
        let limit = soft.map { "the process limit is \($0) (ulimit -n)" } ?? "the process limit (ulimit -n) is reached"
        return "too many open files (EMFILE): \(limit); raise it and retry"
    }

    /// EMFILE or ENFILE when the process cannot open `count` more descriptors right now, else nil (the probes are
    /// closed again). `kartpack` asks for a few at start: libdispatch traps when it cannot get its event
    /// descriptors, so a limit that low must end with a message before any queue is used.
    public static func lacksHeadroom(_ count: Int) -> Int32? {
        var opened: [Int32] = []
        defer { for fd in opened { _ = close(fd) } }
        for _ in 0..<count {
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if fd < 0 { return isExhausted(errno) ? errno : nil }
            opened.append(fd)
        }
        return nil
    }

    /// EMFILE or ENFILE when the process cannot open one more descriptor right now, else nil.
    ///
    /// For failures a library reports without errno (shapelib's open hook, PROJ's "cannot find proj.db", a child
    /// process that cannot start): when this answers non-nil the machine, not the data, is at fault.
    public static func exhaustedNow() -> Int32? {
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = close(fd)
            return nil
        }
        let e = errno
        return isExhausted(e) ? e : nil
    }
}
