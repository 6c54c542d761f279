internal import CProj
import Glibc
import KartpackCore

/// A PROJ file API (`proj_context_set_fileapi`) that lets PROJ read regular files inside the proj-data directory
/// and nothing else: no file a CRS text names by path, no FIFO or device (which would block PROJ forever), no
/// writes, renames or deletions. Installed on every `ProjContext`, so even a CRS text that got past the sanitizers
/// cannot make PROJ open a file the user did not ship with PROJ.
///
/// The user data of the callbacks is a C string: the real path of the allowed directory, owned by the context.
enum ProjFileAccess {
    /// Installs the API on `context`, allowing `directory` (resolved with `realpath`). Returns the C string the
    /// callbacks use; the caller frees it (`free`) after destroying the context. Nil when PROJ refused the API.
    static func install(on context: OpaquePointer, allowing directory: String) -> UnsafeMutablePointer<CChar>? {
        let real = RegularFile.realPath(directory) ?? directory
        guard let userData = strdup(real) else { return nil }
        var api = PROJ_FILE_API()
        api.version = 1
        api.open_cbk = { _, name, access, userData in
            guard access == PROJ_OPEN_ACCESS_READ_ONLY, let name, let userData,
                let path = ProjFileAccess.allowedPath(name, directory: userData)
            else { return nil }
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
            guard fd >= 0 else { return nil }
            var st = stat()
            guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
                _ = close(fd)
                return nil
            }
            let handle = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
            handle.initialize(to: fd)
            return OpaquePointer(handle)
        }
        api.read_cbk = { _, handle, buffer, size, _ in
            guard let handle, let buffer else { return 0 }
            let fd = UnsafeMutablePointer<Int32>(handle).pointee
            var done = 0
            while done < size {
                let n = read(fd, buffer + done, size - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
            return done
        }
        api.write_cbk = { _, _, _, _, _ in 0 }
        api.seek_cbk = { _, handle, offset, whence, _ in
            guard let handle else { return 0 }
            return lseek(UnsafeMutablePointer<Int32>(handle).pointee, off_t(offset), whence) >= 0 ? 1 : 0
        }
        api.tell_cbk = { _, handle, _ in
            guard let handle else { return 0 }
            return UInt64(max(0, lseek(UnsafeMutablePointer<Int32>(handle).pointee, 0, SEEK_CUR)))
        }
        api.close_cbk = { _, handle, _ in
            guard let handle else { return }
            let p = UnsafeMutablePointer<Int32>(handle)
            _ = close(p.pointee)
            p.deallocate()
        }
        api.exists_cbk = { _, name, userData in
            guard let name, let userData, let path = ProjFileAccess.allowedPath(name, directory: userData) else {
                return 0
            }
            var st = stat()
            return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? 1 : 0
        }
        api.mkdir_cbk = { _, _, _ in 0 }
        api.unlink_cbk = { _, _, _ in 0 }
        api.rename_cbk = { _, _, _, _ in 0 }
        guard proj_context_set_fileapi(context, &api, userData) != 0 else {
            free(userData)
            return nil
        }
        return userData
    }

    /// The real path of `name` when it lies inside `directory` (itself a real path), else nil.
    static func allowedPath(_ name: UnsafePointer<CChar>, directory: UnsafeMutableRawPointer) -> String? {
        guard let path = RegularFile.realPath(String(cString: name)) else { return nil }
        let allowed = String(cString: directory.assumingMemoryBound(to: CChar.self))
        return isInside(path, directory: allowed) ? path : nil
    }

    /// True when `path` is `directory` itself or lies below it (both real paths).
    static func isInside(_ path: String, directory: String) -> Bool {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return path.hasPrefix(prefix)
    }
}
