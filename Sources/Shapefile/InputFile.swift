import Glibc
import Synchronization

/// One input file opened read-only, checked to be a regular file, read with `pread` (no shared offset).
///
/// Opening uses `O_NONBLOCK` so a FIFO named like an input cannot block the open, and `O_NOFOLLOW` so a symbolic
/// link named like an input (to `/dev/zero`, or to a file elsewhere) is refused; `fstat` then rejects anything
/// that is not a regular file (devices, FIFOs, sockets, folders). Both are `notARegularFile` (exit 65,
/// hostile-inputs.md §5 #44).
final class InputFile {
    let path: String
    let name: String
    let fd: Int32
    let size: Int
    /// The bytes `aheadBytes` read ahead, and where they start.
    private let window = Mutex<(start: Int, bytes: [UInt8])>((0, []))

    init(path: String) throws(ShapefileError) {
        self.path = path
        self.name = ShapefileLocator.fileName(path)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT { throw .fileNotFound(path: path) }
            if e == ELOOP { throw .notARegularFile(path: path, kind: "symbolic link") }
            if let exhausted = ShapefileError.exhausted(path, errno: e) { throw exhausted }
            throw .unreadable(path: path, reason: String(cString: strerror(e)))
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            close(fd)
            throw .unreadable(path: path, reason: String(cString: strerror(e)))
        }
        let type = st.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(fd)
            throw .notARegularFile(path: path, kind: Self.kindName(type))
        }
        self.fd = fd
        self.size = Int(st.st_size)
    }

    deinit { close(fd) }

    /// A name for a file type from `st_mode & S_IFMT`.
    static func kindName(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: "FIFO"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        case S_IFDIR: "folder"
        case S_IFSOCK: "socket"
        case S_IFLNK: "symbolic link"
        default: "special file"
        }
    }

    /// Reads up to `count` bytes at `offset` into `buffer`; returns the number read (short at end of file).
    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) throws(ShapefileError) -> Int {
        var done = 0
        while done < count {
            let n = pread(fd, buffer + done, count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw .ioError(file: name, offset: offset, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Reads exactly the bytes `offset ..< offset + count` clipped to the file size.
    func bytes(at offset: Int, count: Int) throws(ShapefileError) -> [UInt8] {
        let n = max(0, min(count, size - offset))
        guard n > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: n)
        var got = 0
        var failure: ShapefileError?
        out.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            do throws(ShapefileError) {
                got = try read(into: base, count: n, at: offset)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        if got < n { out.removeLast(n - got) }
        return out
    }

    /// What `bytes(at:count:)` gives, for a few bytes read in file order (each record's header): served from a
    /// 16 KiB window read ahead at the first offset it does not hold, not one `pread` each.
    func aheadBytes(at offset: Int, count: Int) throws(ShapefileError) -> [UInt8] {
        let n = max(0, min(count, size - offset))
        guard n > 0, n <= 1024 else { return try bytes(at: offset, count: count) }
        return try window.withLock { w throws(ShapefileError) -> [UInt8] in
            if offset < w.start || offset + n > w.start + w.bytes.count {
                w = (offset, try bytes(at: offset, count: 16 << 10))
            }
            let from = offset - w.start
            return Array(w.bytes[from..<min(from + n, w.bytes.count)])
        }
    }
}

/// Big- and little-endian readers over byte arrays (bounds are the caller's job).
extension Array where Element == UInt8 {
    func int32BE(_ i: Int) -> Int32 {
        Int32(
            bitPattern: UInt32(self[i]) << 24 | UInt32(self[i + 1]) << 16 | UInt32(self[i + 2]) << 8
                | UInt32(self[i + 3]))
    }
    func int32LE(_ i: Int) -> Int32 {
        Int32(
            bitPattern: UInt32(self[i]) | UInt32(self[i + 1]) << 8 | UInt32(self[i + 2]) << 16
                | UInt32(self[i + 3]) << 24)
    }
    func uint32LE(_ i: Int) -> UInt32 { UInt32(bitPattern: int32LE(i)) }
    func uint16LE(_ i: Int) -> Int { Int(self[i]) | Int(self[i + 1]) << 8 }
    func doubleLE(_ i: Int) -> Double {
        var bits: UInt64 = 0
        for k in 0..<8 { bits |= UInt64(self[i + k]) << (8 * UInt64(k)) }
        return Double(bitPattern: bits)
    }
    mutating func appendInt32BE(_ v: Int32) {
        let u = UInt32(bitPattern: v)
        append(contentsOf: [UInt8(u >> 24), UInt8(u >> 16 & 0xFF), UInt8(u >> 8 & 0xFF), UInt8(u & 0xFF)])
    }
}
