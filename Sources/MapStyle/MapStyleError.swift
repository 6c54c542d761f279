public import KartpackCore

/// Why building a client style, a sprite or a preview failed.
public enum MapStyleError: KartpackError, Sendable, Equatable {
    /// The package cannot be opened (missing, unreadable, not a regular file).
    case cannotOpenPackage(path: String, reason: String)
    /// The package is not a PMTiles / MBTiles archive Kartpack can read, or its metadata or a tile is broken.
    case badPackage(path: String, reason: String)
    /// The requested tile is not in the package (nor an ancestor that could be overzoomed).
    case tileMissing(tile: String, reason: String)
    /// A request that cannot be served: a bad bounding box, zoom or option.
    case badRequest(String)
    /// A file cannot be written.
    case cannotWrite(path: String, reason: String)
    /// An external tool (`rsvg-convert`) is not installed.
    case toolMissing(tool: String, hint: String)
    /// An external tool ran and failed.
    case toolFailed(tool: String, status: Int32, message: String)
    /// An internal failure (e.g. zlib refused to compress).
    case internalFailure(String)

    /// The exit code a run ends with (`sysexits.h`).
    public var exitCode: ExitCode {
        switch self {
        case .cannotOpenPackage: .noInput
        case .badPackage: .dataError
        case .tileMissing, .badRequest: .usage
        case .cannotWrite: .cantCreate
        case .toolMissing: .software
        case .toolFailed: .software
        case .internalFailure: .software
        }
    }

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .cannotOpenPackage(let path, let reason): "cannot open package \(path): \(reason)"
        case .badPackage(let path, let reason): "\(path) is not a usable package: \(reason)"
        case .tileMissing(let tile, let reason): "tile \(tile) is not in the package: \(reason)"
        case .badRequest(let message): message
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .toolMissing(let tool, let hint): "\(tool) is not installed or not on PATH; \(hint)"
        case .toolFailed(let tool, let status, let message):
            "\(tool) failed with status \(status)" + (message.isEmpty ? "" : ": \(message)")
        case .internalFailure(let message): "internal error: \(message)"
        }
    }
}
