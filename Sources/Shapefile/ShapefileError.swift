import KartpackCore

/// Why a Shapefile (or one of its companion files) cannot be read at all.
///
/// Record-level problems are not errors: they are skipped or repaired, counted in `ShapefileStats` and reported to
/// the `DiagnosticSink`. Every case names the file (the last path component, or the path given when nothing was
/// found) and says why.
public enum ShapefileError: KartpackError, Equatable {
    /// The path does not exist.
    case fileNotFound(path: String)
    /// No `.shp` file was found at the path (an empty folder, or a file that is not a `.shp`).
    case noShapefiles(path: String)
    /// The path exists but is not a regular file (a folder, device, FIFO, …) or cannot be opened.
    case unreadable(path: String, reason: String)
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

    /// `.noInput` for missing or unreadable files, `.ioError` for read failures, `.dataError` for bad data.
    public var exitCode: ExitCode {
        switch self {
        case .fileNotFound, .noShapefiles, .unreadable: .noInput
        case .ioError: .ioError
        case .notAShapefile, .unsupportedShapeType, .badIndex, .badDBFHeader, .unknownEncoding, .libraryError:
            .dataError
        }
    }

    /// One line naming the file and the reason.
    public var description: String {
        switch self {
        case .fileNotFound(let path): "\(path): no such file or folder"
        case .noShapefiles(let path): "\(path): no .shp file found"
        case .unreadable(let path, let reason): "\(path): cannot read: \(reason)"
        case .notAShapefile(let file, let reason): "\(file): not a Shapefile: \(reason)"
        case .unsupportedShapeType(let code, let file): "\(file): unsupported shape type \(code) in the file header"
        case .badIndex(let file, let reason): "\(file): unusable index: \(reason)"
        case .badDBFHeader(let file, let reason): "\(file): bad_dbf_header: \(reason)"
        case .unknownEncoding(let file, let detail, let reason):
            "\(file): cannot decode attributes (\(detail)): \(reason); pass --encoding to override"
        case .libraryError(let file, let message): "\(file): shapelib: \(message)"
        case .ioError(let file, let offset, let reason):
            if let offset { "\(file): byte \(offset): read error: \(reason)" } else { "\(file): read error: \(reason)" }
        }
    }
}
