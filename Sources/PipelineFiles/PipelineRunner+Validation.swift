import Foundation
import KartpackCore
import KartpackJSON
import Reprojection
import Shapefile
import Styling
import ConvertEngine
import Publishing

extension PipelineRunner {
    /// Compiles the spec: filters, stylesheet and clip region into `ConvertOptions`. Problems are collected, as
    /// printed lines (`plan.json:4:19: sources[0].filter: …`).
    package static func compile(_ spec: PipelineSpec) -> (ConvertOptions?, [String]) {
        let (o, issues) = compileIssues(spec)
        return (o, issues.isEmpty ? [] : PipelineSpecError(file: spec.file, issues: issues).description.lines)
    }

    /// Compiles the spec; every problem is an issue with its JSON path (and line and column in the file).
    package static func compileIssues(_ spec: PipelineSpec) -> (ConvertOptions?, [PipelineSpecIssue]) {
        var issues: [PipelineSpecIssue] = []
        var o = spec.convertOptions
        let sources = JSONPath.root.appending("sources")
        for (i, s) in spec.sources.enumerated() {
            o.inputs[i].keep = s.keep
            o.inputs[i].rename = s.rename.map { ($0.from, $0.to) }
            o.inputs[i].minZoom = s.minZoom
            o.inputs[i].maxZoom = s.maxZoom
            o.inputs[i].idField = s.idField
            o.inputs[i].idPolicy = s.idPolicy
            o.inputs[i].identity = s.identity
            if let text = s.thinning {
                o.inputs[i].thinning = ThinningPolicy(text)
                if o.inputs[i].thinning == nil {
                    issues.append(
                        spec.locations.locate(
                            PipelineSpecIssue(
                                path: sources.appending(i).appending("thinning"),
                                message: "expected \"auto\", \"never\" or \"priority N\" (N from 0 to 1000), got "
                                    + JSONWriter.quoted(text))))
                }
            }
            if let text = s.filter {
                o.inputs[i].filter = filter(
                    text, at: sources.appending(i).appending("filter"), in: spec, issues: &issues)
            }
        }
        if let style = spec.style {
            do {
                let (sheet, _) = try StyleLoader.load(path: style)
                o.style = sheet
            } catch {
                issues.append(
                    spec.locations.locate(
                        PipelineSpecIssue(path: JSONPath.root.appending("style"), message: error.description)))
            }
        }
        if let clip = spec.clip {
            switch clip.area {
            case .bbox(let b): o.clip = ClipOptions(source: .bbox(b), buffer: clip.buffer)
            case .file(let path, let text):
                let at = JSONPath.root.appending("clip").appending("filter")
                let compiled = text.flatMap { filter($0, at: at, in: spec, issues: &issues) }
                o.clip = ClipOptions(
                    source: .polygons(path: path, filter: compiled, sourceCRS: nil), buffer: clip.buffer)
            }
        }
        o.force = true
        return (issues.isEmpty ? o : nil, issues)
    }

    /// Compiles one record filter of the spec; errors are added with their JSON path and place in the file.
    private static func filter(
        _ text: String, at path: JSONPath, in spec: PipelineSpec, issues: inout [PipelineSpecIssue]
    ) -> AttributeFilterList? {
        let (filter, diagnostics) = AttributeFilterList.parse(text, file: spec.file)
        for d in diagnostics where d.severity == .error {
            issues.append(
                spec.locations.locate(
                    PipelineSpecIssue(path: path, message: "\(d.message) (column \(d.column) of the filter)")))
        }
        return filter
    }

    /// Checks everything a run needs without building, and reports every problem in one pass: the spec, missing
    /// files, filters (their syntax, and that they name fields the source has), `keep`, `rename` and `idField`
    /// against the source's fields, each source's headers, CRS and records (as a run would reject it), the
    /// stylesheet (lint against the sources' fields, examples). Returns errors and warnings as lines.
    package static func validate(
        path: String, overrides: [String]
    ) -> (errors: [String], warnings: [String], notes: [String]) {
        // Schema problems do not hide the rest: what decodes is checked in the same pass.
        let (loaded, schemaError) = PipelineSpec.loadLeniently(path: path, overrides: overrides)
        guard let spec = loaded else { return ((schemaError?.lines ?? []).map { "\(path): \($0)" }, [], []) }
        // A pipeline with a `regions` section is checked as `kartpack package` runs it.
        var issues = (schemaError?.issues ?? []) + spec.missingFiles(forPackage: spec.regions != nil)
        var warnings: [String] = []
        var notes: [String] = []
        let (compiled, problems) = compileIssues(spec)
        issues += problems + regionIssues(spec)
        if let compiled {
            // Folder sources and label layers claim names the spec alone does not show.
            do throws(PipelineError) { try LayerRegistry.check(compiled) } catch {
                issues.append(
                    spec.locations.locate(
                        PipelineSpecIssue(path: JSONPath.root.appending("sources"), message: error.description)))
            }
        }
        let names = displayNames(spec)
        var schemas: [LayerSchema] = []
        for (i, s) in spec.sources.enumerated() where FileManager.default.fileExists(atPath: s.path) {
            let at = JSONPath.root.appending("sources").appending(i)
            var input = ConvertInput(path: s.path, layerName: s.layer, sourceCRS: s.crs, encoding: s.encoding)
            input.files = try? ShapefileLocator.shapefiles(at: s.path).first
            input.minZoom = s.minZoom
            input.maxZoom = s.maxZoom
            var probe = spec.convertOptions
            probe.inputs = [input]
            let rejections: [InputProbe.Rejection]
            do { rejections = try InputProbe.rejections(probe) } catch {
                let text = (error as? any KartpackError)?.description ?? "\(error)"
                issues.append(spec.locations.locate(PipelineSpecIssue(path: at.appending("path"), message: text)))
                continue
            }
            for r in rejections {
                issues.append(
                    spec.locations.locate(
                        PipelineSpecIssue(
                            path: at.appending("path"), message: names.rewrite("\(names.name(r.path)): \(r.message)"))))
            }
            guard let layer = try? input.inputSets().first,
                let reader = try? layer.open(encoding: s.encoding, diagnostics: DiagnosticSink())
            else { continue }
            var schema = reader.schema
            schema.name = s.layer
            schemas.append(schema)
            if rejections.isEmpty, let crs = try? reader.resolveCRS(override: s.crs) {
                do {
                    _ = try CoordinateTransformer(from: crs, to: .webMercator)
                } catch {
                    issues.append(
                        spec.locations.locate(
                            PipelineSpecIssue(
                                path: at.appending("path"),
                                message: names.rewrite("\(names.name(s.path)): \(error.description)"))))
                }
            }
            issues += fieldIssues(s, fields: reader.schema.fields, at: at).map(spec.locations.locate)
            if rejections.isEmpty, let why = recordBoxDoubt(input) { warnings.append(names.rewrite(why)) }
        }
        if let style = spec.style, FileManager.default.fileExists(atPath: style) {
            let sheet = try? StyleLoader.load(path: style).0
            var diagnostics = StyleLoader.validate(path: style, inputs: [])
            if let sheet { diagnostics += sheet.lint(layers: schemas) }
            for d in diagnostics {
                let line = "\(d.file):\(d.line):\(d.column): \(d.message)"
                switch d.severity {
                case .note: notes.append(line)
                case .warning: warnings.append(line)
                case .error:
                    // A stylesheet that does not load at all is already an issue of `compileIssues`.
                    if sheet != nil {
                        issues.append(
                            spec.locations.locate(
                                PipelineSpecIssue(path: JSONPath.root.appending("style"), message: line)))
                    }
                }
            }
        }
        let errors =
            issues.isEmpty ? [] : PipelineSpecError(file: path, issues: Self.unique(issues)).description.lines
        return (errors, warnings, notes)
    }

    /// Issues in order without repeats (a schema problem may also be found again by a later check).
    package static func unique(_ issues: [PipelineSpecIssue]) -> [PipelineSpecIssue] {
        var seen: [PipelineSpecIssue] = []
        for i in issues where !seen.contains(i) { seen.append(i) }
        return seen
    }

    /// Problems of a source's attribute settings against the fields its `.dbf` has.
    static func fieldIssues(_ s: SourceSpec, fields: [FieldDefinition], at: JSONPath) -> [PipelineSpecIssue] {
        var out: [PipelineSpecIssue] = []
        let known = fields.map(\.name)
        func has(_ name: String) -> Bool { known.contains { $0.lowercased() == name.lowercased() } }
        func unknown(_ name: String, _ consequence: String = "") -> String {
            let hint =
                KeySuggestion.closest(to: name, among: known).map { "; did you mean \($0)?" }
                ?? " (fields: \(known.joined(separator: ", ")))"
            return "\(name) is not a field of \(SpecPaths.fileName(s.path))\(consequence)\(hint)"
        }
        if let text = s.filter, let list = AttributeFilterList.parse(text, file: "").0 {
            for f in list.filters where !has(f.attribute) {
                out.append(
                    PipelineSpecIssue(
                        path: at.appending("filter"),
                        message: unknown(f.attribute, ", so the filter cannot work as written")))
            }
        }
        for (j, name) in (s.keep ?? []).enumerated() where !has(name) {
            out.append(PipelineSpecIssue(path: at.appending("keep").appending(j), message: unknown(name)))
        }
        for r in s.rename where !has(r.from) {
            out.append(PipelineSpecIssue(path: at.appending("rename").appending(r.from), message: unknown(r.from)))
        }
        if let field = s.idField {
            do throws(FeatureIDSchemeError) {
                _ = try FeatureIDScheme.forField(field, in: fields, policy: s.idPolicy ?? .reject)
            } catch {
                out.append(PipelineSpecIssue(path: at.appending("idField"), message: error.description))
            }
        }
        return out
    }
}

extension String {
    /// The lines of a multi-line text.
    fileprivate var lines: [String] { split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}
