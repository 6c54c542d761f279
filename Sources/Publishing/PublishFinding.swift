import KartpackCore

/// One reason a build was or was not published: a rejected input, a layer without features, a record-count
/// guard. Errors stop the publish (the previous package stays byte-identical); warnings are reported.
package struct PublishFinding: Codable, Sendable, Hashable, CustomStringConvertible {
    /// `error` refuses the publish; `warning` does not.
    package enum Level: String, Codable, Sendable, Hashable { case warning, error }

    package var severity: Level
    /// A reason code: the input's rejection code (`bad_dbf_header`, …), `no_features`, `too_few_features` or
    /// `layer_shrank` (docs/diagnostics.md, "Publishing").
    package var code: ReasonCode
    /// The layer concerned.
    package var layer: String
    /// The input file as the user named it, when one is concerned.
    package var file: String?
    /// What happened, ending in the code in brackets.
    package var message: String
    /// The record of `file` concerned (1-based), when one is: a region record that cannot be built.
    package var record: Int?
    /// The region concerned (`kartpack package`), when one is.
    package var region: String?

    /// Creates a finding.
    package init(
        _ severity: Level, code: ReasonCode, layer: String, file: String?, message: String, record: Int? = nil,
        region: String? = nil
    ) {
        self.severity = severity
        self.code = code
        self.layer = layer
        self.file = file
        self.message = message
        self.record = record
        self.region = region
    }

    /// The one error finding of a job that ended by an error or a signal before it could judge its build (a held
    /// lock, a missing input, an interruption): no layer, no file, the message ending in `[code]`. `run` and
    /// `package` report it on every exit path.
    package static func endedRun(code: ReasonCode, message: String) -> PublishFinding {
        PublishFinding(.error, code: code, layer: "", file: nil, message: "\(message) [\(code)]")
    }

    /// `file: record N: message`, `file: message`, or just the message.
    package var description: String {
        guard let file else { return message }
        return record.map { "\(file): record \($0): \(message)" } ?? "\(file): \(message)"
    }
}
