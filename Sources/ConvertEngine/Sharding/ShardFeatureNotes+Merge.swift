import KartpackCore
import KartpackJSON
import TileArchive

extension ShardFeatureNotes {
    /// What the merge learns of one feature from the parts that tiled the metadata shard's skipped zooms.
    private struct Found {
        var repairs: Set<ReasonCode>
        /// The lowest zoom of the part whose collapsed zooms are kept (every zoom from it up was tiled).
        var lowest: Int
        var collapsed: [UInt8]
    }

    /// The package metadata of the metadata shard's part (`metadata`, from its notes `self`) completed with the
    /// other parts' notes (`others`, with their paths): each written feature's repairs found at the zooms the
    /// metadata shard skipped are added to its input's `repaired` counts (once per kind, as the one-machine build
    /// counts them), and a feature with nothing left at such a zoom leaves its class's `classes_by_zoom` count
    /// there. Throws `ShardError.partsDoNotFit` when no part tiled a feature at one of those zooms (a part built
    /// without notes, or by another version), `ShardError.damaged` when the metadata does not hold the counts.
    package func completed(_ metadata: ArchiveMetadata, with others: [(path: String, notes: ShardFeatureNotes)]) throws
        -> ArchiveMetadata
    {
        guard holdsMetadata, !skippedZooms.isEmpty, !notes.isEmpty else { return metadata }
        // Input names of the metadata shard's table: the others' notes are looked up by them.
        var inputNumber: [String: UInt64] = [:]
        for (i, name) in inputs.enumerated() { inputNumber[name] = UInt64(i) }
        var found: [UInt64: Found] = [:]
        found.reserveCapacity(notes.count)
        for (_, part) in others where !part.holdsMetadata {
            for n in part.notes {
                guard let input = inputNumber[part.inputs[Int(n.input)]] else { continue }
                let key = input << 40 | UInt64(n.record)
                let kinds = Set(n.repairs.map { part.kinds[Int($0)] })
                if var f = found[key] {
                    f.repairs.formUnion(kinds)
                    if part.lowestZoom < f.lowest { (f.lowest, f.collapsed) = (part.lowestZoom, n.collapsed) }
                    found[key] = f
                } else {
                    found[key] = Found(repairs: kinds, lowest: part.lowestZoom, collapsed: n.collapsed)
                }
            }
        }
        var repaired: [String: [ReasonCode: Int]] = [:]
        var leftOut: [String: [Int: [String: Int]]] = [:]
        let skipped = Set(skippedZooms)
        for n in notes {
            let needed = (Int(n.base)..<Int(n.top)).filter { skipped.contains($0) }
            guard let first = needed.first else { continue }
            let input = Self.inputName(inputs[Int(n.input)])
            guard let f = found[UInt64(n.input) << 40 | UInt64(n.record)], f.lowest <= first else {
                throw ShardError.partsDoNotFit(
                    reason: "no part tiled record \(n.record) of \(input) at zoom \(first), which the first shard "
                        + "leaves to the others (a part was built without its feature notes or by another version)")
            }
            let own = Set(n.repairs.map { kinds[Int($0)] })
            for kind in f.repairs.subtracting(own) { repaired[input, default: [:]][kind, default: 0] += 1 }
            // A zoom the first shard found collapsed itself (points are tiled at every zoom) is already left out.
            for z in needed where f.collapsed.contains(UInt8(z)) && !n.collapsed.contains(UInt8(z)) {
                let i = z - Int(n.base)
                guard i < n.classes.count, n.classes[i] > 0 else { continue }
                leftOut[layers[Int(n.layer)], default: [:]][z, default: [:]][
                    classes[Int(n.classes[i] - 1)], default: 0] +=
                    1
            }
        }
        guard !repaired.isEmpty || !leftOut.isEmpty else { return metadata }
        return try Self.adjusted(metadata, repaired: repaired, leftOut: leftOut)
    }

    /// `metadata` with its `kartpack` summary's counts changed: `repaired` added to the inputs' `repaired`,
    /// `leftOut` taken from the layers' `classes_by_zoom`.
    private static func adjusted(
        _ metadata: ArchiveMetadata, repaired: [String: [ReasonCode: Int]], leftOut: [String: [Int: [String: Int]]]
    ) throws -> ArchiveMetadata {
        func bad(_ why: String) -> ShardError { .damaged(path: "the first shard's part", reason: why) }
        guard let at = metadata.extra.firstIndex(where: { $0.key == "kartpack" }),
            let text = metadata.extra[at].value.stringValue, let summary = try? JSONParser.parse(text),
            (try? summary.serialized()) == text, var top = summary.objectMembers
        else { throw bad("its metadata has no run summary that can be completed") }
        for (i, member) in top.enumerated() {
            guard var entries = member.value.objectMembers else { continue }
            if member.key == "inputs" {
                for (input, counts) in repaired {
                    let found = entries.indices.filter { entries[$0].key == input }
                    guard found.count == 1, let j = found.first, var fields = entries[j].value.objectMembers,
                        let r = fields.firstIndex(where: { $0.key == "repaired" })
                    else { throw bad("its run summary does not count the repairs of \(input) once") }
                    var added = Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) })
                    fields[r].value = try add(fields[r].value, &added, sign: 1, input)
                    entries[j].value = .object(fields)
                }
            } else if member.key == "layers" {
                for (layer, byZoom) in leftOut {
                    guard let j = entries.firstIndex(where: { $0.key == layer }),
                        var fields = entries[j].value.objectMembers,
                        let c = fields.firstIndex(where: { $0.key == "classes_by_zoom" }),
                        var zooms = fields[c].value.objectMembers
                    else { throw bad("its run summary has no classes by zoom for \(layer)") }
                    for (z, counts) in byZoom {
                        guard let k = zooms.firstIndex(where: { $0.key == String(z) }) else {
                            throw bad("its run summary has no classes of \(layer) at zoom \(z)")
                        }
                        var taken = counts
                        zooms[k].value = try add(zooms[k].value, &taken, sign: -1, layer)
                    }
                    fields[c].value = .object(zooms.filter { $0.value.objectMembers?.isEmpty == false })
                    entries[j].value = .object(fields)
                }
            } else {
                continue
            }
            top[i].value = .object(entries)
        }
        guard let completed = try? JSONValue.object(top).serialized() else {
            throw bad("the summary cannot be written")
        }
        var out = metadata
        out.extra[at].value = .string(completed)
        return out
    }

    /// `counts` (an object of counts sorted by key) with `change` added (`sign` 1) or taken (-1): a count that
    /// reaches 0 is removed, a new key is inserted in order.
    private static func add(_ counts: JSONValue, _ change: inout [String: Int], sign: Int, _ name: String) throws
        -> JSONValue
    {
        guard var members = counts.objectMembers else {
            throw ShardError.damaged(path: "the first shard's part", reason: "the counts of \(name) are not an object")
        }
        for (key, n) in change.sorted(by: { $0.key < $1.key }) {
            if let i = members.firstIndex(where: { $0.key == key }) {
                guard let old = members[i].value.intValue, Int(old) + sign * n >= 0 else {
                    throw ShardError.damaged(path: "the first shard's part", reason: "bad count \(key) of \(name)")
                }
                members[i].value = .int(old + Int64(sign * n))
            } else {
                guard sign > 0 else {
                    throw ShardError.damaged(path: "the first shard's part", reason: "no count \(key) of \(name)")
                }
                let at = members.firstIndex { $0.key > key } ?? members.count
                members.insert((key, .int(Int64(n))), at: at)
            }
        }
        change = [:]
        return .object(members.filter { $0.value != .int(0) })
    }
}
