import KartpackJSON
import TileArchive

/// Checks a MapLibre GL style (version 8) against the rules of the style specification that can be verified
/// without MapLibre itself: required root keys, sources, each layer's required keys (unique `id`, `type` from the
/// allowed set, `source`, `source-layer` for vector sources), layout/paint property names for the layer type,
/// colours, opacities, widths, enumerations, zoom ranges (`0 ≤ minzoom ≤ maxzoom ≤ 24`), `filter` expressions
/// (known operators and arities, boolean result, no constant legacy-style comparisons), `glyphs` when text is
/// drawn, and sprite image names (`fill-pattern`, `icon-image`, …) against the sprite index when one is given.
public enum MapLibreStyleValidator {
    /// Validates style JSON text (and, when given, the sprite index text `sprite.json`).
    public static func validate(text: String, spriteIndexText: String? = nil) -> [StyleIssue] {
        let style: JSONValue
        do throws(StyleJSONParseError) {
            style = try StyleJSON.parse(text)
        } catch {
            return [StyleIssue(path: "", message: "not JSON: \(error)")]
        }
        var index: JSONValue?
        if let spriteIndexText {
            do throws(StyleJSONParseError) {
                index = try StyleJSON.parse(spriteIndexText)
            } catch {
                return [StyleIssue(path: "sprite", message: "the sprite index is not JSON: \(error)")]
            }
        }
        return validate(style, spriteIndex: index)
    }

    /// Validates a parsed style; `spriteIndex` is the parsed `sprite.json` (image names are then checked).
    public static func validate(_ style: JSONValue, spriteIndex: JSONValue? = nil) -> [StyleIssue] {
        var v = Run()
        v.style(style, spriteIndex: spriteIndex)
        return v.issues
    }

    // MARK: - The checks

    struct Run {
        var issues: [StyleIssue] = []
        var imageNames: Set<String>?

        mutating func issue(_ path: String, _ message: String) {
            issues.append(StyleIssue(path: path, message: message))
        }

        mutating func style(_ style: JSONValue, spriteIndex: JSONValue?) {
            guard let root = style.objectMembers else {
                issue("", "the style is not a JSON object")
                return
            }
            for (key, _) in root where !rootKeys.contains(key) { issue(key, "unknown root property") }
            if style["version"]?.intValue != 8 { issue("version", "must be 8") }
            if let name = style["name"], name.stringValue == nil { issue("name", "must be a string") }
            if let index = spriteIndex { checkSpriteIndex(index) }

            var sourceTypesByName: [String: String] = [:]
            if let sources = style["sources"]?.objectMembers {
                for (name, source) in sources {
                    let path = "sources.\(name)"
                    guard let type = source["type"]?.stringValue else {
                        issue(path, "a source needs a string type")
                        continue
                    }
                    if !sourceTypes.contains(type) { issue(path + ".type", "unknown source type \(type)") }
                    if type == "vector" || type == "raster" || type == "raster-dem" {
                        let hasURL = source["url"]?.stringValue.map { !$0.isEmpty } ?? false
                        let hasTiles = source["tiles"]?.arrayValue.map { !$0.isEmpty } ?? false
                        if !hasURL && !hasTiles { issue(path, "a \(type) source needs url or tiles") }
                    }
                    sourceTypesByName[name] = type
                }
            } else {
                issue("sources", "required object is missing")
            }

            if let sprite = style["sprite"] {
                switch sprite {
                case .string(let s): if s.isEmpty { issue("sprite", "empty URL") }
                case .array(let list):
                    for (i, e) in list.enumerated() where e["id"]?.stringValue == nil || e["url"]?.stringValue == nil {
                        issue("sprite[\(i)]", "a sprite entry needs string id and url")
                    }
                default: issue("sprite", "must be a URL string or a list of {id, url}")
                }
            }
            if let glyphs = style["glyphs"] {
                if let g = glyphs.stringValue {
                    if !g.contains("{fontstack}") || !g.contains("{range}") {
                        issue("glyphs", "the URL template needs {fontstack} and {range}")
                    }
                } else {
                    issue("glyphs", "must be a string")
                }
            }
            if let center = style["center"] {
                if let a = center.arrayValue, a.count == 2, let lon = a[0].doubleValue, let lat = a[1].doubleValue {
                    if abs(lon) > 180 || abs(lat) > 90 { issue("center", "outside the world") }
                } else {
                    issue("center", "must be [longitude, latitude]")
                }
            }

            guard let layers = style["layers"]?.arrayValue else {
                issue("layers", "required array is missing")
                return
            }
            var ids = Set<String>()
            for (i, layer) in layers.enumerated() {
                self.layer(
                    layer, path: "layers[\(i)]", ids: &ids, sourceTypes: sourceTypesByName, style: style,
                    spriteIndex: spriteIndex)
            }
        }

        mutating func checkSpriteIndex(_ index: JSONValue) {
            guard let members = index.objectMembers else {
                issue("sprite", "the sprite index is not an object")
                return
            }
            var names = Set<String>()
            for (name, e) in members {
                names.insert(name)
                for key in ["x", "y", "width", "height", "pixelRatio"] {
                    guard let v = e[key]?.intValue else {
                        issue("sprite.\(name)", "needs integer \(key)")
                        continue
                    }
                    if v < 0 || ((key == "width" || key == "height" || key == "pixelRatio") && v == 0) {
                        issue("sprite.\(name).\(key)", "out of range: \(v)")
                    }
                }
            }
            imageNames = names
        }

        mutating func layer(
            _ layer: JSONValue, path: String, ids: inout Set<String>, sourceTypes: [String: String], style: JSONValue,
            spriteIndex: JSONValue?
        ) {
            guard let members = layer.objectMembers else {
                issue(path, "a layer must be an object")
                return
            }
            for (key, _) in members where !layerKeys.contains(key) { issue("\(path).\(key)", "unknown layer property") }
            if let id = layer["id"]?.stringValue, !id.isEmpty {
                if !ids.insert(id).inserted { issue("\(path).id", "duplicate id \(id)") }
            } else {
                issue("\(path).id", "a layer needs a non-empty string id")
            }
            guard let type = layer["type"]?.stringValue, layerTypes.contains(type) else {
                issue("\(path).type", "missing or unknown layer type")
                return
            }
            if type != "background" {
                if let source = layer["source"]?.stringValue {
                    if let st = sourceTypes[source] {
                        if st == "vector" {
                            if layer["source-layer"]?.stringValue.map({ !$0.isEmpty }) != true {
                                issue("\(path).source-layer", "required for a vector source")
                            }
                        }
                    } else {
                        issue("\(path).source", "no source named \(source)")
                    }
                } else {
                    issue("\(path).source", "required for a \(type) layer")
                }
            }
            var lo = 0.0
            var hi = 24.0
            for key in ["minzoom", "maxzoom"] {
                guard let z = layer[key] else { continue }
                guard let d = z.doubleValue, d >= 0, d <= 24 else {
                    issue("\(path).\(key)", "must be a number in 0…24")
                    continue
                }
                if key == "minzoom" { lo = d } else { hi = d }
            }
            if lo > hi { issue(path, "minzoom \(lo) exceeds maxzoom \(hi)") }
            if let filter = layer["filter"] { self.filter(filter, path: "\(path).filter") }

            for (section, table) in [
                ("layout", MapLibreStyleValidator.layout), ("paint", MapLibreStyleValidator.paint),
            ] {
                guard let value = layer[section] else { continue }
                guard let props = value.objectMembers else {
                    issue("\(path).\(section)", "must be an object")
                    continue
                }
                let allowed = table[type] ?? []
                for (name, v) in props {
                    let p = "\(path).\(section).\(name)"
                    if !allowed.contains(name) {
                        issue(p, "not a \(section) property of a \(type) layer")
                        continue
                    }
                    property(name, v, path: p, style: style)
                }
            }
            if type == "symbol", layer["layout"]?["text-field"] != nil, style["glyphs"] == nil {
                issue("\(path).layout.text-field", "text needs the root glyphs URL")
            }
        }

        mutating func property(_ name: String, _ v: JSONValue, path: String, style: JSONValue) {
            if case .array(let a) = v, case .string(let op)? = a.first, operators[op] != nil {
                expression(v, path: path)
                return
            }
            if name.hasSuffix("-color") {
                if let s = v.stringValue {
                    if !CSSColor.isValid(s) { issue(path, "not a CSS colour: \(s)") }
                } else {
                    issue(path, "a colour must be a string or an expression")
                }
                return
            }
            if name.hasSuffix("-opacity") {
                if let d = v.doubleValue {
                    if !(0...1).contains(d) { issue(path, "opacity \(d) is outside 0…1") }
                } else {
                    issue(path, "must be a number")
                }
                return
            }
            if MapLibreStyleValidator.nonNegative.contains(name) {
                if let d = v.doubleValue {
                    if d < 0 { issue(path, "must not be negative") }
                } else {
                    issue(path, "must be a number")
                }
                return
            }
            if let allowed = MapLibreStyleValidator.enums[name] {
                if let s = v.stringValue, allowed.contains(s) { return }
                issue(path, "must be one of \(allowed.sorted().joined(separator: ", "))")
                return
            }
            if MapLibreStyleValidator.imageProperties.contains(name) {
                guard let s = v.stringValue, !s.isEmpty else {
                    issue(path, "an image name must be a non-empty string or an expression")
                    return
                }
                if style["sprite"] == nil { issue(path, "image \(s) is used but the style has no sprite") }
                if let names = imageNames, !names.contains(s) { issue(path, "image \(s) is not in the sprite") }
                return
            }
            switch name {
            case "line-dasharray":
                guard let a = v.arrayValue, !a.isEmpty,
                    a.allSatisfy({ ($0.doubleValue ?? -1) >= 0 })
                else {
                    issue(path, "must be a non-empty array of non-negative numbers")
                    return
                }
            case "text-font":
                guard let a = v.arrayValue, !a.isEmpty, a.allSatisfy({ $0.stringValue != nil }) else {
                    issue(path, "must be an array of font names")
                    return
                }
            case "text-field":
                if v.stringValue == nil { issue(path, "must be a string or an expression") }
            case "text-offset", "icon-offset", "fill-translate", "line-translate", "circle-translate":
                guard let a = v.arrayValue, a.count == 2, a.allSatisfy({ $0.doubleValue != nil }) else {
                    issue(path, "must be an array of two numbers")
                    return
                }
            case "fill-antialias", "icon-allow-overlap", "text-allow-overlap", "icon-ignore-placement",
                "text-ignore-placement", "icon-optional", "text-optional", "symbol-avoid-edges":
                if case .bool = v {} else { issue(path, "must be true or false") }
            default:
                break
            }
        }

        mutating func filter(_ f: JSONValue, path: String) {
            guard case .array(let a) = f, case .string(let op)? = a.first else {
                if case .bool = f { return }
                issue(path, "a filter must be an expression array")
                return
            }
            guard MapLibreStyleValidator.booleanOperators.contains(op) else {
                issue(path, "the filter's operator \(op) does not give a boolean")
                return
            }
            expression(f, path: path)
        }

        /// Checks operators, arities and the argument forms the style generator relies on.
        mutating func expression(_ e: JSONValue, path: String) {
            guard case .array(let a) = e else { return }
            guard case .string(let op)? = a.first else {
                issue(path, "an expression starts with its operator name")
                return
            }
            guard let arity = operators[op] else {
                issue(path, "unknown expression operator \(op)")
                return
            }
            let args = Array(a.dropFirst())
            if args.count < arity.min || (arity.max.map { args.count > $0 } ?? false) {
                issue(
                    path,
                    "\(op) takes \(arity.min)\(arity.max.map { $0 == arity.min ? "" : "…\($0)" } ?? "+") arguments, "
                        + "got \(args.count)"
                )
                return
            }
            switch op {
            case "literal":
                return
            case "get", "has":
                if args[0].stringValue == nil, args[0].arrayValue == nil { issue(path, "\(op) needs a property name") }
            case "==", "!=", "<", "<=", ">", ">=":
                let constant = args.prefix(2).allSatisfy { $0.arrayValue == nil }
                if constant {
                    issue(path, "\(op) compares two constants (legacy filter syntax?); use [\"get\", NAME]")
                }
            case "match":
                if args.count % 2 != 0 { issue(path, "match needs input, label/output pairs and a fallback") }
            default:
                break
            }
            for (i, arg) in args.enumerated() where arg.arrayValue != nil {
                if op == "match", i % 2 == 1, i != args.count - 1 { continue }  // labels may be arrays of literals
                expression(arg, path: "\(path)[\(i + 1)]")
            }
        }
    }
}
