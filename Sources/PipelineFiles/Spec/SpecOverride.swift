import KartpackJSON

/// `--set key.path=value` overrides, applied to the parsed document before validation.
///
/// The value is read as JSON when the whole text is valid JSON (`12`, `true`, `[1,2]`, `"text"`), otherwise as a
/// string (`EPSG:3006`, `/tmp/x.pmtiles`). Missing objects on the way are created; an index may point one past
/// the end of an array to append. Unknown keys are left for validation to report with the usual message.
package enum SpecOverride {
    /// Applies every override in order; returns the new document, a problem per override that could not be
    /// applied, and the paths that were set.
    package static func apply(_ overrides: [String], to document: JSONValue) -> (
        JSONValue, [PipelineSpecIssue], [JSONPath]
    ) {
        var doc = document
        var issues: [PipelineSpecIssue] = []
        var paths: [JSONPath] = []
        for text in overrides {
            guard let eq = text.firstIndex(of: "=") else {
                issues.append(PipelineSpecIssue(path: .root, message: "--set \(text): expected KEY.PATH=VALUE"))
                continue
            }
            let keyText = String(text[..<eq])
            let valueText = String(text[text.index(after: eq)...])
            guard let path = JSONPath.parse(keyText) else {
                issues.append(
                    PipelineSpecIssue(
                        path: .root,
                        message:
                            "--set \(text): cannot read the key path \"\(keyText)\" (write it like tiles.maxZoom or "
                            + "sources[0].crs)"
                    ))
                continue
            }
            let value = jsonValue(valueText) ?? .string(valueText)
            do throws(OverrideFailure) {
                doc = try set(value, at: path.components[...], in: doc, walked: .root)
                paths.append(path)
            } catch {
                issues.append(PipelineSpecIssue(path: error.path, message: "--set \(text): \(error.reason)"))
            }
        }
        return (doc, issues, paths)
    }

    /// `--set output.path=x.mbtiles` means "write an MBTiles file there": when `output.path` was set but
    /// `output.format` was not (nor `output` as a whole), a `format` the file gives is dropped so that the format
    /// follows the new path's extension. A format given with `--set` still has to match.
    static func formatFollowingPath(_ document: JSONValue, setPaths: [JSONPath]) -> JSONValue {
        let output = JSONPath.root.appending("output")
        let path = output.appending("path")
        let format = output.appending("format")
        guard setPaths.contains(path),
            !setPaths.contains(where: { $0 == format || $0 == output || $0 == .root })
        else { return document }
        guard case .object(var top) = document, let i = top.firstIndex(where: { $0.key == "output" }),
            case .object(let members) = top[i].value
        else { return document }
        top[i].value = .object(members.filter { $0.key != "format" })
        return .object(top)
    }

    /// A `--set` value: JSON when the whole text is a JSON value (nested at most 32 levels), nil otherwise.
    static func jsonValue(_ text: String) -> JSONValue? {
        var options = PipelineSpec.jsonOptions
        options.maxDepth = 32
        do throws(JSONParseError) {
            return try JSONParser.parse(text, options: options)
        } catch {
            return nil
        }
    }

    package struct OverrideFailure: Error {
        package var path: JSONPath
        package var reason: String
    }

    private static func set(
        _ value: JSONValue, at components: ArraySlice<JSONPath.Component>, in node: JSONValue?, walked: JSONPath
    ) throws(OverrideFailure) -> JSONValue {
        guard let first = components.first else { return value }
        let rest = components.dropFirst()
        switch first {
        case .key(let key):
            var members: [(key: String, value: JSONValue)]
            switch node {
            case .object(let m): members = m
            case nil, .null: members = []
            case let other?:
                throw OverrideFailure(
                    path: walked,
                    reason:
                        "\(walked.description.isEmpty ? "the document" : walked.description) is \(kind(other)), not "
                        + "an object"
                )
            }
            let next = walked.appending(key)
            if let i = members.firstIndex(where: { $0.key == key }) {
                members[i].value = try set(value, at: rest, in: members[i].value, walked: next)
            } else {
                members.append((key, try set(value, at: rest, in: nil, walked: next)))
            }
            return .object(members)
        case .index(let index):
            guard case .array(var elements)? = node else {
                let what = node.map(kind) ?? "missing"
                throw OverrideFailure(path: walked, reason: "\(walked) is \(what), not an array")
            }
            let next = walked.appending(index)
            if index < elements.count {
                elements[index] = try set(value, at: rest, in: elements[index], walked: next)
            } else if index == elements.count && rest.isEmpty {
                elements.append(value)
            } else {
                throw OverrideFailure(
                    path: next,
                    reason:
                        "index \(index) is out of range (\(walked) has \(elements.count) "
                        + "\(elements.count == 1 ? "entry" : "entries"))"
                )
            }
            return .array(elements)
        }
    }

    private static func kind(_ v: JSONValue) -> String {
        switch v {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .int, .double: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}
