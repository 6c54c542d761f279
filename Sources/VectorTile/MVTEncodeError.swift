import KartpackCore

/// Why a tile could not be encoded.
public enum MVTEncodeError: Error, Sendable, Hashable, KartpackError {
    /// Two layers with the same name (MVT requires unique names, compared byte for byte).
    case duplicateLayerName(String)

    /// A programming error in the caller, not bad input.
    public var exitCode: ExitCode { .software }

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .duplicateLayerName(let n): "two layers named \"\(n)\" in one tile"
        }
    }
}
