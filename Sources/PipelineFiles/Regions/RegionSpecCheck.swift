import Foundation
import KartpackCore
import KartpackJSON
import Shapefile
import Styling
import ConvertEngine

extension PipelineRunner {
    /// The most bad or repeated ids listed one by one by `validate` (the rest are counted).
    static let maxListedRegionProblems = 20

    /// Problems of the pipeline's `regions` section, all in one pass: the filter's syntax, the region file (a
    /// polygon layer), `idField` and `nameField` against its `.dbf`, and every region id (a safe file name, used
    /// once). A missing region file is left to `missingFiles(forPackage:)`.
    package static func regionIssues(_ spec: PipelineSpec) -> [PipelineSpecIssue] {
        guard let r = spec.regions else { return [] }
        let at = JSONPath.root.appending("regions")
        var out: [PipelineSpecIssue] = []
        if spec.clip != nil {
            out.append(
                PipelineSpecIssue(
                    path: JSONPath.root.appending("clip"),
                    message: "a pipeline packaged by region must not clip: each region is the clip (remove clip)"))
        }
        var filter: AttributeFilterList?
        if let text = r.filter {
            let (parsed, diagnostics) = AttributeFilterList.parse(text, file: spec.file)
            for d in diagnostics where d.severity == .error {
                out.append(
                    PipelineSpecIssue(
                        path: at.appending("filter"), message: "\(d.message) (column \(d.column) of the filter)"))
            }
            filter = parsed
        }
        guard FileManager.default.fileExists(atPath: r.path) else { return out.map(spec.locations.locate) }
        let name = SpecPaths.fileName(r.path)
        let reader: any LayerReading
        do {
            let layers = try InputLayer.layers(at: r.path)
            guard layers.count == 1 else {
                throw InputRejection(
                    code: .regionsNotOneLayer,
                    message:
                        "\(layers.count) layers (\(layers.map(\.baseName).joined(separator: ", "))); a region file "
                        + "must hold one")
            }
            reader = try layers[0].open(encoding: nil, diagnostics: DiagnosticSink())
        } catch {
            out.append(
                PipelineSpecIssue(
                    path: at.appending("path"),
                    message: "\(name): \((error as? any KartpackError)?.description ?? "\(error)")"))
            return out.map(spec.locations.locate)
        }
        if let kind = reader.schema.geometryKind, kind.family != .polygon {
            out.append(
                PipelineSpecIssue(
                    path: at.appending("path"),
                    message: "\(name) holds \(kind.rawValue) records; regions must be polygons"))
            return out.map(spec.locations.locate)
        }
        let fields = reader.schema.fields.map(\.name)
        func missing(_ field: String, _ key: String) -> Bool {
            guard !fields.contains(where: { $0.lowercased() == field.lowercased() }) else { return false }
            let hint =
                KeySuggestion.closest(to: field, among: fields).map { "; did you mean \($0)?" }
                ?? " (fields: \(fields.joined(separator: ", ")))"
            out.append(PipelineSpecIssue(path: at.appending(key), message: "\(field) is not a field of \(name)\(hint)"))
            return true
        }
        let idMissing = missing(r.idField, "idField")
        if let n = r.nameField { _ = missing(n, "nameField") }
        for f in filter?.filters ?? [] { _ = missing(f.attribute, "filter") }
        if idMissing { return out.map(spec.locations.locate) }

        var seen: [String: Int] = [:]
        var folded: [String: (id: String, record: Int)] = [:]
        var problems: [String] = []
        var shapes: [String] = []
        var regions = 0
        do {
            // The records as `package` reads them: a shape that cannot be a region is named here too.
            for e in try RegionSet.records(path: r.path) {
                if let filter, !filter.matches(e.properties) { continue }
                regions += 1
                let record = e.record
                let id = RegionSet.text(RegionSet.value(e.properties, r.idField) ?? .null)
                if let reason = RegionSet.problem(id) {
                    problems.append("record \(record): region id \(RegionSetError.quoted(id)) \(reason)")
                } else if let first = seen[id] {
                    problems.append(
                        "record \(record): region id \(RegionSetError.quoted(id)) is already used by record \(first)")
                } else if let other = folded[id.lowercased()] {
                    let clash = RegionSetError.caseClash(
                        file: name, id: id, other: other.id, first: other.record, again: record)
                    problems.append(String(clash.description.dropFirst(name.count + 2)))
                } else {
                    seen[id] = record
                    folded[id.lowercased()] = (id, record)
                }
                if case .failure(let p) = e.shape {
                    shapes.append("record \(record): region \(RegionSetError.quoted(id)): \(p.reason) [\(p.code)]")
                }
            }
        } catch {
            out.append(
                PipelineSpecIssue(
                    path: at.appending("path"),
                    message: "\(name): \((error as? any KartpackError)?.description ?? "\(error)")"))
        }
        out += listed(problems, at: at.appending("idField"), file: name) {
            "\($0) more bad or repeated ids (ids are 1-64 letters, digits, - or _, each used once)"
        }
        out += listed(shapes, at: at.appending("path"), file: name) {
            "\($0) more regions that cannot be built (docs/regions.md, When a night is refused)"
        }
        if regions == 0 {
            out.append(
                PipelineSpecIssue(path: at.appending("path"), message: "\(name): no region (no polygon record matches)")
            )
        }
        return out.map(spec.locations.locate)
    }

    /// The first `maxListedRegionProblems` of `problems` as issues, then one that counts the rest.
    private static func listed(
        _ problems: [String], at path: JSONPath, file: String, more: (Int) -> String
    ) -> [PipelineSpecIssue] {
        var out = problems.prefix(maxListedRegionProblems).map {
            PipelineSpecIssue(path: path, message: "\(file): \($0)")
        }
        if problems.count > maxListedRegionProblems {
            out.append(
                PipelineSpecIssue(
                    path: path, message: "\(file): …and " + more(problems.count - maxListedRegionProblems)))
        }
        return out
    }
}
