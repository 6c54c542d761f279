import KartpackCore

/// Gives each feature of one layer its id, in file order, and applies the scheme's policy to missing and
/// duplicate ids. Counts what it did. One assigner per layer; not thread-safe (use it where records are read).
package struct FeatureIDAssigner: Sendable {
    /// What to do with one feature.
    package enum Outcome: Sendable, Equatable {
        /// Write it with this id.
        case id(UInt64)
        /// Write it with its record number, because of `problem` (policy `record`).
        case fallback(UInt64, problem: Problem)
        /// Skip it, counted in `rejected` under `problem.code` (policy `skip`).
        case skip(Problem)
        /// Reject the file (policy `reject`).
        case rejectFile(Problem)
    }

    /// Why a feature has no id of its own. The raw values are reason codes (docs/diagnostics.md).
    package enum Problem: Sendable, Equatable {
        case missingID
        case duplicateID

        /// The reason code of the problem.
        package var code: ReasonCode { self == .missingID ? .missingId : .duplicateId }
    }

    package let scheme: FeatureIDScheme
    private var seen = Set<UInt64>()
    /// For each id several records share: the content key of the record that keeps it (`DuplicateKeepers`).
    private let keepers: [UInt64: UInt64]
    /// Features without a usable id value.
    package private(set) var missing = 0
    /// Features whose id was already used by an earlier feature of the layer.
    package private(set) var duplicates = 0
    /// Features written with their record number instead (policy `record`).
    package private(set) var fellBack = 0

    /// Creates an assigner. `keepers` (id → content key) names, for ids that several records share, the record
    /// that keeps the id; without an entry, the first record of an id keeps it.
    package init(scheme: FeatureIDScheme, keepers: [UInt64: UInt64] = [:]) {
        self.scheme = scheme
        self.keepers = keepers
    }

    /// The outcome for the next feature (call in file order); `content` is its `FeatureKey.content`.
    package mutating func assign(_ properties: Properties, record: Int, content: UInt64? = nil) -> Outcome {
        let problem: Problem
        if let id = scheme.id(for: properties, record: record) {
            let keeps = keepers[id].map { $0 == content } ?? true
            if keeps, seen.insert(id).inserted { return .id(id) }
            duplicates += 1
            problem = .duplicateID
        } else {
            missing += 1
            problem = .missingID
        }
        switch scheme.policy {
        case .reject: return .rejectFile(problem)
        case .skip: return .skip(problem)
        case .record:
            // A record number that is already some feature's id cannot be used either: the feature is skipped.
            let fallback = UInt64(max(record, 0))
            guard seen.insert(fallback).inserted else {
                duplicates += problem == .duplicateID ? 0 : 1
                return .skip(.duplicateID)
            }
            fellBack += 1
            return .fallback(fallback, problem: problem)
        }
    }

    /// The message of a file rejected for `problem` at `record`.
    package func rejectionMessage(_ problem: Problem, record: Int) -> String {
        let field = scheme.field ?? "?"
        switch problem {
        case .missingID:
            return "record \(record) has no usable id in field \(field) (idPolicy reject) [missing_id]"
        case .duplicateID:
            return
                "record \(record) repeats an id of field \(field) already used in the layer (idPolicy reject) "
                + "[duplicate_id]"
        }
    }
}
