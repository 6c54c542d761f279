import KartpackCore
public import Styling

/// Options shared by the style and the preview.
public struct StylePlanOptions: Sendable, Hashable {
    /// The circle radius for point classes, in pixels (the sheet has no radius property).
    public var circleRadius: Double = 4
    /// The label size when the class sets no `text-size`.
    public var defaultTextSize: Double = 12
    /// The colour used when a class sets no colour for what it draws.
    public var defaultColor = StyleColor(red: 0, green: 0, blue: 0)

    /// The defaults.
    public init() {}
}

/// The ordered list of client style layers for a sheet and a package: per layer and class, the fills, patterns,
/// outlines, lines, circles or icons and labels its presentation (`ClassPresentation`) asks for.
///
/// - Classes per layer: the package's `classes` for the layer when the metadata lists them, else every class a
///   rule for the layer (or `*`) can set (`Stylesheet.possibleClassNames(layer:)`).
/// - Polygons: a solid fill when `fill` is set (unless a pattern is drawn in the fill colour because no `stroke`
///   is set), a pattern fill for `fill-pattern` (drawn in `stroke`, else `fill`, else the default colour), an
///   outline for `stroke` (width `stroke-width`, default 1). A class that sets none of these gets a 1-px outline
///   in the default colour so that it stays visible.
/// - Lines: colour `stroke`, else `fill`, else the default; width `stroke-width` (default 1; 0 draws nothing).
/// - Points: an icon when `icon` is set (the sprite holds a placeholder marker of that name), else a circle in
///   `fill` (else `stroke`, else the default) with a `stroke` outline when both are set.
/// - Labels for any geometry when `label` is set (`text-color`, default the default colour; `text-size`).
/// - `opacity` multiplies every opacity; `fill-opacity` applies to solid fills and, without a solid fill, to the
///   pattern.
/// - Zoom: each class is planned per zoom (see `init(sheet:pairs:…)`), so `min-zoom`, `max-zoom` and zoom
///   filters become `minzoom` / `maxzoom` ranges.
/// - Order: draw bucket (`DrawKind`), then the class's first rule in the sheet, then the layer's position in the
///   package, then the zoom range.
public struct StylePlan: Sendable {
    /// The layers, bottom to top.
    public var layers: [PlannedLayer]
    /// The sprite images the layers reference, in first-use order.
    public var images: [SpriteImage]
    /// Things the client style cannot express or that look wrong (unknown classes, empty zoom ranges).
    public var warnings: [String]

    /// Plans the style of `package` drawn with `sheet`.
    public init(sheet: Stylesheet, package: PackageInfo, options: StylePlanOptions = StylePlanOptions()) {
        var pairs: [(layer: PackageLayer, className: String)] = []
        var warnings: [String] = []
        for layer in package.layers {
            let names = layer.classes?.map(\.name) ?? sheet.possibleClassNames(layer: layer.id)
            for name in names { pairs.append((layer, name)) }
        }
        self.init(sheet: sheet, pairs: pairs, packageMaxZoom: package.maxZoom, options: options, warnings: &warnings)
        self.warnings = package.warnings + warnings
    }

    /// Plans layers for explicit (layer, class) pairs, in that order before sorting.
    ///
    /// Each pair is planned at every display zoom 0…24 (the sheet evaluated at that zoom, or at the layer's
    /// highest tile zoom beyond it, since the client overzooms those tiles); consecutive zooms that draw alike
    /// become one style layer with `minzoom`/`maxzoom`. A kind drawn in several separate ranges gets one layer per
    /// range, with `-z<first zoom>` added to its id.
    init(
        sheet: Stylesheet, pairs: [(layer: PackageLayer, className: String)], packageMaxZoom: Int?,
        options: StylePlanOptions, warnings: inout [String]
    ) {
        var planned: [(sortKey: [Int], layer: PlannedLayer)] = []
        var images: [SpriteImage] = []
        var seenPairs = Set<String>()
        for (pairIndex, pair) in pairs.enumerated() {
            guard seenPairs.insert(pair.layer.id + "\u{0}" + pair.className).inserted else { continue }
            let overall = ClassPresentation.resolve(sheet: sheet, layer: pair.layer.id, className: pair.className)
            if overall.ruleOrder == Int.max {
                warnings.append(
                    "class \(pair.className) of layer \(pair.layer.id) is set by no rule of the sheet; drawn with defaults"
                )
            }
            let tileMax = min(max(pair.layer.maxZoom ?? packageMaxZoom ?? 24, 0), 24)
            // Runs of zooms per layer id (kind and geometry), in first-appearance order.
            var order: [String] = []
            var runs: [String: [(lo: Int, hi: Int, layer: PlannedLayer)]] = [:]
            var labelWarnings = Set<String>()
            for z in 0...24 {
                let p = ClassPresentation.resolve(
                    sheet: sheet, layer: pair.layer.id, className: pair.className, zoom: min(z, tileMax))
                guard p.isProduced, z >= (p.style.minZoom ?? 0), z <= (p.style.maxZoom ?? 24) else { continue }
                var notes: [String] = []
                for l in StylePlan.layers(for: p, packageLayer: pair.layer, options: options, warnings: &notes) {
                    if var list = runs[l.id] {
                        if let last = list.last, last.hi == z - 1, last.layer.drawsLike(l) {
                            list[list.count - 1].hi = z
                        } else {
                            list.append((z, z, l))
                        }
                        runs[l.id] = list
                    } else {
                        order.append(l.id)
                        runs[l.id] = [(z, z, l)]
                    }
                }
                for n in notes where labelWarnings.insert(n).inserted { warnings.append(n) }
            }
            if order.isEmpty {
                warnings.append(
                    "class \(pair.className) of layer \(pair.layer.id) is drawn at no zoom (its min-zoom, max-zoom or "
                        + "zoom filters leave no zoom)")
            }
            for (k, id) in order.enumerated() {
                let list = runs[id] ?? []
                for (r, run) in list.enumerated() {
                    var l = run.layer
                    l.minZoom = run.lo == 0 ? nil : run.lo
                    l.maxZoom = run.hi >= 24 ? nil : run.hi + 1
                    if list.count > 1 { l.id += "-z\(run.lo)" }
                    if let name = l.imageName, !images.contains(where: { $0.name == name }) {
                        let shape: SpriteImage.Shape = l.pattern.map { .pattern($0) } ?? .marker
                        images.append(SpriteImage(name: name, shape: shape, color: l.color))
                    }
                    planned.append(([l.kind.drawRank, overall.ruleOrder, pairIndex, k, r], l))
                }
            }
        }
        planned.sort { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }
        // Unique ids, stable: the first keeps its name, later ones get -2, -3, …
        var used = Set<String>()
        var out: [PlannedLayer] = []
        for var entry in planned.map(\.layer) {
            var id = entry.id
            var n = 2
            while used.contains(id) {
                id = "\(entry.id)-\(n)"
                n += 1
            }
            used.insert(id)
            entry.id = id
            out.append(entry)
        }
        layers = out
        self.images = images
        self.warnings = warnings
    }

    private static func clamp01(_ v: Double?) -> Double { min(max(v ?? 1, 0), 1) }

    /// The layers one presentation asks for, in kind order.
    static func layers(
        for p: ClassPresentation, packageLayer: PackageLayer, options: StylePlanOptions, warnings: inout [String]
    ) -> [PlannedLayer] {
        let s = p.style
        let opacity = clamp01(s.opacity)
        let families: [GeometryFamily] = packageLayer.geometry.map { [$0] } ?? [.polygon, .line, .point]
        let unknown = packageLayer.geometry == nil
        let base = "\(p.layer)-\(p.className)"
        func make(_ kind: DrawKind, _ family: GeometryFamily?, _ color: StyleColor) -> PlannedLayer {
            let suffix = unknown ? family.map { "-\($0.rawValue)" } ?? "" : ""
            return PlannedLayer(
                id: "\(base)-\(kind.rawValue)\(suffix)", kind: kind, sourceLayer: p.layer, className: p.className,
                geometry: family, filtersGeometry: unknown && family != nil, minZoom: nil, maxZoom: nil,
                color: color, opacity: opacity, width: 1, dashes: nil, outlineColor: nil, outlineOpacity: opacity,
                imageName: nil, pattern: nil,
                radius: options.circleRadius, labelField: nil, textSize: s.textSize ?? options.defaultTextSize,
                presentation: p)
        }
        let dashes = s.strokeDasharray.flatMap { d -> [Double]? in
            d.isEmpty || d.allSatisfy({ $0 == 0 }) || d.contains(where: { $0 < 0 || !$0.isFinite }) ? nil : d
        }
        let width = max(s.strokeWidth ?? 1, 0)
        var out: [PlannedLayer] = []
        for family in families {
            switch family {
            case .polygon:
                let drawsSolid = s.fill != nil && !(s.fillPattern != nil && s.stroke == nil)
                if let fill = s.fill, drawsSolid {
                    var l = make(.fill, family, fill)
                    l.opacity = clamp01(s.fillOpacity) * opacity
                    l.outlineColor = s.stroke
                    out.append(l)
                }
                if let pattern = s.fillPattern {
                    let color = s.stroke ?? s.fill ?? options.defaultColor
                    var l = make(.pattern, family, color)
                    l.pattern = pattern
                    l.imageName = SpriteImage.patternName(pattern, color)
                    l.opacity = (drawsSolid ? 1 : clamp01(s.fillOpacity)) * opacity
                    out.append(l)
                }
                if let stroke = s.stroke, width > 0 {
                    var l = make(.outline, family, stroke)
                    l.width = width
                    l.dashes = dashes
                    out.append(l)
                } else if s.fill == nil && s.fillPattern == nil && s.stroke == nil {
                    out.append(make(.outline, family, options.defaultColor))
                }
            case .line:
                if width > 0 {
                    var l = make(.line, family, s.stroke ?? s.fill ?? options.defaultColor)
                    l.width = width
                    l.dashes = dashes
                    out.append(l)
                }
            case .point:
                if let icon = s.icon, !icon.isEmpty {
                    var l = make(.icon, family, s.fill ?? s.stroke ?? options.defaultColor)
                    l.imageName = icon
                    out.append(l)
                } else {
                    var l = make(.circle, family, s.fill ?? s.stroke ?? options.defaultColor)
                    l.opacity = clamp01(s.fillOpacity) * opacity
                    if s.fill != nil, let stroke = s.stroke, width > 0 {
                        l.outlineColor = stroke
                        l.width = width
                    } else {
                        l.width = 0
                    }
                    out.append(l)
                }
            }
        }
        if let label = s.label, !label.isEmpty {
            let field = packageLayer.field(matching: label)
            if field == nil && !packageLayer.fields.isEmpty {
                warnings.append("class \(p.className) of layer \(p.layer): label field \(label) is not in the layer")
            }
            var l = make(.label, packageLayer.geometry, s.textColor ?? options.defaultColor)
            l.id = "\(base)-label"
            l.filtersGeometry = false
            l.labelField = field ?? label
            out.append(l)
        }
        return out
    }
}
