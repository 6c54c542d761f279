import KartpackCore

extension Stylesheet {
    /// Runs the `@example` blocks: an example whose feature does not get the expected class is an error
    /// (`example_failed`) at the example's position; an example without `expect-class` is a warning
    /// (`example_without_expectation`). Descendant selectors see the feature inside exactly the ancestor sets whose
    /// layer the example names in `inside` (see `StyleExample`).
    public func runExamples() -> [StyleDiagnostic] {
        guard !examples.isEmpty else { return [] }
        let classifier = StyleClassifier(sheet: self)
        var out: [StyleDiagnostic] = []
        for example in examples {
            guard let expected = example.expectedClass else {
                out.append(
                    StyleDiagnostic(
                        .warning, code: "example_without_expectation", file: file, at: example.location,
                        "example for '\(example.layer)' has no 'expect-class', so it checks nothing"))
                continue
            }
            let inside = example.inside.map { $0.lowercased() }
            let style = classifier.style(layer: example.layer, properties: example.properties, zoom: example.zoom) {
                id in
                inside.contains(classifier.ancestorSelectors[id.rawValue].lowercasedLayer)
            }
            let actual: StyleExample.Expectation = style.className.map { .className($0) } ?? .noClass
            guard actual != expected else { continue }
            func show(_ e: StyleExample.Expectation) -> String {
                switch e {
                case .noClass: "no class"
                case .className(let c): "class '\(c)'"
                }
            }
            let attributes = example.properties.map { "\($0.key): \(Self.describe($0.value))" }.joined(separator: "; ")
            let feature = "\(example.layer) { \(attributes) } at zoom \(example.zoom)"
            out.append(
                StyleDiagnostic(
                    .error, code: "example_failed", file: file, at: example.location,
                    "example failed: \(feature) expected \(show(expected)), got \(show(actual))"))
        }
        return out
    }

    private static func describe(_ v: PropertyValue) -> String {
        switch v {
        case .string(let s): quoteStyleString(s)
        case .int(let i): String(i)
        case .uint(let u): String(u)
        case .double(let d): String(d)
        case .bool(let b): b ? "true" : "false"
        case .null: "null"
        }
    }
}
