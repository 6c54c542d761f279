import Glibc
import KartpackCore

/// Errors of the nightly-operation helpers (lock, disk space, input hashing), each with its exit code.
package enum NightlyError: KartpackError, Equatable {
    /// Another run holds the lock next to the output (exit 75). `holder` is the lock file's text
    /// (`pid host started-at`), empty when the holder wrote none.
    case lockHeld(lockPath: String, holder: String)
    /// The lock file cannot be created or locked (exit 73).
    case lockFailed(lockPath: String, errno: Int32)
    /// Less free space than the run needs (exit 74).
    case insufficientSpace(folder: String, available: UInt64, needed: UInt64)
    /// An input cannot be opened (exit 66).
    case inputUnreadable(path: String, errno: Int32)
    /// A read or filesystem call failed (exit 74).
    case io(operation: String, path: String, errno: Int32)
    /// An input changed size while it was being hashed (exit 75: try again later).
    case inputChanged(path: String)

    /// 75 for a held lock or a changing input, 73 when the lock cannot be made, 74 for space and I/O, 66 for
    /// a missing input.
    package var exitCode: ExitCode {
        switch self {
        case .lockHeld, .inputChanged: .tempFail
        case .lockFailed: .cantCreate
        case .insufficientSpace, .io: .ioError
        case .inputUnreadable: .noInput
        }
    }

    /// One line for stderr, naming the file or folder.
    package var description: String {
        switch self {
        case .lockHeld(let path, let holder):
            let who = Self.describeHolder(holder)
            return "another run is in progress (\(who)); lock \(path) is held. Exiting without doing anything."
        case .lockFailed(let path, let e): return "\(path): cannot take the run lock: \(Self.message(e))"
        case .insufficientSpace(let folder, let available, let needed):
            return
                "\(folder): not enough free disk space: \(Self.size(available)) available, about \(Self.size(needed)) "
                + "needed"
        case .inputUnreadable(let path, let e): return "\(path): \(Self.message(e))"
        case .io(let op, let path, let e): return "\(path): \(op) failed: \(Self.message(e))"
        case .inputChanged(let path): return "\(path): the file changed while it was being read; try again"
        }
    }

    /// `pid 4242 on host nightly-01 since 2026-01-01T02:00:00Z`, from the lock file's `pid host started-at`.
    static func describeHolder(_ text: String) -> String {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        guard parts.count >= 3 else {
            return text.isEmpty ? "held by another process that did not say who it is" : "held by \(text)"
        }
        return "pid \(parts[0]) on host \(parts[1]) since \(parts[2])"
    }

    static func message(_ e: Int32) -> String { String(cString: strerror(e)) }

    /// `1.5 GiB`, `320 MiB`, `12 KiB`, `900 bytes`.
    package static func size(_ bytes: UInt64) -> String {
        let units: [(UInt64, String)] = [(1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        for (scale, name) in units where bytes >= scale {
            let v = Double(bytes) / Double(scale)
            let rounded = (v * 10).rounded() / 10
            return "\(rounded) \(name)"
        }
        return "\(bytes) bytes"
    }
}
