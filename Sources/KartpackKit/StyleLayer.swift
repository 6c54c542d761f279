import KartpackJSON

/// One compiled layer of a client style: the members the look reads, with their expressions compiled.
struct StyleLayer: Sendable {
    var id: String
    var type: String
    var sourceLayer: String?
    var minZoom: Double?
    var maxZoom: Double?
    var hidden: Bool
    var filter: ClientExpression?
    var paint: [String: ClientExpression]
    var layout: [String: ClientExpression]

    /// The layer types read; others (`raster`, `heatmap`, `fill-extrusion`, `hillshade`, …) are refused.
    static let types: Set<String> = ["background", "fill", "line", "circle", "symbol"]

    /// The paint and layout properties the look reads, per layer type; other properties are ignored.
    static let paintKeys: [String: [String]] = [
        "background": ["background-color"],
        "fill": ["fill-color", "fill-opacity", "fill-pattern"],
        "line": ["line-color", "line-width", "line-opacity", "line-dasharray"],
        "circle": [
            "circle-color", "circle-radius", "circle-opacity", "circle-stroke-color",
            "circle-stroke-width",
        ],
        "symbol": ["text-color", "text-halo-color", "text-halo-width"],
    ]
    static let layoutKeys: [String: [String]] = [
        "symbol": [
            "icon-image", "icon-size", "text-field", "text-size", "text-font", "symbol-placement",
        ]
    ]
    /// Properties whose constant value is an array (a bare JSON array is then a literal, as in MapLibre).
    static let arrayKeys: Set<String> = ["line-dasharray", "text-font"]

    init(_ json: JSONValue, index: Int) throws(ExpressionError) {
        let at = "layers[\(index)]"
        guard json.objectMembers != nil else {
            throw ExpressionError(path: at, reason: "a layer must be an object")
        }
        guard let id = json["id"]?.stringValue else {
            throw ExpressionError(path: at, reason: "no string \"id\"")
        }
        let here = "layer \"\(id)\""
        guard let type = json["type"]?.stringValue, Self.types.contains(type) else {
            throw ExpressionError(
                path: here, reason: "type \(json["type"]?.stringValue ?? "(missing)") is not read")
        }
        self.id = id
        self.type = type
        sourceLayer = json["source-layer"]?.stringValue
        func zoom(_ key: String) throws(ExpressionError) -> Double? {
            guard let v = json[key] else { return nil }
            guard let d = v.doubleValue, d.isFinite, d >= 0, d <= 24 else {
                throw ExpressionError(path: here, reason: "\(key) must be a number 0…24")
            }
            return d
        }
        minZoom = try zoom("minzoom")
        maxZoom = try zoom("maxzoom")
        hidden = json["layout"]?["visibility"]?.stringValue == "none"
        filter = try json["filter"].map { f throws(ExpressionError) in
            try ClientExpression.compile(f, at: "\(here) filter", filter: true)
        }
        func compile(_ group: String, _ keys: [String]) throws(ExpressionError) -> [String:
            ClientExpression]
        {
            var out: [String: ClientExpression] = [:]
            guard let members = json[group] else { return out }
            guard members.objectMembers != nil else {
                throw ExpressionError(path: here, reason: "\(group) is no object")
            }
            for key in keys {
                guard let v = members[key] else { continue }
                if Self.arrayKeys.contains(key), case .array(let a) = v, !Self.isExpression(a) {
                    out[key] = .literal(try ClientExpression.literal(v, at: "\(here) \(key)"))
                } else {
                    out[key] = try ClientExpression.compile(v, at: "\(here) \(key)")
                }
            }
            return out
        }
        paint = try compile("paint", Self.paintKeys[type] ?? [])
        layout = try compile("layout", Self.layoutKeys[type] ?? [])
    }

    /// True when a JSON array is an expression (starts with an operator name).
    static func isExpression(_ a: [JSONValue]) -> Bool {
        guard case .string(let op)? = a.first else { return false }
        return ClientExpression.arity[op] != nil
            || ["literal", "get", "has", "match", "step", "interpolate"].contains(op)
    }

    /// MapLibre's rule: drawn when `minzoom` ≤ zoom < `maxzoom` and not hidden.
    func isVisible(atZoom z: Double) -> Bool {
        !hidden && z >= (minZoom ?? 0) && z < (maxZoom ?? .infinity)
    }

    /// Fill layers draw polygons; line layers lines and polygon outlines; circles and symbols anything.
    func draws(_ family: GeometryFamilyKind) -> Bool {
        switch type {
        case "fill": family == .polygon
        case "line": family != .point
        case "circle", "symbol": true
        default: false
        }
    }

    func value(_ key: String, _ c: ExpressionContext) -> ExpressionValue? {
        guard let e = paint[key] ?? layout[key] else { return nil }
        return try? e.evaluate(c)
    }

    func number(_ key: String, _ c: ExpressionContext, default d: Double) -> Double {
        if case .number(let n)? = value(key, c), n.isFinite { return n }
        return d
    }

    func color(_ key: String, _ c: ExpressionContext, default d: LookColor) -> LookColor {
        value(key, c).flatMap(ClientExpression.color) ?? d
    }

    func numbers(_ key: String, _ c: ExpressionContext) -> [Double]? {
        guard case .array(let a)? = value(key, c) else { return nil }
        let n = a.compactMap { v -> Double? in
            if case .number(let d) = v, d.isFinite, d >= 0 { d } else { nil }
        }
        return n.count == a.count && !n.isEmpty ? n : nil
    }

    /// The looks this layer gives a feature it draws.
    func looks(_ c: ExpressionContext, family: GeometryFamilyKind, images: [String: SpriteImageSet])
        -> [LayerLook]
    {
        switch type {
        case "fill":
            let opacity = number("fill-opacity", c, default: 1)
            if paint["fill-pattern"] != nil {
                guard case .string(let name)? = value("fill-pattern", c), !name.isEmpty else { return [] }
                return [.pattern(PatternLook(name: name, image: images[name], opacity: opacity))]
            }
            return [.fill(FillLook(color: color("fill-color", c, default: .black), opacity: opacity))]
        case "line":
            return [
                .stroke(
                    StrokeLook(
                        isOutline: family == .polygon, color: color("line-color", c, default: .black),
                        width: number("line-width", c, default: 1),
                        opacity: number("line-opacity", c, default: 1),
                        dashes: numbers("line-dasharray", c)))
            ]
        case "circle":
            return [
                .circle(
                    CircleLook(
                        color: color("circle-color", c, default: .black),
                        radius: number("circle-radius", c, default: 5),
                        opacity: number("circle-opacity", c, default: 1),
                        strokeColor: color("circle-stroke-color", c, default: .black),
                        strokeWidth: number("circle-stroke-width", c, default: 0)))
            ]
        case "symbol":
            var out: [LayerLook] = []
            if layout["icon-image"] != nil, case .string(let name)? = value("icon-image", c),
                !name.isEmpty
            {
                out.append(
                    .icon(IconLook(name: name, image: images[name], size: number("icon-size", c, default: 1)))
                )
            }
            if let field = layout["text-field"] {
                let text = (try? field.evaluate(c))?.text ?? ""
                var font: [String] = ["Open Sans Regular", "Arial Unicode MS Regular"]
                if case .array(let a)? = value("text-font", c) {
                    font = a.compactMap { if case .string(let s) = $0 { s } else { nil } }
                }
                let placement: String
                if case .string(let p)? = value("symbol-placement", c) {
                    placement = p
                } else {
                    placement = "point"
                }
                out.append(
                    .label(
                        LabelLook(
                            text: text, field: Self.field(of: field),
                            color: color("text-color", c, default: .black),
                            size: number("text-size", c, default: 16),
                            haloColor: color(
                                "text-halo-color", c, default: LookColor(red: 0, green: 0, blue: 0, alpha: 0)),
                            haloWidth: number("text-halo-width", c, default: 0), font: font, placement: placement)
                    ))
            }
            return out
        default:
            return []
        }
    }

    /// The attribute a `text-field` reads, for `["get", N]` and `["to-string", ["get", N]]`.
    static func field(of e: ClientExpression) -> String? {
        switch e {
        case .get(let n): n
        case .call("to-string", let args) where args.count == 1: field(of: args[0])
        default: nil
        }
    }
}
