import Foundation

/// A value a MapLibre expression yields while `ClientStyle` evaluates it.
enum ExpressionValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case color(LookColor)
    case array([ExpressionValue])

    /// MapLibre's `typeof` name.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .color: "color"
        case .array: "array"
        }
    }

    /// A tile attribute as MapLibre sees it: every number is a double.
    init(_ v: FeatureValue?) {
        switch v {
        case .string(let s)?: self = .string(s)
        case .int(let i)?: self = .number(Double(i))
        case .uint(let u)?: self = .number(Double(u))
        case .double(let d)?: self = .number(d)
        case .bool(let b)?: self = .bool(b)
        case nil: self = .null
        }
    }

    /// `to-string`: "" for null, `true`/`false`, numbers as JavaScript writes them, colours as `rgba(…)`.
    var text: String {
        switch self {
        case .null: return ""
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return ExpressionValue.javaScriptNumber(d)
        case .string(let s): return s
        case .color(let c):
            return "rgba(\(c.red),\(c.green),\(c.blue),\(ExpressionValue.javaScriptNumber(c.alpha)))"
        case .array(let a): return a.map(\.text).joined(separator: ",")
        }
    }

    /// A number as JavaScript's `String(n)` writes it (integers without a fraction, `1e-7`, `NaN`).
    static func javaScriptNumber(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d > 0 ? "Infinity" : "-Infinity" }
        if d == d.rounded(), abs(d) < 1e21 { return String(format: "%.0f", d) }
        var s = String(d)
        if let e = s.firstIndex(of: "e") {
            var mantissa = String(s[..<e])
            var exponent = String(s[s.index(after: e)...])
            if mantissa.hasSuffix(".0") { mantissa.removeLast(2) }
            if !exponent.hasPrefix("-") && !exponent.hasPrefix("+") { exponent = "+" + exponent }
            exponent = String(exponent.prefix(1)) + String(Int(exponent.dropFirst()) ?? 0)
            s = mantissa + "e" + exponent
        }
        return s
    }
}

/// Why an expression could not be evaluated for one feature (MapLibre's run-time error): a filter is then false
/// and a paint or layout value falls back to the property's default, as in MapLibre.
struct StyleEvaluationError: Error {
    var reason: String
}
