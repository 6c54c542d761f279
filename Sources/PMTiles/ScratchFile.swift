#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import KartpackCore

/// An anonymous scratch file for tile data: created and immediately unlinked, so nothing is left behind even
/// after a crash. Appends are buffered; reads see buffered bytes too.
final class ScratchFile {
    private var fd: Int32
    /// Where the file was created (for messages; the name no longer exists).
    let label: String
    private var buffer: [UInt8] = []
    private let bufferLimit = 1 << 20
    private var flushedSize: UInt64 = 0

    /// Bytes appended so far.
    var size: UInt64 { flushedSize + UInt64(buffer.count) }

    /// Creates `<directory>/<name>.tmp-<pid>-<rand>` and unlinks it at once.
    init(directory: String, name: String) throws(TileArchiveError) {
        var attempt = 0
        while true {
            let candidate = (directory == "/" ? "/" : directory + "/") + TemporaryName.make(for: name, pid: getpid())
            let fd = open(candidate, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                if unlink(candidate) != 0 {
                    let e = errno
                    _ = close(fd)
                    throw .cannotCreate(path: candidate, errno: e)
                }
                self.fd = fd
                self.label = candidate
                break
            }
            let e = errno
            attempt += 1
            if e == EEXIST && attempt < 32 { continue }
            throw .cannotCreate(path: candidate, errno: e)
        }
        buffer.reserveCapacity(bufferLimit)
    }

    deinit { release() }

    /// Releases the descriptor (and with it the file's space).
    func release() {
        if fd >= 0 { _ = close(fd) }
        fd = -1
    }

    private func liveFD() throws(TileArchiveError) -> Int32 {
        guard fd >= 0 else { throw .io(operation: "write", path: label, errno: EBADF) }
        return fd
    }

    /// Appends bytes at the end.
    func append(_ bytes: [UInt8]) throws(TileArchiveError) {
        if buffer.count + bytes.count > bufferLimit { try flush() }
        if bytes.count >= bufferLimit {
            try writeDirect(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    private func writeDirect(_ bytes: [UInt8]) throws(TileArchiveError) {
        try POSIXFile.writeAll(try liveFD(), bytes, path: label)
        flushedSize += UInt64(bytes.count)
    }

    /// Writes the buffer to the file.
    func flush() throws(TileArchiveError) {
        guard !buffer.isEmpty else { return }
        // Written from the buffer itself: a copy of it would make `removeAll` allocate a new buffer every flush.
        try writeDirect(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Reads `count` bytes at `offset` (which must lie within `size`).
    func read(offset: UInt64, count: Int) throws(TileArchiveError) -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset + UInt64(count) <= size else { throw .io(operation: "read", path: label, errno: EINVAL) }
        if offset >= flushedSize {
            let start = Int(offset - flushedSize)
            return Array(buffer[start..<start + count])
        }
        if offset + UInt64(count) > flushedSize { try flush() }
        let fd = try liveFD()
        let path = label
        var out = [UInt8](repeating: 0, count: count)
        let result: Result<Int, TileArchiveError> = out.withUnsafeMutableBytes { raw in
            do throws(TileArchiveError) {
                return .success(try POSIXFile.readAll(fd, into: raw, offset: offset, path: path))
            } catch {
                return .failure(error)
            }
        }
        let got = try result.get()
        guard got == count else { throw .io(operation: "read", path: label, errno: EIO) }
        return out
    }

    /// Copies the whole file, in order, to `destination`.
    func copy(to destination: AtomicFile) throws(TileArchiveError) {
        try flush()
        #if os(Linux)
            // In the kernel, page cache to page cache: no read into a buffer and write from it, 1 MiB at a time.
            if try destination.appendCopy(of: liveFD(), offset: 0, count: flushedSize, sourcePath: label) { return }
        #endif
        let chunk = 1 << 20
        var offset: UInt64 = 0
        while offset < flushedSize {
            let n = Int(min(UInt64(chunk), flushedSize - offset))
            try destination.write(try read(offset: offset, count: n))
            offset += UInt64(n)
        }
    }
}
