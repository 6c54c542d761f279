import KartpackCore
import Glibc
import Nightly

/// Why the external sort of tile pieces could not go on.
package enum SpillError: KartpackError, Equatable {
    /// The scratch folder cannot hold a file (missing, not a folder, not writable): exit 73.
    case cannotCreate(folder: String, errno: Int32)
    /// Writing or reading a sort run failed (ENOSPC, EIO …): exit 74.
    case io(operation: String, path: String, errno: Int32)
    /// Less free space in the scratch folder than the sort runs need: exit 74.
    case insufficientSpace(folder: String, available: UInt64, needed: UInt64)
    /// A sort run does not decode (a bug, or the disk returned other bytes): exit 70.
    case corrupt(String)

    package var exitCode: ExitCode {
        switch self {
        case .cannotCreate: .cantCreate
        case .io, .insufficientSpace: .ioError
        case .corrupt: .software
        }
    }

    package var description: String {
        switch self {
        case .cannotCreate(let folder, let e):
            "\(folder): cannot create the scratch file for sorting tile pieces: \(String(cString: strerror(e))) "
                + "(--scratch DIR names another folder)"
        case .io(let op, let path, let e): "\(path): \(op) of a sort run failed: \(String(cString: strerror(e)))"
        case .insufficientSpace(let folder, let available, let needed):
            "\(folder): not enough free disk space for sorting tile pieces: \(NightlyError.size(available)) "
                + "available, about \(NightlyError.size(needed)) needed (--scratch DIR on a bigger disk, or a larger "
                + "--memory-budget)"
        case .corrupt(let why): "internal error: a sort run of tile pieces does not decode (\(why))"
        }
    }
}
