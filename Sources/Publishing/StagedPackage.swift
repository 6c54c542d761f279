import Glibc
import KartpackCore

/// The file a build is converted into before the publish decision: `<stem>.tmp-<pid>-<8 hex>` next to the target
/// (`TemporaryName`: the stem is the name, shortened when near NAME_MAX; the name `StaleTemporaryFiles` recognises,
/// so a file a killed run left is removed by a later run). `publish` renames it over the target (atomic; an
/// existing target is replaced only with `overwrite`) and fsyncs the folder; `discard` (or deinit) removes it.
/// Until `publish`, the target is not touched.
package final class StagedPackage {
    package let target: String
    package let path: String
    /// Files named `<target><suffix>` that must not outlive the file they belong to: SQLite's `-wal`, `-shm` and
    /// `-journal` for an MBTiles target (a stale write-ahead log would be applied to the new file, which SQLite
    /// then reads as "malformed").
    let staleSidecarSuffixes: [String]
    private let folder: String
    private var done = false

    /// Chooses a staging name no file has. Nothing is created: the converter's writer creates the file (and
    /// removes its own temporary file on failure), so a run killed before writing leaves nothing behind.
    package init(target: String, staleSidecarSuffixes: [String] = []) throws(PublishError) {
        self.target = target
        self.staleSidecarSuffixes = staleSidecarSuffixes
        let slash = target.lastIndex(of: "/")
        let folder = slash.map { String(target[..<$0]) } ?? "."
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        self.folder = folder.isEmpty ? "/" : folder
        let prefix = slash == nil ? "" : (self.folder == "/" ? "/" : self.folder + "/")
        for _ in 0..<32 {
            // `TemporaryName` shortens the stem of a name near NAME_MAX, so a 255-byte output name stages too.
            let candidate = prefix + TemporaryName.make(for: name, pid: getpid())
            var st = stat()
            if lstat(candidate, &st) != 0 && errno == ENOENT {
                path = candidate
                return
            }
        }
        throw .cannotStage(path: target, reason: "no free temporary name next to it")
    }

    deinit { discard() }

    /// Removes the target's stale sidecars (regular files only) when the target is replaced or absent; a sidecar
    /// that is not a regular file (a folder, a FIFO) refuses the publish, since SQLite would trip over it. The
    /// sidecars of an existing target that is kept (no `overwrite`) stay: a reader may be using them.
    private func removeStaleSidecars(overwrite: Bool) throws(PublishError) {
        var st = stat()
        if !overwrite && lstat(target, &st) == 0 { return }
        for suffix in staleSidecarSuffixes {
            let path = target + suffix
            guard lstat(path, &st) == 0 else { continue }
            guard (st.st_mode & S_IFMT) == S_IFREG else {
                throw .cannotPublish(
                    path: target, reason: "\(path) is a \(RegularFile.describe(st.st_mode)), not a stale \(suffix) file"
                )
            }
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .cannotPublish(
                    path: target, reason: "cannot remove the stale \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Moves the staged package to the target. Without `overwrite`, an existing target is refused (atomically,
    /// with `link`).
    package func publish(overwrite: Bool) throws(PublishError) {
        guard !done else { return }
        try removeStaleSidecars(overwrite: overwrite)
        if overwrite {
            guard rename(path, target) == 0 else {
                throw .cannotPublish(path: target, reason: String(cString: strerror(errno)))
            }
        } else {
            guard link(path, target) == 0 else {
                let e = errno
                if e == EEXIST { throw .targetExists(path: target) }
                throw .cannotPublish(path: target, reason: String(cString: strerror(e)))
            }
            _ = unlink(path)
        }
        done = true
        RegularFile.syncFolder(folder)
    }

    /// Removes the staged file; the target is not touched. Safe to call more than once.
    package func discard() {
        guard !done else { return }
        done = true
        _ = unlink(path)
    }
}

/// A staged build that cannot be published.
package enum PublishError: KartpackError, Equatable {
    /// The staging file cannot be created next to the output.
    case cannotStage(path: String, reason: String)
    /// The rename into place failed (the previous package is untouched).
    case cannotPublish(path: String, reason: String)
    /// The output appeared while converting and `--force` was not given.
    case targetExists(path: String)

    package var exitCode: ExitCode {
        switch self {
        case .cannotStage, .targetExists: .cantCreate
        case .cannotPublish: .ioError
        }
    }

    package var description: String {
        switch self {
        case .cannotStage(let p, let r): "\(p): cannot create the staging file: \(r)"
        case .cannotPublish(let p, let r): "\(p): cannot publish: \(r); the previous package is untouched"
        case .targetExists(let p): "\(p): already exists; pass --force to replace it"
        }
    }
}
