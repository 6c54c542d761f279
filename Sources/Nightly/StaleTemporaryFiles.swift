import Glibc

/// Finds and removes temporary files that earlier, killed runs left next to their output.
///
/// The package writers (`TileArchive.AtomicFile`) stage a package as `<name>.tmp-<pid>-<8 hex digits>` in the
/// output's folder and rename it into place; a run killed with SIGKILL or a power cut leaves that file behind.
/// Only regular files with exactly that name pattern are touched, and only when they are older than the given
/// age and the process named in the file is no longer alive on this host, so a concurrent run's file is safe.
package enum StaleTemporaryFiles {
    /// Parses a temp name: the target's name and the writer's pid, or nil when `fileName` is not
    /// `<name>.tmp-<pid>-<8 lowercase hex digits>` with a non-empty name.
    package static func parse(_ fileName: String) -> (target: String, pid: Int32)? {
        let bytes = Array(fileName.utf8)
        // Suffix: "-" + 8 hex digits.
        guard bytes.count > 9 + 6 else { return nil }
        let hex = bytes[(bytes.count - 8)...]
        guard bytes[bytes.count - 9] == UInt8(ascii: "-"),
            hex.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        // Before it: ".tmp-" + decimal pid.
        var i = bytes.count - 10
        var digits = 0
        while i >= 0, (0x30...0x39).contains(bytes[i]) {
            digits += 1
            i -= 1
        }
        guard digits >= 1, digits <= 10, i >= 5 else { return nil }
        let marker = Array(".tmp-".utf8)
        guard Array(bytes[(i - 4)...i]) == marker else { return nil }
        let targetEnd = i - 4
        guard targetEnd > 0 else { return nil }
        let pidText = String(decoding: bytes[(i + 1)..<(i + 1 + digits)], as: UTF8.self)
        guard let pid = Int32(pidText), pid > 0 else { return nil }
        return (String(decoding: bytes[..<targetEnd], as: UTF8.self), pid)
    }

    /// Removes stale temp files in `folder` older than `olderThan` seconds whose writer is gone; only those of
    /// `target` (a file name such as `forest.pmtiles`) when given. Returns the removed paths, sorted.
    /// - Throws: `.io` (74) when the folder cannot be listed.
    @discardableResult
    package static func remove(in folder: String, target: String? = nil, olderThan seconds: Double) throws(NightlyError)
        -> [String]
    {
        let now = UTCTimestamp.now()
        return try sweep(folder: folder) { name, st, pid in
            if let target, name != target { return false }
            let mtime = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            guard now - mtime >= seconds else { return false }
            return pid != getpid() && !isAlive(pid)
        }
    }

    /// Removes every temp file of process `pid` (this process by default) in `folder`, whatever its age: the
    /// cleanup a signal handler runs. Returns the removed paths, sorted.
    @discardableResult
    package static func removeOwn(in folder: String, target: String? = nil, pid: Int32 = getpid()) throws(NightlyError)
        -> [String]
    {
        try sweep(folder: folder) { name, _, owner in
            if let target, name != target { return false }
            return owner == pid
        }
    }

    /// True when a process with that id exists on this host (`kill(pid, 0)` succeeds or is refused for
    /// permissions).
    static func isAlive(_ pid: Int32) -> Bool {
        if kill(pid, 0) == 0 { return true }
        return errno == EPERM
    }

    private static func sweep(folder: String, _ shouldRemove: (String, stat, Int32) -> Bool) throws(NightlyError)
        -> [String]
    {
        guard let dir = opendir(folder) else { throw .io(operation: "list folder", path: folder, errno: errno) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            names.append(name)
        }
        closedir(dir)
        var removed: [String] = []
        for name in names.sorted() {
            guard let (target, pid) = parse(name) else { continue }
            let path = (folder.hasSuffix("/") ? folder : folder + "/") + name
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            guard shouldRemove(target, st, pid) else { continue }
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed
    }
}
