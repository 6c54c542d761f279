import KartpackCore

/// Why an import source (a zip archive or a folder) was refused. Every message names the archive or folder and,
/// where there is one, the entry.
///
/// Exit codes: a hostile or broken archive is 65 (`EX_DATAERR`); a missing or unreadable source is 66
/// (`EX_NOINPUT`); failing to write the extracted files (disk full, …) is 74 (`EX_IOERR`).
package enum ImportError: KartpackError, Hashable {
    /// The archive or folder does not exist or cannot be opened (66).
    case sourceUnreadable(path: String, reason: String)
    /// The file is not a zip archive, or its container structure (end record, central directory) is broken or
    /// truncated (65).
    case notAZip(archive: String, reason: String)
    /// An entry would escape the extraction folder (`..`, absolute path, drive letter, NUL byte) or is a
    /// symbolic link (65). The whole archive is refused.
    case unsafeEntry(archive: String, entry: String, reason: String)
    /// A cap on entries, sizes or compression ratio was exceeded (65); `entry` is nil for archive-wide caps.
    case limitExceeded(source: String, entry: String?, reason: String)
    /// An entry's data is broken: CRC-32 or size mismatch, bad deflate data, local header disagreeing with the
    /// central directory, overlapping entries (65).
    case corruptEntry(archive: String, entry: String, reason: String)
    /// A feature this reader does not support: encryption, compression methods other than stored and deflate,
    /// split archives (65).
    case unsupported(archive: String, entry: String?, reason: String)
    /// Reading the archive or writing the extracted files failed (74), e.g. a full disk.
    case io(path: String, reason: String)

    /// The process exit code.
    package var exitCode: ExitCode {
        switch self {
        case .sourceUnreadable: .noInput
        case .notAZip, .unsafeEntry, .limitExceeded, .corruptEntry, .unsupported: .dataError
        case .io: .ioError
        }
    }

    /// A stable snake_case reason code for reports.
    package var code: ReasonCode {
        switch self {
        case .sourceUnreadable: .sourceUnreadable
        case .notAZip: .zipNotAnArchive
        case .unsafeEntry: .zipUnsafeEntry
        case .limitExceeded: .importLimitExceeded
        case .corruptEntry: .zipCorruptEntry
        case .unsupported: .zipUnsupported
        case .io: .ioError
        }
    }

    /// A one-line message naming the archive or folder and the entry.
    package var description: String {
        switch self {
        case .sourceUnreadable(let p, let r): "\(p): \(r)"
        case .notAZip(let a, let r): "\(a): not a usable zip archive: \(r)"
        case .unsafeEntry(let a, let e, let r): "\(a): entry \"\(e)\": \(r); the archive is refused"
        case .limitExceeded(let s, let e, let r):
            e.map { "\(s): entry \"\($0)\": \(r); the archive is refused" } ?? "\(s): \(r); refused"
        case .corruptEntry(let a, let e, let r): "\(a): entry \"\(e)\": \(r)"
        case .unsupported(let a, let e, let r):
            e.map { "\(a): entry \"\($0)\": \(r)" } ?? "\(a): \(r)"
        case .io(let p, let r): "\(p): \(r)"
        }
    }
}
