import Foundation
import KartpackCore
import KartpackJSON
import Checksum
import Nightly

/// How the features of one layer get their MVT ids: the record number, or an attribute (`idField`, `--id-field`)
/// whose value gives the same id whatever the order of the records in the export.
///
/// - Integer fields: the value itself (0 … 2⁶⁴−1; negative values are missing ids).
/// - Character fields: a hash of the value, `FeatureIDScheme.stringID` (documented in docs/convert.md):
///   the first 8 bytes of SHA-256 over the value's UTF-8 bytes, read big-endian, top 52 bits, plus 2⁵², so ids
///   are in [2⁵², 2⁵³): exact in JavaScript numbers (MapLibre's `feature.id`) and never equal to a record number.
///
/// Pure: no state. Duplicates are found by `FeatureIDAssigner`, which applies the `Policy`.
package struct FeatureIDScheme: Sendable, Hashable {
    /// Where an id comes from.
    package enum Kind: String, Sendable, Hashable {
        /// The record number (1-based), the default.
        case recordNumber = "record"
        /// An integer attribute, used as it is.
        case integerField = "integer"
        /// A character attribute, hashed with `stringID`.
        case stringHash = "sha256-52"
    }

    /// What happens to a feature whose id is missing (null, empty, negative) or already used in the layer.
    package enum Policy: String, Sendable, Hashable, CaseIterable {
        /// The whole file is rejected (`duplicate_id` / `missing_id`); the default.
        case reject
        /// The feature is skipped and counted in `rejected` under `duplicate_id` / `missing_id`.
        case skip
        /// The feature is written with its record number as id, counted as a warning.
        case record
    }

    package var kind: Kind
    /// The attribute (as in the file, matched case-insensitively); nil for `recordNumber`.
    package var field: String?
    package var policy: Policy

    /// Record numbers as ids.
    package static let recordNumber = FeatureIDScheme(kind: .recordNumber, field: nil, policy: .reject)

    /// Creates a scheme; use `forField` to choose the kind from the field's type.
    package init(kind: Kind, field: String?, policy: Policy) {
        self.kind = kind
        self.field = field
        self.policy = policy
    }

    /// The scheme for attribute `name` of a layer with these fields: integer fields are used as they are,
    /// character fields are hashed. Throws when there is no such field or its type cannot give ids.
    package static func forField(
        _ name: String, in fields: [FieldDefinition], policy: Policy
    ) throws(FeatureIDSchemeError) -> FeatureIDScheme {
        let lower = name.lowercased()
        guard let f = fields.first(where: { $0.name.lowercased() == lower }) else {
            throw FeatureIDSchemeError(
                field: name, reason: "no such field (fields: \(fields.map(\.name).joined(separator: ", ")))")
        }
        switch f.type {
        case .integer: return FeatureIDScheme(kind: .integerField, field: f.name, policy: policy)
        case .string: return FeatureIDScheme(kind: .stringHash, field: f.name, policy: policy)
        case .double, .logical, .date:
            throw FeatureIDSchemeError(
                field: name,
                reason: "field \(f.name) is \(f.type.rawValue); an id field must be an integer or a character field")
        }
    }

    /// The id of a record from its attributes as read (before `keep` and `rename`); nil when the record has no
    /// usable id (the policy decides).
    package func id(for properties: Properties, record: Int) -> UInt64? {
        switch kind {
        case .recordNumber:
            return record >= 0 ? UInt64(record) : nil
        case .integerField:
            switch value(in: properties) {
            case .int(let v) where v >= 0: return UInt64(v)
            case .uint(let v): return v
            case .double(let v) where v >= 0 && v < 1.8e19 && v.rounded() == v: return UInt64(v)
            case .string(let s): return UInt64(s.trimmingCharacters(in: .whitespaces))
            default: return nil
            }
        case .stringHash:
            switch value(in: properties) {
            case .string(let s) where !s.isEmpty: return Self.stringID(s)
            case .int(let v): return Self.stringID(String(v))
            case .uint(let v): return Self.stringID(String(v))
            default: return nil
            }
        }
    }

    private func value(in properties: Properties) -> PropertyValue? {
        guard let field else { return nil }
        let lower = field.lowercased()
        guard let i = properties.keys.firstIndex(where: { $0.lowercased() == lower }) else { return nil }
        return properties.values[i]
    }

    /// The id of a character value: SHA-256 of its UTF-8 bytes (no trimming or normalization beyond what the
    /// reader did), the first 8 bytes big-endian, shifted right by 12, plus 2⁵². In Python:
    /// `(int.from_bytes(hashlib.sha256(s.encode()).digest()[:8], "big") >> 12) | 1 << 52`.
    package static func stringID(_ s: String) -> UInt64 {
        var h = SHA256()
        h.update(Array(s.utf8))
        let digest = h.finalize()
        let top = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return (top >> 12) | (1 << 52)
    }

    /// The scheme as recorded in the package metadata (`kartpack_ids`): `{"scheme": …, "field": …, "policy": …}`;
    /// a record-number scheme is just `{"scheme": "record"}`.
    package var metadataValue: JSONValue {
        guard kind != .recordNumber, let field else { return .object([("scheme", .string(kind.rawValue))]) }
        return .object([
            ("scheme", .string(kind.rawValue)), ("field", .string(field)), ("policy", .string(policy.rawValue)),
        ])
    }

    /// The metadata key holding each layer's id scheme.
    package static let metadataKey = "kartpack_ids"

    /// The `kartpack_ids` metadata value: a JSON object text of layer name → `metadataValue`, in layer order.
    package static func metadataText(_ layers: [(layer: String, scheme: FeatureIDScheme)]) -> String {
        JSONValue.object(layers.map { ($0.layer, $0.scheme.metadataValue) }).text(.canonical)
    }
}

/// An id field that cannot be used for a layer.
package struct FeatureIDSchemeError: Error, Sendable, Equatable, CustomStringConvertible {
    package var field: String
    package var reason: String
    package var description: String { "id field \(field): \(reason)" }
}
