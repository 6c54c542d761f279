public import Styling

/// How a client draws one class of one package layer: the cascade of the rules that can produce the class.
///
/// A MapLibre style cannot re-run the sheet's selectors, only test the tile property `class` (and the zoom), so
/// every feature of a (layer, class) pair is drawn alike at a given zoom. That look is defined as follows, for
/// package layer `L`, class `C` and zoom `z`:
///
/// 1. **Class rules**: the rules with a `class` declaration whose value (the rule's last `class` declaration) is
///    `C` and with a selector whose subject applies to `L` (names `L`, any case, or is `*`) and whose zoom filters
///    hold at `z`. When no rule names `L` that way at all — the class reached `L` through a `layer:` declaration
///    that renamed the output — every rule that sets `class: C` counts instead. When no class rule holds at `z`,
///    the pipeline writes no feature of class `C` at `z` (`isProduced` is false).
/// 2. **Base rules**: rules with a selector that applies to every feature of `L` at `z`: a single compound `L` or
///    `*` without attribute filters whose zoom filters hold at `z` (`hansyn { stroke: #333 }`,
///    `avdelningar[zoom >= 13] { label: AVDNR }`), whatever class they set. They match every feature of class `C`.
/// 3. The declarations of those rules are applied in cascade order — ascending specificity (the highest of the
///    rule's selectors that qualify), then sheet order — so the most specific, then the latest, rule wins each
///    property, as in the pipeline; `none` clears a property.
///
/// Without a zoom, zoom filters are ignored (every rule qualifies as if its zoom filters held). Rules with
/// attribute filters but another or no class are not part of the look: they may hold for only some features of
/// the class, which the client cannot tell apart. Give such features a class of their own.
public struct ClassPresentation: Sendable, Hashable {
    /// The package layer.
    public var layer: String
    /// The class name.
    public var className: String
    /// The merged client properties (and `minZoom` / `maxZoom`); pipeline-only properties other than the zoom
    /// range are left unset.
    public var style: ComputedStyle
    /// The sheet position of the first rule that sets the class for the layer (at any zoom), which orders classes
    /// within a draw bucket; `Int.max` when no rule of the sheet sets the class.
    public var ruleOrder: Int
    /// False when class rules exist but none holds at the zoom asked for (no feature has the class there).
    public var isProduced: Bool

    /// Creates a presentation from parts.
    public init(layer: String, className: String, style: ComputedStyle, ruleOrder: Int, isProduced: Bool = true) {
        self.layer = layer
        self.className = className
        self.style = style
        self.ruleOrder = ruleOrder
        self.isProduced = isProduced
    }

    /// The presentation of class `className` in package layer `layer` under `sheet` at `zoom` (nil: ignoring
    /// zoom filters); see the type's documentation for the definition.
    public static func resolve(sheet: Stylesheet, layer: String, className: String, zoom: Int? = nil)
        -> ClassPresentation
    {
        func setsClass(_ rule: StyleRule) -> Bool {
            if case .text(let name)? = rule.value(of: .className) { return name == className }
            return false
        }
        func atZoom(_ s: StyleSelector) -> Bool {
            guard let zoom else { return true }
            return s.compounds.allSatisfy { c in c.zoomFilters.allSatisfy { $0.matches(zoom: zoom) } }
        }
        let allClassRules = sheet.rules.filter(setsClass)
        let forLayer = allClassRules.filter { r in r.selectors.contains { $0.subject.appliesTo(layer: layer) } }
        let anyLayer = forLayer.isEmpty
        let classRules = anyLayer ? allClassRules : forLayer
        var chosen: [(specificity: Specificity, index: Int, rule: StyleRule)] = []
        for rule in classRules {
            let selectors = rule.selectors.filter { (anyLayer || $0.subject.appliesTo(layer: layer)) && atZoom($0) }
            guard let spec = selectors.map(\.specificity).max() else { continue }
            chosen.append((spec, rule.index, rule))
        }
        let produced = classRules.isEmpty || !chosen.isEmpty
        for rule in sheet.rules where !chosen.contains(where: { $0.index == rule.index }) {
            let whole = rule.selectors.filter {
                $0.compounds.count == 1 && $0.subject.appliesTo(layer: layer) && $0.subject.filters.isEmpty
                    && atZoom($0)
            }
            guard let spec = whole.map(\.specificity).max() else { continue }
            chosen.append((spec, rule.index, rule))
        }
        chosen.sort { a, b in a.specificity != b.specificity ? a.specificity < b.specificity : a.index < b.index }
        var style = ComputedStyle()
        for entry in chosen {
            for d in entry.rule.declarations {
                guard let p = d.property else { continue }
                ClassPresentation.apply(p, d.value, to: &style)
            }
        }
        style.className = className
        let order = classRules.map(\.index).min() ?? Int.max
        return ClassPresentation(
            layer: layer, className: className, style: style, ruleOrder: order, isProduced: produced)
    }

    /// Sets one client property (or the zoom range) from a declaration value; `none` clears it.
    static func apply(_ property: StyleProperty, _ value: StyleValue, to s: inout ComputedStyle) {
        func color() -> StyleColor? { if case .color(let c) = value { c } else { nil } }
        func number() -> Double? {
            switch value {
            case .number(let d): d
            case .integer(let i): Double(i)
            default: nil
            }
        }
        func text() -> String? { if case .text(let t) = value { t } else { nil } }
        switch property {
        case .className, .layer, .keep, .exclude: break
        case .minZoom: if case .integer(let i) = value { s.minZoom = i } else { s.minZoom = nil }
        case .maxZoom: if case .integer(let i) = value { s.maxZoom = i } else { s.maxZoom = nil }
        case .fill: s.fill = color()
        case .fillOpacity: s.fillOpacity = number()
        case .fillPattern: if case .pattern(let p) = value { s.fillPattern = p } else { s.fillPattern = nil }
        case .stroke: s.stroke = color()
        case .strokeWidth: s.strokeWidth = number()
        case .strokeDasharray:
            if case .numbers(let n) = value { s.strokeDasharray = n } else { s.strokeDasharray = nil }
        case .opacity: s.opacity = number()
        case .label: s.label = text()
        case .textColor: s.textColor = color()
        case .textSize: s.textSize = number()
        case .icon: s.icon = text()
        }
    }
}
