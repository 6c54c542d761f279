import Foundation
import KartpackJSON

/// The Shapefiles whose stored record boxes a shard plan found it cannot trust (`RecordBoxAudit`: a record whose
/// box does not hold its vertices, a `.shx` that does not index the records in file order, records that cannot be
/// split). Shards read these files whole, as one machine does, instead of leaving records unread by their box
/// (`RecordBoxFilter.readWhole`), so a lying box costs time, never a feature. The plan records them (its digest
/// covers them; the shards' fingerprint check covers the files' bytes) and says so when it is made.
package struct UntrustedRecordBoxes: Sendable, Equatable {
    /// Each file (the `.shp`, an absolute path) and why its boxes are not trusted, in the plan's order.
    package var files: [(path: String, reason: String)] = []

    package init() {}

    package static func == (a: Self, b: Self) -> Bool {
        a.files.map(\.path) == b.files.map(\.path) && a.files.map(\.reason) == b.files.map(\.reason)
    }

    /// Adds `path` (made absolute from the current folder) unless it is there.
    package mutating func add(_ path: String, reason: String) {
        let absolute = Self.absolute(path)
        guard !files.contains(where: { $0.path == absolute }) else { return }
        files.append((absolute, reason))
    }

    /// The files, as `RecordBoxFilter.readWhole` compares them.
    package var paths: Set<String> { Set(files.map(\.path)) }

    /// `path` absolute and standardized, as plans and shards compare it.
    package static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The plan's `recordBoxesNotTrusted` array.
    package var json: JSONValue {
        .array(files.map { .object([("file", .string($0.path)), ("reason", .string($0.reason))]) })
    }

    /// Reads the plan's array (nil when it is missing or damaged: the plan is refused).
    package init?(json: JSONValue?) {
        guard let items = json?.arrayValue else { return nil }
        for item in items {
            guard let path = item["file"]?.stringValue, let reason = item["reason"]?.stringValue else { return nil }
            files.append((path, reason))
        }
    }

    /// One line per file for the plan's console output.
    package var lines: [String] {
        files.map { "  \($0.path): \($0.reason); every shard reads it whole (its records' boxes are not trusted)" }
    }
}
