import Glibc
import KartpackCore

/// The scratch file of a run's sort runs: created as `<output>.data.tmp-<pid>-<hex>` in the scratch folder and
/// unlinked at once, so nothing is left on any exit path (error, SIGINT/SIGTERM/SIGHUP, even SIGKILL). The name
/// is the one `StaleTemporaryFiles.removeAbandoned` sweeps, for the moment between `open` and `unlink`.
/// Written sequentially (appends), read with `pread` at any offset.
package final class SpillFile {
    private var fd: Int32
    /// The path the file had (it no longer exists), for messages.
    package let path: String
    /// The folder it lives in.
    package let folder: String
    /// Bytes written.
    private(set) var size: UInt64 = 0

    package init(folder: String, outputName: String) throws(SpillError) {
        self.folder = folder
        var attempt = 0
        while true {
            let name = TemporaryName.make(for: outputName + ".data", pid: getpid())
            let candidate = (folder == "/" ? "/" : folder + "/") + name
            let fd = open(candidate, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                guard unlink(candidate) == 0 else {
                    let e = errno
                    _ = Glibc.close(fd)
                    throw .cannotCreate(folder: folder, errno: e)
                }
                self.fd = fd
                path = candidate
                return
            }
            let e = errno
            attempt += 1
            if e == EEXIST && attempt < 32 { continue }
            throw .cannotCreate(folder: folder, errno: e)
        }
    }

    deinit { close() }

    /// Gives the space back (the file has no name, so closing it frees it).
    package func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    /// Appends `bytes`; returns the offset they start at.
    @discardableResult
    package func append(_ bytes: [UInt8]) throws(SpillError) -> UInt64 {
        let start = size
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(start) + off_t(done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "write", path: path, errno: errno)
            }
            done += n
        }
        size += UInt64(bytes.count)
        return start
    }

    /// Cuts the file back to its first `size` bytes (what was appended after them is forgotten).
    func truncate(to size: UInt64) throws(SpillError) {
        precondition(size <= self.size, "truncating past the end")
        while ftruncate(fd, off_t(size)) != 0 {
            if errno != EINTR { throw .io(operation: "truncate", path: path, errno: errno) }
        }
        self.size = size
    }

    /// Reads `count` bytes at `offset`.
    package func read(offset: UInt64, count: Int) throws(SpillError) -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset + UInt64(count) <= size else { throw .corrupt("read past the end of the scratch file") }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "read", path: path, errno: errno)
            }
            if n == 0 { throw .io(operation: "read", path: path, errno: EIO) }
            done += n
        }
        return out
    }
}
