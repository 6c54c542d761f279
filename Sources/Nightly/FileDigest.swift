import Glibc
import Checksum

/// The size and SHA-256 of one file, as listed in run reports.
package struct FileDigest: Sendable, Hashable, Codable {
    /// The file's path as it was read.
    package var path: String
    /// Its size in bytes.
    package var bytes: UInt64
    /// SHA-256 as 64 lowercase hex digits.
    package var sha256: String

    /// Creates a record.
    package init(path: String, bytes: UInt64, sha256: String) {
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
    }

    /// Chunk size for streaming reads.
    package static let chunkSize = 1 << 20

    /// Hashes a file in 1 MiB chunks (never loading it whole).
    package static func sha256(path: String) throws(NightlyError) -> FileDigest {
        try stream(path: path) { _ in }
    }

    /// Streams a file through SHA-256, handing every chunk to `visit` as well (the fingerprint feeds the same
    /// bytes to its own hash). The size is taken before reading; a file that grows or shrinks meanwhile is
    /// `.inputChanged`.
    static func stream(
        path: String, expectSize: ((UInt64) -> Void)? = nil, _ visit: (UnsafeRawBufferPointer) -> Void
    ) throws(NightlyError) -> FileDigest {
        // O_NONBLOCK: a FIFO swapped in for an input must not block the open (it is refused below).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .inputUnreadable(path: path, errno: errno) }
        defer { _ = close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .io(operation: "fstat", path: path, errno: errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .inputUnreadable(path: path, errno: EISDIR) }
        let size = UInt64(max(0, st.st_size))
        expectSize?(size)
        var hash = SHA256()
        var total: UInt64 = 0
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "read", path: path, errno: errno)
            }
            if n == 0 { break }
            total += UInt64(n)
            guard total <= size else { throw .inputChanged(path: path) }
            buffer.withUnsafeBytes { raw in
                let chunk = UnsafeRawBufferPointer(rebasing: raw[0..<n])
                hash.update(chunk)
                visit(chunk)
            }
        }
        guard total == size else { throw .inputChanged(path: path) }
        return FileDigest(path: path, bytes: size, sha256: hash.finalizeHex())
    }
}
