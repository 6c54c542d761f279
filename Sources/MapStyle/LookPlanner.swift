import Foundation
import KartpackCore
import Styling

/// Turns one `ClientLookRules` (a layer's class at one zoom) into planned layers with data-driven values (see
/// `StylePlan` for what is drawn).
struct LookPlanner {
    let look: ClientLookRules
    let layer: PackageLayerSummary
    let labelLayer: PackageLayerSummary?
    let selection: ClassSelection
    let options: StylePlanOptions
    let displayZoom: Int
    let tileMax: Int
    let iconFolder: String
    var images: [GeneratedSpriteImage] = []
    var warnings: [String] = []
    /// The most sprite images one look may ask for.
    static let maxImages = 256

    init(
        look: ClientLookRules, layer: PackageLayerSummary, labelLayer: PackageLayerSummary?, selection: ClassSelection,
        options: StylePlanOptions, displayZoom: Int, tileMax: Int, iconFolder: String
    ) {
        self.look = look
        self.layer = layer
        self.labelLayer = labelLayer
        self.selection = selection
        self.options = options
        self.displayZoom = displayZoom
        self.tileMax = tileMax
        self.iconFolder = iconFolder
    }

    // MARK: Decision lists as expressions

    /// The property's decision list with values mapped by `map` (nil or `none`: `fallback`).
    func resolve(
        _ p: StyleProperty, fallback: StyleExpression, _ map: (StyleValue) -> StyleExpression?
    ) -> StyleExpression {
        let arms = (look.branches[p] ?? []).map { b in
            StyleArm(
                condition: .condition(b.condition),
                value: { if case .unset = b.value { return fallback } else { return map(b.value) ?? fallback } }())
        }
        return .choosing(arms, fallback: fallback)
    }

    func isSet(_ p: StyleProperty) -> StyleExpression { resolve(p, fallback: .bool(false)) { _ in .bool(true) } }

    func color(_ p: StyleProperty, fallback: StyleExpression) -> StyleExpression {
        resolve(p, fallback: fallback) { $0.colorValue.map { .literal(.color($0)) } }
    }

    func number(_ p: StyleProperty, _ fallback: Double, clamp: ClosedRange<Double> = -1e9...1e9) -> StyleExpression {
        resolve(p, fallback: .literal(.number(fallback))) { v in
            v.numberValue.map { .literal(.number(min(max($0, clamp.lowerBound), clamp.upperBound))) }
        }
    }

    var defaultColor: StyleExpression { .literal(.color(options.defaultColor)) }
    var opacity: StyleExpression { number(.opacity, 1, clamp: 0...1) }

    /// The possible values of a property (`.unset` when it can be unset).
    func values(_ p: StyleProperty) -> [StyleValue] { look.possibleValues(of: p) }

    /// The condition for the feature to be shown at the display zoom (`min-zoom`, `max-zoom`; the tiles hold
    /// only visible features up to their max zoom, but the client overzooms beyond it).
    var zoomVisible: StyleExpression {
        let z = displayZoom
        return .and([
            resolve(.maxZoom, fallback: .bool(true)) { v in v.integerValue.map { .bool($0 >= z) } },
            resolve(.minZoom, fallback: .bool(true)) { v in v.integerValue.map { .bool($0 <= z) } },
        ])
    }

    // MARK: Layers

    func make(_ kind: DrawKind, _ family: GeometryFamily, filtersGeometry: Bool, suffix: String = "") -> PlannedLayer {
        let geo = filtersGeometry ? "-\(family.rawValue)" : ""
        return PlannedLayer(
            id: "\(layer.id)-\(selection)-\(kind.rawValue)\(suffix)\(geo)", kind: kind, sourceLayer: layer.id,
            packageLayer: layer.id, classSelection: selection, geometry: family, filtersGeometry: filtersGeometry,
            minZoom: nil, maxZoom: nil, condition: zoomVisible, paint: [:], layout: [:], dashes: nil)
    }

    /// Layers split by dash array: one per possible `stroke-dasharray` value.
    func dashed(_ base: PlannedLayer) -> [PlannedLayer] {
        let options = values(.strokeDasharray)
        return options.enumerated().compactMap { i, v -> PlannedLayer? in
            var l = base
            if options.count > 1 {
                l.id = base.id.replacingOccurrences(
                    of: "-\(base.kind.rawValue)", with: "-\(base.kind.rawValue)-dash\(i)")
            }
            let dashes: [Double]?
            if case .numbers(let n) = v, n.contains(where: { $0 > 0 }) { dashes = n } else { dashes = nil }
            l.dashes = dashes
            let chosen = resolve(.strokeDasharray, fallback: .bool(v == .unset)) { .bool($0 == v) }
            l.condition = .and([l.condition, chosen])
            return l.condition == .bool(false) ? nil : l
        }
    }

    mutating func layers(family: GeometryFamily, filtersGeometry: Bool) -> [PlannedLayer] {
        var out: [PlannedLayer] = []
        let width = number(.strokeWidth, 1, clamp: 0...1000)
        let drawsStroke = resolve(.strokeWidth, fallback: .bool(true)) { v in v.numberValue.map { .bool($0 > 0) } }
        switch family {
        case .polygon:
            var fill = make(.fill, family, filtersGeometry: filtersGeometry)
            fill.condition = .and([fill.condition, isSet(.fill)])
            fill.paint["fill-color"] = color(.fill, fallback: defaultColor)
            fill.paint["fill-opacity"] = .times(number(.fillOpacity, 1, clamp: 0...1), opacity)
            if fill.condition != .bool(false) { out.append(fill) }

            var pattern = make(.pattern, family, filtersGeometry: filtersGeometry)
            pattern.condition = .and([pattern.condition, isSet(.fillPattern)])
            if pattern.condition != .bool(false) {
                pattern.paint["fill-pattern"] = patternName()
                pattern.paint["fill-opacity"] = opacity
                out.append(pattern)
            }

            var outline = make(.outline, family, filtersGeometry: filtersGeometry)
            let bare = StyleExpression.and([.negate(isSet(.fill)), .negate(isSet(.fillPattern))])
            outline.condition = .and([outline.condition, drawsStroke, .or([isSet(.stroke), bare])])
            outline.paint["line-color"] = color(.stroke, fallback: defaultColor)
            outline.paint["line-width"] = width
            outline.paint["line-opacity"] = opacity
            if outline.condition != .bool(false) { out += dashed(outline) }
        case .line:
            var line = make(.line, family, filtersGeometry: filtersGeometry)
            line.condition = .and([line.condition, drawsStroke])
            line.paint["line-color"] = color(.stroke, fallback: color(.fill, fallback: defaultColor))
            line.paint["line-width"] = width
            line.paint["line-opacity"] = opacity
            if line.condition != .bool(false) { out += dashed(line) }
        case .point:
            var icon = make(.icon, family, filtersGeometry: filtersGeometry)
            icon.condition = .and([icon.condition, isSet(.icon)])
            if icon.condition != .bool(false) {
                icon.layout["icon-image"] = iconName()
                icon.paint["icon-opacity"] = opacity
                out.append(icon)
            }
            var circle = make(.circle, family, filtersGeometry: filtersGeometry)
            circle.condition = .and([circle.condition, .negate(isSet(.icon))])
            if circle.condition != .bool(false) {
                circle.paint["circle-color"] = color(.fill, fallback: color(.stroke, fallback: defaultColor))
                circle.paint["circle-radius"] = .literal(.number(options.circleRadius))
                circle.paint["circle-opacity"] = .times(number(.fillOpacity, 1, clamp: 0...1), opacity)
                let ring = StyleExpression.and([isSet(.fill), isSet(.stroke)])
                circle.paint["circle-stroke-width"] = .choosing(
                    [StyleArm(condition: ring, value: width)], fallback: .literal(.number(0)))
                circle.paint["circle-stroke-color"] = color(.stroke, fallback: defaultColor)
                circle.paint["circle-stroke-opacity"] = opacity
                out.append(circle)
            }
        }
        if let label = labelPlan(family: family, filtersGeometry: filtersGeometry) { out.append(label) }
        return out
    }

    mutating func labelPlan(family: GeometryFamily, filtersGeometry: Bool) -> PlannedLayer? {
        var l = make(.label, family, filtersGeometry: filtersGeometry)
        l.condition = .and([l.condition, isSet(.label)])
        guard l.condition != .bool(false) else { return nil }
        var fieldsLayer = layer
        if family == .polygon {
            if let labels = labelLayer {
                l.sourceLayer = labels.id
                l.geometry = .point
                l.filtersGeometry = false
                fieldsLayer = labels
            } else {
                warnings.append(
                    "layer \(layer.id): the package has no \(layer.id)_labels layer, so polygon labels are placed per "
                        + "tile piece and can repeat at tile edges")
            }
        }
        l.layout["text-field"] = resolve(.label, fallback: .literal(.string(""))) { v in
            v.textValue.map { name in .text(fieldsLayer.field(matching: name) ?? layer.field(matching: name) ?? name) }
        }
        for v in values(.label) {
            if case .text(let name) = v, fieldsLayer.field(matching: name) == nil, !fieldsLayer.fields.isEmpty {
                warnings.append("layer \(fieldsLayer.id): label field \(name) is not in the layer")
            }
        }
        l.layout["text-size"] = number(.textSize, options.defaultTextSize, clamp: 1...200)
        l.paint["text-color"] = color(.textColor, fallback: defaultColor)
        l.paint["text-opacity"] = opacity
        return l
    }

    // MARK: Sprite names

    func hexPart(_ c: StyleColor) -> StyleExpression { .literal(.string(GeneratedSpriteImage.colorPart(c))) }

    /// `fill-pattern`: the sprite name of the feature's pattern spec; registers every combination as an image.
    mutating func patternName() -> StyleExpression {
        let name = resolve(.fillPattern, fallback: .literal(.string("none"))) { v in
            if case .pattern(let p) = v { return .literal(.string(p.rawValue)) }
            return nil
        }
        let strokeColor = resolve(.stroke, fallback: hexPart(options.defaultColor)) { $0.colorValue.map(hexPart) }
        let colorPart = resolve(.patternColor, fallback: strokeColor) { $0.colorValue.map(hexPart) }
        let bg = resolve(.patternBackground, fallback: .literal(.string(""))) { v in
            v.colorValue.map { .literal(.string("-bg" + $0.hexString.dropFirst())) }
        }
        let spacing = resolve(.patternSpacing, fallback: .literal(.string(""))) { v in
            v.numberValue.map { $0 == PatternSpec.defaultSpacing ? "" : "-s" + MapLibreStyle.formatNumber($0) }
                .map { .literal(.string($0)) }
        }
        let width = resolve(.patternWidth, fallback: .literal(.string(""))) { v in
            v.numberValue.map { $0 == PatternSpec.defaultWidth ? "" : "-w" + MapLibreStyle.formatNumber($0) }
                .map { .literal(.string($0)) }
        }
        // Every combination the decision lists allow.
        var specs: [PatternSpec] = []
        for p in values(.fillPattern) {
            guard case .pattern(let pattern) = p else { continue }
            var colors: [StyleColor] = []
            for c in values(.patternColor) {
                if let color = c.colorValue {
                    colors.append(color)
                } else {
                    for s in values(.stroke) { colors.append(s.colorValue ?? options.defaultColor) }
                }
            }
            for color in colors {
                for b in values(.patternBackground) {
                    for s in values(.patternSpacing) {
                        for w in values(.patternWidth) {
                            specs.append(
                                PatternSpec(
                                    pattern: pattern, color: color, background: b.colorValue,
                                    spacing: s.numberValue ?? PatternSpec.defaultSpacing,
                                    width: w.numberValue ?? PatternSpec.defaultWidth))
                        }
                    }
                }
            }
        }
        if specs.count > Self.maxImages {
            warnings.append("layer \(layer.id): \(specs.count) pattern combinations; only \(Self.maxImages) are drawn")
        }
        for spec in specs.prefix(Self.maxImages) {
            images.append(GeneratedSpriteImage(name: GeneratedSpriteImage.patternName(spec), shape: .pattern(spec)))
        }
        return .join([.literal(.string("pattern-")), name, colorPart, bg, spacing, width])
    }

    /// `icon-image`: `symbol-NAME[-COLOR]` for built-in symbols (coloured by `fill`), `icon-PATH` for files.
    mutating func iconName() -> StyleExpression {
        let fillPart = resolve(.fill, fallback: .literal(.string(""))) { $0.colorValue.map(hexPart) }
        var unknown: [String] = []
        let expr = resolve(.icon, fallback: .literal(.string(""))) { v in
            switch v.iconValue {
            case .symbol(let name)?:
                let symbol = MapSymbol(rawValue: name) ?? .dot
                if MapSymbol(rawValue: name) == nil { unknown.append(name) }
                return .join([.literal(.string("symbol-\(symbol.rawValue)")), fillPart])
            case .file(let path)?:
                return .literal(.string(GeneratedSpriteImage.fileIconName(path)))
            case nil:
                return nil
            }
        }
        for name in unknown {
            warnings.append(
                "unknown icon symbol '\(name)', drawn as 'dot'; built-in symbols: "
                    + MapSymbol.allCases.map(\.rawValue).joined(separator: ", ") + ", or use url(\"file.svg\")")
        }
        for v in values(.icon) {
            switch v.iconValue {
            case .symbol(let name)?:
                let symbol = MapSymbol(rawValue: name) ?? .dot
                for f in values(.fill) {
                    let c = f.colorValue
                    images.append(
                        GeneratedSpriteImage(
                            name: GeneratedSpriteImage.symbolName(symbol, c), shape: .symbol(symbol, c)))
                }
            case .file(let path)?:
                let resolved = path.hasPrefix("/") ? path : (iconFolder as NSString).appendingPathComponent(path)
                images.append(
                    GeneratedSpriteImage(name: GeneratedSpriteImage.fileIconName(path), shape: .svg(path: resolved)))
            case nil:
                break
            }
        }
        return expr
    }
}
