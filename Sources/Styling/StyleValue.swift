/// The typed value of a declaration, checked against its property when the sheet is parsed.
public enum StyleValue: Sendable, Hashable, CustomStringConvertible {
    /// `none`: the property is explicitly unset at this rule's precedence (e.g. `class: none`, `fill: none`).
    case unset
    /// A name: `class`, `layer`, `label`, `icon`.
    case text(String)
    /// A whole number: `min-zoom`, `max-zoom`.
    case integer(Int)
    /// A number: opacities, widths, sizes.
    case number(Double)
    /// `true` / `false`: `exclude`.
    case bool(Bool)
    /// A colour: `fill`, `stroke`, `text-color`.
    case color(StyleColor)
    /// A fill pattern.
    case pattern(FillPattern)
    /// Attribute names: `keep` (`keep: none` is an empty list).
    case names([String])
    /// Numbers: `stroke-dasharray`.
    case numbers([Double])
    /// `url("path")`: a file named relative to the sheet (`icon`).
    case url(String)
    /// The value of an unknown property, as written.
    case raw(String)

    /// The value as it would be written in a sheet.
    public var description: String {
        switch self {
        case .unset: "none"
        case .text(let s): s
        case .integer(let i): String(i)
        case .number(let d): formatNumber(d)
        case .bool(let b): b ? "true" : "false"
        case .color(let c): c.hexString
        case .pattern(let p): p.rawValue
        case .names(let n): n.isEmpty ? "none" : n.joined(separator: ", ")
        case .numbers(let n): n.map(formatNumber).joined(separator: " ")
        case .url(let p): "url(\(quoteStyleString(p)))"
        case .raw(let s): s
        }
    }
}

/// A number without a trailing `.0` when it is whole.
func formatNumber(_ d: Double) -> String {
    if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
    return String(d)
}
