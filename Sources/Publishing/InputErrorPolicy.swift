/// What a build does when an input (a file, or a layer of it) is rejected.
package enum InputErrorPolicy: String, Sendable, Hashable, CaseIterable {
    /// Publish nothing: the previous package stays as it was, exit 65. The default.
    case fail
    /// Publish the other layers; the package metadata lists the missing ones (`kartpack_missing_layers`), exit 65.
    /// Pipelines: `"onInputError": "skip"`; the command line: `--allow-partial`.
    case skip
}
