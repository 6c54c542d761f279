public import KartpackCore

/// Why a geometry operation failed. Every case is a per-feature problem: the caller skips or repairs the feature
/// and records `diagnosticCode`; none of them ends a run on its own.
public enum GeometryError: KartpackError, Equatable {
    /// A coordinate is NaN or infinite (PROJ failures come back as `inf`). Rejected before any GEOS call.
    case nonFinite(pointIndex: Int)
    /// A coordinate's magnitude exceeds `GeometryEngine.coordinateLimit` (GEOS 3.11 simplification never
    /// returns on values near 1e308). Rejected before any GEOS call.
    case outOfRange(pointIndex: Int)
    /// The flat storage does not describe a geometry of its kind (bad offsets, a ring with fewer than four
    /// points or not closed, a line with one point).
    case malformed(String)
    /// An argument is unusable (non-finite or negative tolerance, empty or degenerate rectangle, …).
    case invalidArgument(String)
    /// GEOS reported an error (returned NULL, or 2 from a predicate); `message` quotes GEOS.
    case geos(message: String, operation: String)
    /// The run is being cancelled (`CancellationFlag.process` is set): GEOS was interrupted or a long loop
    /// stopped. Nothing computed after it may be published.
    case interrupted

    /// The stable snake_case diagnostic code for this error.
    public var diagnosticCode: ReasonCode {
        switch self {
        case .nonFinite: .nonFiniteCoordinate
        case .outOfRange: .outOfDomain
        case .malformed: .malformedGeometry
        case .invalidArgument: .invalidArgument
        case .geos: .geometryError
        case .interrupted: .interrupted
        }
    }

    /// Input problems are data errors; a bad argument is the program's fault.
    public var exitCode: ExitCode {
        switch self {
        case .invalidArgument: .software
        case .interrupted: .interrupted
        default: .dataError
        }
    }

    /// A one-line description for diagnostics.
    public var description: String {
        switch self {
        case .nonFinite(let i): "non-finite coordinate at point \(i)"
        case .outOfRange(let i): "coordinate out of range at point \(i)"
        case .malformed(let why): "malformed geometry: \(why)"
        case .invalidArgument(let why): "invalid argument: \(why)"
        case .geos(let message, let operation): "\(operation) failed: \(message)"
        case .interrupted: "interrupted: the run is being cancelled"
        }
    }
}
