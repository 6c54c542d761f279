import Foundation
import KartpackCore
import Shapefile
import Styling
import ConvertEngine

/// A stylesheet that could not be used (exit 78).
package struct StyleLoadError: KartpackError {
    package var path: String
    package var diagnostics: [StyleDiagnostic]
    package var reason: String?
    /// 78 for a sheet with errors; 66 when it cannot be read (missing, a FIFO), 74 for an I/O failure.
    package var exitCode: ExitCode = .config

    package init(path: String, diagnostics: [StyleDiagnostic], reason: String?, exitCode: ExitCode = .config) {
        self.path = path
        self.diagnostics = diagnostics
        self.reason = reason
        self.exitCode = exitCode
    }
    package var description: String {
        if let reason { return "\(path): \(reason)" }
        let errors = diagnostics.filter { $0.severity == .error }
        return errors.map(\.description).joined(separator: "\n")
            + "\n\(path): \(errors.count) error(s) in the stylesheet"
    }
}

/// Reads and parses `.kss` stylesheets.
package enum StyleLoader {
    /// Largest stylesheet accepted.
    package static let maxBytes = 4 << 20

    /// Parses the sheet at `path`; errors throw, warnings are returned.
    package static func load(path: String) throws(StyleLoadError) -> (Stylesheet, [StyleDiagnostic]) {
        // O_NONBLOCK + fstat: a FIFO or device named like a stylesheet is refused, never waited on.
        let data: [UInt8]
        do throws(FileAccessError) {
            data = try RegularFile.read(path, maxBytes: maxBytes)
        } catch {
            throw StyleLoadError(
                path: path, diagnostics: [], reason: "cannot read the stylesheet: \(error.reason)",
                exitCode: error.exitCode == .ioError ? .ioError : .noInput)
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw StyleLoadError(path: path, diagnostics: [], reason: "stylesheet is not valid UTF-8")
        }
        let (sheet, diagnostics) = Stylesheet.parse(text, file: path)
        guard let sheet, !diagnostics.contains(where: { $0.severity == .error }) else {
            throw StyleLoadError(path: path, diagnostics: diagnostics, reason: nil)
        }
        return (sheet, diagnostics)
    }

    /// Checks a sheet: parse diagnostics, lint against the layers of `inputs` (Shapefiles or folders; their
    /// schemas only, no records read), and the sheet's `@example` blocks.
    package static func validate(path: String, inputs: [String]) -> [StyleDiagnostic] {
        let sheet: Stylesheet
        var out: [StyleDiagnostic]
        do {
            (sheet, out) = try load(path: path)
        } catch {
            if error.diagnostics.isEmpty {
                return [
                    StyleDiagnostic(
                        .error, code: "unreadable", file: path, line: 1, column: 1,
                        message: error.reason ?? "unreadable")
                ]
            }
            return error.diagnostics
        }
        var schemas: [LayerSchema] = []
        for input in inputs {
            do {
                for set in try InputSet.sets(at: input) {
                    schemas.append(try set.open(encoding: nil, diagnostics: DiagnosticSink()).schema)
                }
            } catch {
                out.append(
                    StyleDiagnostic(
                        .error, code: "bad_layer_input", file: input, line: 1, column: 1,
                        message: (error as? any KartpackError)?.description ?? "\(error)"))
            }
        }
        if !inputs.isEmpty { out += sheet.lint(layers: schemas) }
        out += sheet.clientLint(layers: schemas)
        out += sheet.runExamples()
        return out
    }
}
