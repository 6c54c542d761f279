import Glibc
import KartpackCore

/// Finds and removes temporary files that earlier, killed runs left next to their output.
///
/// The package writers (`TileArchive.AtomicFile`) stage a package as `<name>.tmp-<pid>-<8 hex digits>` in the
/// output's folder and rename it into place; a run killed with SIGKILL or a power cut leaves that file behind.
/// Only regular files with exactly that name pattern (`TemporaryName`) are touched, and only when the process
/// named in the file is no longer alive on this host — and either they are older than the given age
/// (`remove(in:target:olderThan:)`, for other outputs' files) or the caller holds the output's lock
/// (`removeAbandoned`), so a concurrent run's file is safe.
package enum StaleTemporaryFiles {
    /// Parses a temp name: the stem of the target's name (the name itself unless it is near NAME_MAX, see
    /// `TemporaryName`) and the writer's pid, or nil when `fileName` is not `<stem>.tmp-<pid>-<8 hex digits>`
    /// (optionally with SQLite's `-journal`/`-wal`/`-shm`).
    package static func parse(_ fileName: String) -> (target: String, pid: Int32)? {
        TemporaryName.parse(fileName).map { ($0.stem, $0.pid) }
    }

    /// Removes stale temp files in `folder` older than `olderThan` seconds whose writer is gone; only those of
    /// `target` (a file name such as `forest.pmtiles`) when given. Returns the removed paths, sorted.
    /// - Throws: `.io` (74) when the folder cannot be listed.
    @discardableResult
    package static func remove(in folder: String, target: String? = nil, olderThan seconds: Double) throws(NightlyError)
        -> [String]
    {
        let now = UTCTimestamp.now()
        let stem = target.map { TemporaryName.stem(for: $0) }
        return try sweep(folder: folder) { name, st, pid in
            if let stem, name != stem { return false }
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
        let stem = target.map { TemporaryName.stem(for: $0) }
        return try sweep(folder: folder) { name, _, owner in
            if let stem, name != stem { return false }
            return owner == pid
        }
    }

    /// Removes, whatever their age, the temp files of the outputs named `targets` (file names such as
    /// `forest.pmtiles`, plus their `.data` scratch files) whose writer process is no longer alive on this host.
    /// Call it while holding the outputs' `RunLock`: every Kartpack writer of those outputs takes that lock, so
    /// their temporaries left in `folder` can only come from runs that were killed. A temporary of a temporary
    /// (`<name>.tmp-<pid>-<hex>.tmp-<pid>-<hex>`: the package writer's own temp file for the staged package a
    /// publish renames into place) belongs to the same output, and so does the scratch file of a temporary
    /// (`<name>.tmp-<pid>-<hex>.data.tmp-<pid>-<hex>`: the package writer's tile data while it writes the staged
    /// package, which exists between its `open` and `unlink`). Returns the removed paths.
    @discardableResult
    package static func removeAbandoned(in folder: String, targets: [String]) throws(NightlyError) -> [String] {
        let stems = Set(targets.flatMap { [TemporaryName.stem(for: $0), TemporaryName.stem(for: $0 + ".data")] })
        return try sweep(folder: folder) { name, _, pid in
            var stem = name
            var writers = [pid]
            while true {
                if let inner = TemporaryName.parse(stem) {
                    stem = inner.stem
                    writers.append(inner.pid)
                } else if stem.hasSuffix(".data"), let inner = TemporaryName.parse(String(stem.dropLast(5))) {
                    stem = inner.stem
                    writers.append(inner.pid)
                } else {
                    break
                }
            }
            return stems.contains(stem) && writers.allSatisfy { $0 != getpid() && !isAlive($0) }
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
