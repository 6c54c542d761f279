import KartpackJSON

/// What an expression is evaluated on: one feature at one zoom.
struct ExpressionContext {
    var properties: [(key: String, value: FeatureValue)]
    /// MapLibre's `geometry-type`: `Point`, `LineString`, `Polygon` or their `Multi…` form.
    var geometryType: String
    var zoom: Double
    var id: UInt64?

    func property(_ key: String) -> FeatureValue? { properties.first { $0.key == key }?.value }
}

/// A compiled MapLibre expression of the subset `ClientStyle` evaluates (docs/kartpack-kit.md lists it). Compiling
/// checks operators and argument counts, so an unsupported expression is refused when the style is read, never
/// when a feature is drawn.
indirect enum ClientExpression: Sendable {
    case literal(ExpressionValue)
    case get(String)
    case has(String)
    case call(String, [ClientExpression])
    case match(
        ClientExpression, [(labels: [ExpressionValue], value: ClientExpression)], fallback: ClientExpression)
    case step(ClientExpression, base: ClientExpression, stops: [(Double, ClientExpression)])
    case interpolate(base: Double, ClientExpression, stops: [(Double, ClientExpression)])

    /// Operators with a fixed number of arguments (min, max; nil max for any).
    static let arity: [String: (Int, Int?)] = [
        "typeof": (1, 1), "to-string": (1, 1), "to-number": (1, nil), "to-boolean": (1, 1), "!": (1, 1),
        "length": (1, 1), "downcase": (1, 1), "upcase": (1, 1), "==": (2, 2), "!=": (2, 2), "<": (2, 2),
        "<=": (2, 2), ">": (2, 2), ">=": (2, 2), "all": (0, nil), "any": (0, nil), "case": (3, nil),
        "coalesce": (1, nil), "concat": (1, nil), "in": (2, 2), "index-of": (2, 3), "slice": (2, 3),
        "+": (2, nil), "*": (2, nil), "-": (1, 2), "/": (2, 2), "%": (2, 2), "min": (1, nil),
        "max": (1, nil),
        "zoom": (0, 0), "geometry-type": (0, 0), "id": (0, 0), "rgb": (3, 3), "rgba": (4, 4),
        "to-color": (1, nil),
    ]

    /// Operators that only exist in MapLibre's legacy filter syntax.
    static let legacyOnly: Set<String> = ["!in", "!has", "none"]

    /// Compiles `json`; `path` names the place in the style for errors.
    /// - Parameter filter: true for a layer `filter`, where legacy filter syntax is detected and refused.
    static func compile(_ json: JSONValue, at path: String, filter: Bool = false)
        throws(ExpressionError)
        -> ClientExpression
    {
        switch json {
        case .null: return .literal(.null)
        case .bool(let b): return .literal(.bool(b))
        case .int(let i): return .literal(.number(Double(i)))
        case .double(let d): return .literal(.number(d))
        case .string(let s): return .literal(.string(s))
        case .object:
            throw ExpressionError(path: path, reason: "an object is only allowed inside [\"literal\", …]")
        case .array(let items):
            guard case .string(let op)? = items.first else {
                throw ExpressionError(
                    path: path, reason: "an array must start with an operator name (or use literal)")
            }
            let args = Array(items.dropFirst())
            func sub(_ i: Int, filter f: Bool = false) throws(ExpressionError) -> ClientExpression {
                try compile(args[i], at: "\(path)[\(i + 1)]", filter: f)
            }
            if filter,
                legacyOnly.contains(op)
                    || (["==", "!=", "<", "<=", ">", ">=", "in"].contains(op)
                        && args.first?.stringValue != nil
                        && !(op == "in" && args.count == 2 && args[1].arrayValue != nil))
            {
                throw ExpressionError(
                    path: path, reason: "legacy filter syntax [\"\(op)\", …] is not supported")
            }
            switch op {
            case "literal":
                guard args.count == 1 else {
                    throw ExpressionError(path: path, reason: "literal takes one value")
                }
                return .literal(try literal(args[0], at: path))
            case "get", "has":
                guard args.count == 1, case .string(let key) = args[0] else {
                    throw ExpressionError(
                        path: path, reason: "\(op) is supported with one constant attribute name only")
                }
                return op == "get" ? .get(key) : .has(key)
            case "match":
                guard args.count >= 4, args.count % 2 == 0 else {
                    throw ExpressionError(
                        path: path, reason: "match needs an input, label/value pairs and a fallback")
                }
                var arms: [(labels: [ExpressionValue], value: ClientExpression)] = []
                var i = 1
                while i + 1 < args.count {
                    let labels: [ExpressionValue]
                    switch args[i] {
                    case .array(let a):
                        var out: [ExpressionValue] = []
                        for v in a { out.append(try literal(v, at: path)) }
                        labels = out
                    default: labels = [try literal(args[i], at: path)]
                    }
                    arms.append((labels, try sub(i + 1)))
                    i += 2
                }
                return .match(try sub(0), arms, fallback: try sub(args.count - 1))
            case "step":
                guard args.count >= 2, args.count % 2 == 0 else {
                    throw ExpressionError(
                        path: path, reason: "step needs an input, a base value and stop pairs")
                }
                return .step(try sub(0), base: try sub(1), stops: try stops(args, from: 2, at: path))
            case "interpolate":
                guard args.count >= 4, args.count % 2 == 0, case .array(let curve) = args[0],
                    let kind = curve.first?.stringValue
                else {
                    throw ExpressionError(path: path, reason: "interpolate needs a curve, an input and stops")
                }
                var base = 1.0
                switch (kind, curve.count) {
                case ("linear", 1): break
                case ("exponential", 2):
                    guard let b = curve[1].doubleValue, b.isFinite, b > 0 else {
                        throw ExpressionError(path: path, reason: "exponential base must be a positive number")
                    }
                    base = b
                default:
                    throw ExpressionError(path: path, reason: "interpolation \(kind) is not supported")
                }
                return .interpolate(base: base, try sub(1), stops: try stops(args, from: 2, at: path))
            default:
                guard let (lo, hi) = arity[op] else {
                    throw ExpressionError(path: path, reason: "operator \"\(op)\" is not supported")
                }
                guard args.count >= lo, hi.map({ args.count <= $0 }) ?? true else {
                    throw ExpressionError(
                        path: path, reason: "\(op) takes \(lo)…\(hi.map(String.init) ?? "") args")
                }
                if op == "case", args.count % 2 == 0 {
                    throw ExpressionError(
                        path: path, reason: "case needs condition/value pairs and a fallback")
                }
                let nested = filter && ["all", "any", "!"].contains(op)
                var compiled: [ClientExpression] = []
                for i in args.indices { compiled.append(try sub(i, filter: nested)) }
                return .call(op, compiled)
            }
        }
    }

    static func stops(_ args: [JSONValue], from start: Int, at path: String) throws(ExpressionError)
        -> [(Double, ClientExpression)]
    {
        var out: [(Double, ClientExpression)] = []
        var i = start
        while i + 1 < args.count {
            guard let x = args[i].doubleValue, x.isFinite, out.last.map({ x > $0.0 }) ?? true else {
                throw ExpressionError(
                    path: path, reason: "stop inputs must be finite numbers in ascending order")
            }
            out.append((x, try compile(args[i + 1], at: "\(path)[\(i + 1)]")))
            i += 2
        }
        return out
    }

    static func literal(_ json: JSONValue, at path: String) throws(ExpressionError) -> ExpressionValue {
        switch json {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .number(Double(i))
        case .double(let d): return .number(d)
        case .string(let s): return .string(s)
        case .array(let a):
            var out: [ExpressionValue] = []
            for v in a { out.append(try literal(v, at: path)) }
            return .array(out)
        case .object: throw ExpressionError(path: path, reason: "object literals are not supported")
        }
    }
}

/// An expression `ClientStyle` cannot evaluate, found when the style is read.
struct ExpressionError: Error {
    var path: String
    var reason: String
}
