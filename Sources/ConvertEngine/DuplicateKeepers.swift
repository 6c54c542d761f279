import KartpackCore

/// Which record keeps an id that several records of a layer share, under `idPolicy` `skip` or `record`: the one
/// whose content key (`FeatureKey.content` of its geometry and attributes, as the feature phase gets them) is
/// the smallest, so that the kept feature does not depend on the record order (issue 37). The others are skipped
/// (`skip`) or written with their record number as id (`record`: those ids follow the record order, as record
/// numbers do). Records with identical content are the same feature: the first of them keeps the id.
///
/// Costs one more read of the layer (without diagnostics: the real read reports), only under those policies
/// with an id field; `reject` needs none (a shared id rejects the file whatever the order).
enum DuplicateKeepers {
    /// Per id that several records passing the input's filter share, the smallest content key among them.
    static func find(_ set: InputSet, input: ConvertInput, scheme: FeatureIDScheme) throws -> [UInt64: UInt64] {
        guard scheme.kind != .recordNumber, scheme.policy != .reject else { return [:] }
        let reader = try set.open(encoding: input.encoding, diagnostics: DiagnosticSink())
        var smallest: [UInt64: UInt64] = [:]
        var shared = Set<UInt64>()
        while let feature = try reader.next() {
            if let filter = input.filter, !filter.matches(feature.properties) { continue }
            guard let id = scheme.id(for: feature.properties, record: feature.provenance.record) else { continue }
            let content = FeatureKey.content(
                feature.geometry, ReadPhase.transformAttributes(feature.properties, input: input))
            if let s = smallest[id] {
                shared.insert(id)
                if content < s { smallest[id] = content }
            } else {
                smallest[id] = content
            }
        }
        return smallest.filter { shared.contains($0.key) }
    }
}
