public import KartpackCore

/// Why a layer's CRS could not be resolved or a transform could not be built.
///
/// The child process that parses untrusted `.prj` files hands the error itself (not its text) back to the parent
/// (`ProjectionError+JSON`): the code stays `hostile_prj` or `unparseable_prj` and the message is said once.
public enum ProjectionError: KartpackError, Equatable {
    /// The layer has no `.prj` and no `--source-crs` was given.
    case missingPrj(file: String?)
    /// The `.prj` is larger than the reader reads (`limit` bytes), so the CRS is unknown.
    case prjTooLarge(file: String, size: Int, limit: Int)
    /// The `.prj` is not a CRS PROJ can read; `detail` quotes PROJ's grammar error or log text, or says why the
    /// text is not WKT at all.
    case unparseablePrj(file: String?, detail: String)
    /// The `.prj` could be read but is unsafe to hand to PROJ (file references, crash or hang triggers, size).
    case hostilePrj(file: String?, reason: String)
    /// The `--source-crs` text is not a CRS PROJ accepts.
    case badOverride(text: String, detail: String)
    /// PROJ found no way to go from the source CRS to the target; `detail` quotes PROJ's log.
    case cannotCreateTransform(source: String, target: String, detail: String)
    /// PROJ's database (`proj.db`, in the proj-data package) cannot be found.
    case projDatabaseMissing(detail: String)
    /// A PROJ context could not be set up (for example network access could not be turned off).
    case projSetupFailed(detail: String)
    /// The process ran out of file descriptors (EMFILE, or ENFILE for the system) while PROJ opened `proj.db` or
    /// while the CRS helper child was started: the machine's fault, not the `.prj`'s (exit 74,
    /// `too_many_open_files`). `what` names the file and the step (`layer.prj: cannot start the CRS helper`),
    /// `reason` the limit.
    case tooManyOpenFiles(what: String, reason: String)

    /// The same answer about the same text, naming `file`: answers are cached per `.prj` text, so a second layer
    /// with the same text must not be told about the first layer's file.
    func naming(_ file: String?) -> ProjectionError {
        switch self {
        case .unparseablePrj(_, let detail): .unparseablePrj(file: file, detail: detail)
        case .hostilePrj(_, let reason): .hostilePrj(file: file, reason: reason)
        case .missingPrj: .missingPrj(file: file)
        default: self
        }
    }

    /// The exit code a run ends with: bad data 65, bad usage 64, an installation problem 70, no descriptors 74.
    public var exitCode: ExitCode {
        switch self {
        case .missingPrj, .prjTooLarge, .unparseablePrj, .hostilePrj, .cannotCreateTransform: .dataError
        case .badOverride: .usage
        case .projDatabaseMissing, .projSetupFailed: .software
        case .tooManyOpenFiles: .ioError
        }
    }

    /// A stable reason code for reports (listed in `docs/diagnostics.md`); it also ends `description`, in brackets.
    public var code: ReasonCode {
        switch self {
        case .missingPrj: .missingPrj
        case .prjTooLarge: .prjTooLarge
        case .unparseablePrj: .unparseablePrj
        case .hostilePrj: .hostilePrj
        case .badOverride: .badSourceCrs
        case .cannotCreateTransform: .noTransform
        case .projDatabaseMissing, .projSetupFailed: .projSetup
        case .tooManyOpenFiles: OpenFileLimit.code
        }
    }

    /// One line for stderr: the file, what is wrong, what to do, and the code in brackets. Each thing is said once.
    public var description: String { text + " [\(code)]" }

    private var text: String {
        switch self {
        case .missingPrj(let file):
            "\(file ?? "the layer"): no .prj file next to it, so the coordinate reference system is unknown; "
                + "pass --source-crs (for example --source-crs EPSG:4326) to say which CRS the coordinates use"
        case .prjTooLarge(let file, let size, let limit):
            "\(file): the .prj is \(size) bytes, larger than the \(limit)-byte limit, so it was not read and the "
                + "coordinate reference system is unknown; pass --source-crs to say which CRS the coordinates use"
        case .unparseablePrj(let file, let detail):
            "\(file ?? "the .prj"): cannot read the coordinate reference system: \(detail); "
                + "pass --source-crs to override it"
        case .hostilePrj(let file, let reason):
            "\(file ?? "the .prj"): refusing an unsafe coordinate reference system: \(reason); "
                + "pass --source-crs to override it"
        case .badOverride(let text, let detail):
            "--source-crs \"\(text)\": not a coordinate reference system PROJ accepts: \(detail)"
        case .cannotCreateTransform(let source, let target, let detail):
            "cannot transform coordinates from \(source) to \(target): \(detail)"
        case .projDatabaseMissing(let detail):
            "PROJ cannot find its database proj.db (install the proj-data package or set PROJ_DATA): \(detail)"
        case .projSetupFailed(let detail):
            "cannot set up PROJ: \(detail)"
        case .tooManyOpenFiles(let what, let reason):
            "\(what): \(reason)"
        }
    }
}

extension ProjectionError {
    /// `.tooManyOpenFiles` for `what` when the process cannot open a descriptor right now, else nil.
    static func exhausted(_ what: String) -> ProjectionError? {
        OpenFileLimit.exhaustedNow().map { .tooManyOpenFiles(what: what, reason: OpenFileLimit.reason(errno: $0)) }
    }
}
