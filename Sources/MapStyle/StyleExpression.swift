public import KartpackCore
public import Styling
public import KartpackJSON

/// A constant a style expression yields.
public enum StyleLiteral: Sendable, Hashable {
    /// No value.
    case null
    /// A boolean.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// Text (also sprite image names).
    case string(String)
    /// A colour.
    case color(StyleColor)

    /// The boolean (false for anything else).
    public var boolValue: Bool { if case .bool(let b) = self { b } else { false } }
    /// The number, if a number.
    public var numberValue: Double? { if case .number(let d) = self { d } else { nil } }
    /// The text, if text.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The colour, if a colour.
    public var colorValue: StyleColor? { if case .color(let c) = self { c } else { nil } }
}

/// One arm of a `choose`: when `condition` (a boolean expression) holds, `value`.
public struct StyleArm: Sendable, Hashable {
    /// A boolean expression.
    public var condition: StyleExpression
    /// The value.
    public var value: StyleExpression
}

/// The small expression language shared by the MapLibre style and the preview: every data-driven paint, layout
/// and filter value of a `PlannedLayer`. It becomes MapLibre expression JSON (`json`) and is evaluated on a tile
/// feature's properties by the preview (`evaluate`), with the same meaning (cascade tests keep the sheet's
/// semantics; see `ClientCondition`).
public indirect enum StyleExpression: Sendable, Hashable {
    /// A constant.
    case literal(StyleLiteral)
    /// The first arm whose condition holds, else the fallback (`case`).
    case choose([StyleArm], fallback: StyleExpression)
    /// A cascade condition (boolean).
    case test(ClientCondition)
    /// The feature's attribute as text (`["to-string", ["get", NAME]]`), "" when missing.
    case text(String)
    /// Texts joined (`concat`).
    case concat([StyleExpression])
    /// Boolean not.
    case not(StyleExpression)
    /// Boolean and.
    case all([StyleExpression])
    /// True when the feature's `class` is this name (nil: has no `class`).
    case hasClass(String?)
    /// Boolean or.
    case any([StyleExpression])
    /// The product of two numbers.
    case multiply(StyleExpression, StyleExpression)

    /// `.literal(.bool(b))`.
    public static func bool(_ b: Bool) -> StyleExpression { .literal(.bool(b)) }

    /// The constant when the expression does not depend on the feature.
    public var constant: StyleLiteral? { if case .literal(let l) = self { l } else { nil } }

    /// A `choose` with never-arms dropped, arms after an always-arm dropped, trailing arms equal to the fallback
    /// dropped, and a constant when nothing is left.
    public static func choosing(_ arms: [StyleArm], fallback: StyleExpression) -> StyleExpression {
        var kept: [StyleArm] = []
        var fallback = fallback
        for arm in arms {
            if arm.condition == .bool(false) { continue }
            if arm.condition == .bool(true) {
                fallback = arm.value
                break
            }
            kept.append(arm)
        }
        while let last = kept.last, last.value == fallback { kept.removeLast() }
        return kept.isEmpty ? fallback : .choose(kept, fallback: fallback)
    }

    /// The expression for a cascade condition, constant when it is `always` / `never`.
    public static func condition(_ c: ClientCondition) -> StyleExpression {
        switch c {
        case .always: .bool(true)
        case .never: .bool(false)
        default: .test(c)
        }
    }

    /// Boolean and, folded.
    public static func and(_ parts: [StyleExpression]) -> StyleExpression {
        var out: [StyleExpression] = []
        for p in parts {
            if p == .bool(false) { return .bool(false) }
            if p == .bool(true) { continue }
            if case .all(let inner) = p { out += inner } else { out.append(p) }
        }
        if out.isEmpty { return .bool(true) }
        return out.count == 1 ? out[0] : .all(out)
    }

    /// Boolean or, folded.
    public static func or(_ parts: [StyleExpression]) -> StyleExpression {
        var out: [StyleExpression] = []
        for p in parts {
            if p == .bool(true) { return .bool(true) }
            if p == .bool(false) { continue }
            out.append(p)
        }
        if out.isEmpty { return .bool(false) }
        return out.count == 1 ? out[0] : .any(out)
    }

    /// A product, folded when both are constant (or one is 1).
    public static func times(_ a: StyleExpression, _ b: StyleExpression) -> StyleExpression {
        if case .literal(.number(let x)) = a, case .literal(.number(let y)) = b { return .literal(.number(x * y)) }
        if a == .literal(.number(1)) { return b }
        if b == .literal(.number(1)) { return a }
        return .multiply(a, b)
    }

    /// Texts joined, folded into one literal when every part is constant.
    public static func join(_ parts: [StyleExpression]) -> StyleExpression {
        var out: [StyleExpression] = []
        for p in parts {
            if case .literal(.string(let s)) = p, case .literal(.string(let t))? = out.last {
                out[out.count - 1] = .literal(.string(t + s))
            } else if p != .literal(.string("")) {
                out.append(p)
            }
        }
        if out.isEmpty { return .literal(.string("")) }
        return out.count == 1 ? out[0] : .concat(out)
    }

    /// Every constant the expression can yield (arm values and fallbacks, recursively; for a `concat`, nothing).
    public var possibleLiterals: [StyleLiteral] {
        switch self {
        case .literal(let l): return [l]
        case .choose(let arms, let fallback):
            var out: [StyleLiteral] = []
            for v in arms.flatMap({ $0.value.possibleLiterals }) + fallback.possibleLiterals where !out.contains(v) {
                out.append(v)
            }
            return out
        default: return []
        }
    }

    /// The attribute names `text` parts read.
    public var textFields: [String] {
        switch self {
        case .text(let n): return [n]
        case .choose(let arms, let fallback): return arms.flatMap { $0.value.textFields } + fallback.textFields
        case .concat(let parts): return parts.flatMap(\.textFields)
        default: return []
        }
    }

    /// Boolean not, folded.
    public static func negate(_ e: StyleExpression) -> StyleExpression {
        if case .literal(.bool(let b)) = e { return .bool(!b) }
        if case .not(let inner) = e { return inner }
        return .not(e)
    }

    /// The value for a feature with these tile properties.
    public func evaluate(_ p: Properties) -> StyleLiteral {
        switch self {
        case .literal(let l): return l
        case .choose(let arms, let fallback):
            for arm in arms where arm.condition.evaluate(p).boolValue { return arm.value.evaluate(p) }
            return fallback.evaluate(p)
        case .test(let c): return .bool(c.matches(p))
        case .text(let name): return .string(StyleExpression.labelText(p[name]))
        case .concat(let parts):
            return .string(parts.map { $0.evaluate(p).stringValue ?? "" }.joined())
        case .not(let e): return .bool(!e.evaluate(p).boolValue)
        case .all(let parts): return .bool(parts.allSatisfy { $0.evaluate(p).boolValue })
        case .hasClass(let name):
            guard case .string(let c)? = p["class"] else { return .bool(name == nil) }
            return .bool(c == name)
        case .any(let parts): return .bool(parts.contains { $0.evaluate(p).boolValue })
        case .multiply(let a, let b):
            return .number((a.evaluate(p).numberValue ?? 0) * (b.evaluate(p).numberValue ?? 0))
        }
    }

    /// An attribute value as MapLibre's `to-string` writes it.
    static func labelText(_ v: PropertyValue?) -> String {
        switch v {
        case .string(let s)?: return s
        case .int(let i)?: return String(i)
        case .uint(let u)?: return String(u)
        case .double(let d)?:
            if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
            return String(d)
        case .bool(let b)?: return b ? "true" : "false"
        default: return ""
        }
    }

    /// MapLibre expression JSON.
    public var json: JSONValue {
        switch self {
        case .literal(let l): return StyleExpression.literalJSON(l)
        case .choose(let arms, let fallback):
            var out: [JSONValue] = [.string("case")]
            for arm in arms { out += [arm.condition.json, arm.value.json] }
            out.append(fallback.json)
            return .array(out)
        case .test(let c): return StyleExpression.conditionJSON(c)
        case .text(let name):
            return .array([.string("to-string"), .array([.string("get"), .string(name)])])
        case .concat(let parts): return .array([.string("concat")] + parts.map(\.json))
        case .not(let e): return .array([.string("!"), e.json])
        case .all(let parts): return .array([.string("all")] + parts.map(\.json))
        case .hasClass(let name?):
            return .array([.string("=="), .array([.string("get"), .string("class")]), .string(name)])
        case .hasClass(nil):
            return .array([.string("!"), .array([.string("has"), .string("class")])])
        case .any(let parts): return .array([.string("any")] + parts.map(\.json))
        case .multiply(let a, let b): return .array([.string("*"), a.json, b.json])
        }
    }

    static func literalJSON(_ l: StyleLiteral) -> JSONValue {
        switch l {
        case .null: .null
        case .bool(let b): .bool(b)
        case .number(let d): StyleJSON.number(MapLibreStyle.rounded(d, 4))
        case .string(let s): .string(s)
        case .color(let c): .string(MapLibreStyle.colorString(c))
        }
    }

    static func conditionJSON(_ c: ClientCondition) -> JSONValue {
        switch c {
        case .always: return .bool(true)
        case .never: return .bool(false)
        case .flag(let key):
            return .array([.string("=="), .array([.string("get"), .string(key)]), .bool(true)])
        case .filters(let list):
            let parts = list.map(filterJSON)
            return parts.count == 1 ? parts[0] : .array([.string("all")] + parts)
        }
    }

    /// One attribute test as a MapLibre expression that can never raise a runtime error (types are checked
    /// before ordering and text operators).
    static func filterJSON(_ f: ClientFilter) -> JSONValue {
        let get: JSONValue = .array([.string("get"), .string(f.attribute)])
        func typeIs(_ t: String) -> JSONValue {
            .array([.string("=="), .array([.string("typeof"), get]), .string(t)])
        }
        func guarded(_ t: String, _ e: JSONValue) -> JSONValue { .array([.string("all"), typeIs(t), e]) }
        func literal(_ v: FilterValue) -> JSONValue {
            switch v {
            case .number(let n): StyleJSON.number(n.value)
            case .text(let s): .string(s)
            case .bool(let b): .bool(b)
            }
        }
        switch f.test {
        case .present: return .array([.string("!="), get, .null])
        case .null: return .array([.string("=="), get, .null])
        case .compare(let op, let v):
            let e: JSONValue = .array([.string(op == .equal ? "==" : op.rawValue), get, literal(v)])
            guard op.isOrdering else { return e }
            switch v {
            case .number: return guarded("number", e)
            case .text: return guarded("string", e)
            case .bool: return .bool(false)
            }
        case .prefix(let s):
            return guarded(
                "string", .array([.string("=="), .array([.string("index-of"), .string(s), get]), .int(0)]))
        case .contains(let s):
            return guarded(
                "string", .array([.string(">="), .array([.string("index-of"), .string(s), get]), .int(0)]))
        case .suffix(let s):
            let n = s.unicodeScalars.count
            guard n > 0 else { return typeIs("string") }
            let tail: JSONValue = .array([.string("slice"), get, .int(Int64(-n))])
            return guarded("string", .array([.string("=="), tail, .string(s)]))
        case .regex:
            return .bool(false)  // never built: regex entries need match flags
        }
    }
}
