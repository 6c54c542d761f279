import Glibc
import KartpackCore

/// A zip archive opened read-only and read with `pread`; the single owner of its descriptor.
///
/// The archive path itself is named by the user, so a symbolic link to it is followed; `O_NONBLOCK` keeps a FIFO
/// from blocking the open and `fstat` then refuses anything that is not a regular file (`/dev/zero` as `x.zip`).
package final class ArchiveFile {
    package let path: String
    package let fd: Int32
    package let size: Int

    package init(path: String) throws(ImportError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            // Out of descriptors is the machine's fault, not a missing archive: exit 74 naming the limit.
            if OpenFileLimit.isExhausted(e) {
                throw .io(path: path, reason: "cannot open the archive: \(OpenFileLimit.message(errno: e))")
            }
            throw .sourceUnreadable(path: path, reason: "cannot open the archive: \(String(cString: strerror(e)))")
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            close(fd)
            throw .sourceUnreadable(path: path, reason: "cannot stat the archive: \(String(cString: strerror(e)))")
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .notAZip(archive: path, reason: "it is not a regular file (\(FileKind.name(st.st_mode)))")
        }
        self.fd = fd
        self.size = Int(st.st_size)
    }

    deinit { close(fd) }

    /// The bytes `offset ..< offset + count`, clipped to the end of the file (short at EOF).
    package func bytes(at offset: Int, count: Int) throws(ImportError) -> [UInt8] {
        let n = max(0, min(count, size - offset))
        guard n > 0, offset >= 0 else { return [] }
        var out = [UInt8](repeating: 0, count: n)
        var done = 0
        var failure: Int32 = 0
        out.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            while done < n {
                let got = pread(fd, base + done, n - done, off_t(offset + done))
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if got == 0 { return }
                done += got
            }
        }
        if failure != 0 {
            throw .io(path: path, reason: "read failed at byte \(offset): \(String(cString: strerror(failure)))")
        }
        if done < n { out.removeSubrange(done...) }
        return out
    }

    /// Exactly `count` bytes at `offset`, or `notAZip` naming `what` when the file ends first.
    package func exactly(at offset: Int, count: Int, what: String) throws(ImportError) -> [UInt8] {
        let b = try bytes(at: offset, count: count)
        guard b.count == count else {
            throw .notAZip(archive: path, reason: "truncated: \(what) at byte \(offset) runs past the end of the file")
        }
        return b
    }
}

/// Names for file types (`st_mode & S_IFMT`), for messages.
package enum FileKind {
    package static func name(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "regular file"
        case S_IFDIR: "folder"
        case S_IFLNK: "symbolic link"
        case S_IFIFO: "FIFO"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        case S_IFSOCK: "socket"
        default: "special file"
        }
    }
}

/// Little-endian readers over byte arrays (bounds are the caller's job).
extension Array where Element == UInt8 {
    func le16(_ i: Int) -> Int { Int(self[i]) | Int(self[i + 1]) << 8 }
    func le32(_ i: Int) -> Int { le16(i) | le16(i + 2) << 16 }
    func le64(_ i: Int) -> UInt64 { UInt64(le32(i)) | UInt64(le32(i + 4)) << 32 }
}
