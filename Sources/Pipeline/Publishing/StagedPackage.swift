import Glibc
import KartpackCore

/// The file a build is converted into before the publish decision: `<name>.tmp-<pid>-<8 hex>` next to the target
/// (the name `StaleTemporaryFiles` recognises, so a killed run's file is removed by a later run). `publish`
/// renames it over the target (atomic; an existing target is replaced only with `overwrite`) and fsyncs the folder;
/// `discard` (or deinit) removes it. Until `publish`, the target is not touched.
final class StagedPackage {
    let target: String
    let path: String
    private let folder: String
    private var done = false

    /// Reserves the staging name (an empty file created with `O_EXCL`; the converter replaces it).
    init(target: String) throws(PublishError) {
        self.target = target
        let slash = target.lastIndex(of: "/")
        let folder = slash.map { String(target[..<$0]) } ?? "."
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        self.folder = folder.isEmpty ? "/" : folder
        var attempt = 0
        while true {
            let hex = String(UInt32.random(in: 0...UInt32.max), radix: 16)
            let suffix = String(repeating: "0", count: 8 - hex.count) + hex
            let candidate = (slash == nil ? "" : self.folder == "/" ? "/" : self.folder + "/")
                + "\(name).tmp-\(getpid())-\(suffix)"
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                close(fd)
                path = candidate
                return
            }
            let e = errno
            attempt += 1
            if e == EEXIST && attempt < 32 { continue }
            throw .cannotStage(path: candidate, reason: String(cString: strerror(e)))
        }
    }

    deinit { discard() }

    /// Moves the staged package to the target. Without `overwrite`, an existing target is refused (atomically,
    /// with `link`).
    func publish(overwrite: Bool) throws(PublishError) {
        guard !done else { return }
        if overwrite {
            guard rename(path, target) == 0 else { throw .cannotPublish(path: target, reason: String(cString: strerror(errno))) }
        } else {
            guard link(path, target) == 0 else {
                let e = errno
                if e == EEXIST { throw .targetExists(path: target) }
                throw .cannotPublish(path: target, reason: String(cString: strerror(e)))
            }
            _ = unlink(path)
        }
        done = true
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }

    /// Removes the staged file; the target is not touched. Safe to call more than once.
    func discard() {
        guard !done else { return }
        done = true
        _ = unlink(path)
    }
}

/// A staged build that cannot be published.
public enum PublishError: KartpackError, Equatable {
    /// The staging file cannot be created next to the output.
    case cannotStage(path: String, reason: String)
    /// The rename into place failed (the previous package is untouched).
    case cannotPublish(path: String, reason: String)
    /// The output appeared while converting and `--force` was not given.
    case targetExists(path: String)

    public var exitCode: ExitCode {
        switch self {
        case .cannotStage, .targetExists: .cantCreate
        case .cannotPublish: .ioError
        }
    }

    public var description: String {
        switch self {
        case .cannotStage(let p, let r): "\(p): cannot create the staging file: \(r)"
        case .cannotPublish(let p, let r): "\(p): cannot publish: \(r); the previous package is untouched"
        case .targetExists(let p): "\(p): already exists; pass --force to replace it"
        }
    }
}
