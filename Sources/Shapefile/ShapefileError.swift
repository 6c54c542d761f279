import KartpackCore

/// Why a Shapefile (or one of its companion files) cannot be read at all.
///
/// Record-level problems are not errors: they are skipped or repaired, counted in `ReaderStats` and reported to
/// the `DiagnosticSink`. Every case names the file (the last path component, or the path given when nothing was
/// found) and says why.
public enum ShapefileError: KartpackError, Equatable {
    /// The path does not exist.
    case fileNotFound(path: String)
    /// No `.shp` file was found at the path (an empty folder, or a file that is not a `.shp`).
    case noShapefiles(path: String)
    /// The path exists but cannot be opened or listed (permissions, an I/O error).
    case unreadable(path: String, reason: String)
    /// The path names something other than a regular file: a symbolic link (refused with `O_NOFOLLOW`, so an
    /// input cannot point the reader at `/dev/zero` or a file elsewhere), a FIFO, a device, a socket or a folder.
    /// `kind` says which. Rejected as bad data (exit 65, hostile-inputs.md §5 #44).
    case notARegularFile(path: String, kind: String)
    /// The `.shp` file is not a Shapefile: too short, wrong magic number, or too large.
    case notAShapefile(file: String, reason: String)
    /// The `.shp` header names a shape type that does not exist.
    case unsupportedShapeType(code: Int32, file: String)
    /// The `.shx` index could not be used and the `.shp` could not be scanned to rebuild it.
    case badIndex(file: String, reason: String)
    /// The `.dbf` header is inconsistent (`bad_dbf_header`); reading on would shift attributes.
    case badDBFHeader(file: String, reason: String)
    /// The attribute encoding could not be determined or is not supported (unknown LDID, garbled `.cpg`, or an
    /// `--encoding` value that iconv does not know).
    case unknownEncoding(file: String, detail: String, reason: String)
    /// shapelib refused to open a file; `message` holds its own words.
    case libraryError(file: String, message: String)
    /// Reading failed at the operating-system level.
    case ioError(file: String, offset: Int?, reason: String)
    /// The process (EMFILE) or the system (ENFILE) ran out of file descriptors while opening `path`: the
    /// machine's fault, not the data's (exit 74, `too_many_open_files`). It ends the run instead of rejecting the
    /// input; `reason` names the limit (`OpenFileLimit`).
    case tooManyOpenFiles(path: String, reason: String)

    /// The error for a failed `open` of `path` when errno is EMFILE or ENFILE, else nil.
    public static func exhausted(_ path: String, errno e: Int32) -> ShapefileError? {
        OpenFileLimit.isExhausted(e) ? .tooManyOpenFiles(path: path, reason: OpenFileLimit.reason(errno: e)) : nil
    }

    /// `.noInput` for missing or unreadable files, `.ioError` for read failures and exhausted descriptors,
    /// `.dataError` for bad data
    /// (including inputs that are links, FIFOs or devices).
    public var exitCode: ExitCode {
        switch self {
        case .fileNotFound, .noShapefiles, .unreadable: .noInput
        case .ioError, .tooManyOpenFiles: .ioError
        case .notARegularFile, .notAShapefile, .unsupportedShapeType, .badIndex, .badDBFHeader, .unknownEncoding,
            .libraryError:
            .dataError
        }
    }

    /// The stable snake_case reason code of the rejection (listed in `docs/diagnostics.md`); it also ends
    /// `description`, in brackets.
    public var code: ReasonCode {
        switch self {
        case .fileNotFound: .fileNotFound
        case .noShapefiles: .noShapefile
        case .unreadable: .unreadable
        case .notARegularFile: .notARegularFile
        case .notAShapefile: .notAShapefile
        case .unsupportedShapeType: .unsupportedShapeType
        case .badIndex: .badIndex
        case .badDBFHeader: .badDbfHeader
        case .unknownEncoding: .unknownEncoding
        case .libraryError: .libraryError
        case .ioError: .ioError
        case .tooManyOpenFiles: OpenFileLimit.code
        }
    }

    /// One line naming the file and the reason, ending with the reason code in brackets, e.g.
    /// `layer.shp: not a Shapefile: bad magic number 1 (expected 9994) [not_a_shapefile]`.
    public var description: String { text + " [\(code)]" }

    private var text: String {
        switch self {
        case .fileNotFound(let path): "\(path): no such file or folder"
        case .noShapefiles(let path): "\(path): no .shp file found"
        case .unreadable(let path, let reason): "\(path): cannot read: \(reason)"
        case .notARegularFile(let path, let kind): "\(path): refusing to read a \(kind); inputs must be regular files"
        case .notAShapefile(let file, let reason): "\(file): not a Shapefile: \(reason)"
        case .unsupportedShapeType(let code, let file): "\(file): unsupported shape type \(code) in the file header"
        case .badIndex(let file, let reason): "\(file): unusable index: \(reason)"
        case .badDBFHeader(let file, let reason): "\(file): bad .dbf header: \(reason)"
        case .unknownEncoding(let file, let detail, let reason):
            "\(file): cannot decode attributes (\(detail)): \(reason); pass --encoding to override"
        case .libraryError(let file, let message): "\(file): shapelib: \(message)"
        case .ioError(let file, let offset, let reason):
            if let offset { "\(file): byte \(offset): read error: \(reason)" } else { "\(file): read error: \(reason)" }
        case .tooManyOpenFiles(let path, let reason): "\(path): cannot open it: \(reason)"
        }
    }
}
