import KartpackCore

/// Errors that end a conversion.
package enum PipelineError: KartpackError {
    /// The output exists and `--force` was not given.
    case outputExists(path: String)
    /// The output path or options are unusable.
    case badOutput(path: String, reason: String)
    /// Every input was rejected or no feature is left: nothing is published. Carries the run's report.
    case nothingToWrite(reasons: [String], report: ConvertReport)
    /// A tile could not be encoded or compressed.
    case tileEncoding(tile: String, reason: String)
    /// Records read did not balance features written plus rejected (a bug; nothing is published).
    case reconciliationFailed(detail: String)
    /// Interrupted by a signal.
    case interrupted(signal: Int32)
    /// `--id-field` names no integer field of a layer.
    case badIDField(layer: String, field: String, reason: String)
    /// An input cannot be used as the command line asks (e.g. `--layer` for a folder of several Shapefiles).
    case badInput(path: String, reason: String)
    /// Two inputs (or an input and another's label layer) would write one output layer (`LayerRegistry`).
    case layerNameClash(name: String, first: String, second: String)
    /// The scratch file failed while a phase that only reports `PipelineError` read from it (spilled records).
    case scratch(SpillError)

    package var exitCode: ExitCode {
        switch self {
        case .outputExists, .badOutput: .cantCreate
        case .badIDField, .badInput, .layerNameClash: .usage
        case .nothingToWrite: .dataError
        case .tileEncoding, .reconciliationFailed: .software
        case .interrupted(let s): s == 15 ? .terminated : .interrupted
        case .scratch(let e): e.exitCode
        }
    }

    package var description: String {
        switch self {
        case .outputExists(let p): "\(p): already exists; pass --force to replace it"
        case .badOutput(let p, let r): "\(p): \(r)"
        case .nothingToWrite(let reasons, _): "nothing to write: \(reasons.joined(separator: "; "))"
        case .tileEncoding(let t, let r): "tile \(t): \(r)"
        case .reconciliationFailed(let d): "internal error: records do not reconcile (\(d)); nothing was published"
        case .interrupted(let s): "interrupted by signal \(s); nothing was published"
        case .badIDField(let l, let f, let r): "--id-field \(f): \(r) in layer \(l)"
        case .badInput(let p, let r): "\(p): \(r)"
        case .scratch(let e): e.description
        case .layerNameClash(let n, let a, let b):
            "layer name '\(n)' is claimed twice, by \(a) and by \(b); nothing was read: give one input another "
                + "layer name (--layer NAME per input, or the pipeline source's \"layer\")"
        }
    }
}

extension PipelineError {
    /// True when `error` is `interrupted`: the run was stopped by a signal, whatever else it says.
    package static func isInterruption(_ error: any Error) -> Bool {
        if case PipelineError.interrupted = error { return true }
        return false
    }
}

/// A whole input file that cannot be used; the run goes on with the others.
package struct InputRejection: KartpackError {
    package var code: ReasonCode
    package var message: String
    package var exitCode: ExitCode { .dataError }
    package var description: String { message }

    /// Creates a value from each of its stored properties.
    package init(code: ReasonCode, message: String) {
        self.code = code
        self.message = message
    }
}

extension Error {
    /// The stable reason code of an input-level error.
    package var inputErrorCode: ReasonCode {
        switch self {
        case let e as InputRejection: e.code
        default: (self as? any CodedError)?.code ?? .fileRejected
        }
    }
}

/// Errors with a stable reason code.
package protocol CodedError { var code: ReasonCode { get } }

import Reprojection
import Shapefile

extension ShapefileError: CodedError {}
extension ProjectionError: CodedError {}
