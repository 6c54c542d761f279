import Foundation
import KartpackCore
public import Styling

/// Options shared by the style and the preview.
public struct StylePlanOptions: Sendable, Hashable {
    /// The circle radius for point classes, in pixels (the sheet has no radius property).
    public var circleRadius: Double = 4
    /// The label size when the sheet sets no `text-size`.
    public var defaultTextSize: Double = 12
    /// The colour used when the sheet sets no colour for what is drawn.
    public var defaultColor = StyleColor(red: 0, green: 0, blue: 0)
    /// The background when the sheet's `@map` sets none.
    public var defaultBackground = StyleColor(red: 0xf4, green: 0xf3, blue: 0xef)
    /// The folder `icon: url(…)` paths are relative to (the sheet's folder); nil: the sheet's `file` folder.
    public var iconFolder: String?

    /// The defaults.
    public init() {}
}

/// The ordered list of client style layers for a sheet and a package.
///
/// Per package layer and class (the classes the metadata lists per zoom, `classes_by_zoom`, or at all when
/// only `classes` is there, plus the classes the sheet can give the layer, plus features without a class; one
/// selection of all features when the package has no classes) and per display zoom 0…24, the look is the
/// layer's `ClientCascade` at that zoom (at the layer's highest tile zoom beyond it, since the client overzooms
/// those tiles): every client property a decision list over attribute tests and match flags. The layers drawn:
/// - Polygons: a solid fill where `fill` is set (`fill-opacity` × `opacity`); a pattern fill where
///   `fill-pattern` is set (`pattern-color`, else `stroke`, else the default colour; `pattern-background`,
///   `pattern-spacing`, `pattern-width`; `opacity`); an outline where `stroke` is set (width `stroke-width`,
///   default 1; 0 draws none), or a 1-px outline in the default colour where none of the three is set.
/// - Lines: colour `stroke`, else `fill`, else the default; width `stroke-width` (default 1; 0 draws nothing).
/// - Points: an icon where `icon` is set (a built-in `MapSymbol` in `fill` or its own colour, or an SVG file),
///   else a circle in `fill` (else `stroke`, else the default) with a `stroke` ring when both are set.
/// - Labels where `label` is set (`text-color`, `text-size`): along lines, below points, and for polygons at the
///   one label point per feature of the package's `LAYER_labels` layer when it has one (else per tile piece).
/// - `line-dasharray` cannot vary per feature in every client, so layers are split by dash array.
/// Consecutive zooms that draw alike become one layer with `minzoom`/`maxzoom`. Order: draw bucket (`DrawKind`),
/// then the class's first rule in the sheet, then the layer's position in the package, then the zoom range.
public struct StylePlan: Sendable {
    /// The layers, bottom to top.
    public var layers: [PlannedLayer]
    /// The sprite images the layers reference, in first-use order.
    public var images: [GeneratedSpriteImage]
    /// Things the client style cannot express or that look wrong.
    public var warnings: [String]
    /// The map background.
    public var background: StyleColor
    /// The (source layer, attribute) pairs labels read, for glyph ranges.
    public var labelFields: [(layer: String, field: String)]

    /// Plans the style of `package` drawn with `sheet`. `extraClasses` adds classes per layer that were found in
    /// tiles (the preview).
    public init(
        sheet: Stylesheet, package: PackageInfo, options: StylePlanOptions = StylePlanOptions(),
        extraClasses: [String: [String]] = [:]
    ) {
        var b = Builder(sheet: sheet, package: package, options: options)
        for (i, layer) in package.layers.enumerated() where !b.isLabelLayer(layer) {
            b.plan(layer: layer, index: i, extraClasses: extraClasses[layer.id] ?? [])
        }
        layers = b.finish()
        images = b.images
        warnings = package.warnings + b.warnings
        background = sheet.map.background ?? options.defaultBackground
        var fields: [(layer: String, field: String)] = []
        for l in layers where l.kind == .label {
            for f in l.layout["text-field"]?.textFields ?? []
            where !fields.contains(where: { $0.layer == l.sourceLayer && $0.field == f }) {
                fields.append((l.sourceLayer, f))
            }
        }
        labelFields = fields
    }
}

/// The planning work of `StylePlan`.
struct Builder {
    let sheet: Stylesheet
    let package: PackageInfo
    let options: StylePlanOptions
    var planned: [(sortKey: [Int], layer: PlannedLayer)] = []
    var images: [GeneratedSpriteImage] = []
    var warnings: [String] = []
    var warned = Set<String>()

    init(sheet: Stylesheet, package: PackageInfo, options: StylePlanOptions) {
        self.sheet = sheet
        self.package = package
        self.options = options
    }

    mutating func warn(_ s: String) { if warned.insert(s).inserted { warnings.append(s) } }

    /// True for `L_labels` when the package also has `L` (the engine's label points).
    func isLabelLayer(_ layer: PackageLayerSummary) -> Bool {
        layer.id.hasSuffix("_labels") && package.layer(String(layer.id.dropLast("_labels".count))) != nil
    }

    /// The input layer whose rules style package layer `id`: itself when a rule names it, else the one input
    /// layer whose rules send features to it with `layer: id`.
    func ruleLayer(for id: String) -> String {
        let named = sheet.rules.contains { $0.selectors.contains { $0.subject.layer?.lowercased() == id.lowercased() } }
        if named { return id }
        var sources: [String] = []
        for rule in sheet.rules where rule.value(of: .layer) == .text(id) {
            for s in rule.selectors { if let l = s.subject.layer, !sources.contains(l) { sources.append(l) } }
        }
        return sources.count == 1 ? sources[0] : id
    }

    mutating func plan(layer: PackageLayerSummary, index: Int, extraClasses: [String]) {
        let source = ruleLayer(for: layer.id)
        let cascade = ClientCascade(sheet: sheet, layer: source, fieldKinds: layer.fieldKinds)
        let labelLayer = package.layer(layer.id + "_labels")
        var selections: [ClassSelection] = []
        if layer.hasClasses || !extraClasses.isEmpty {
            var names = layer.allClassNames
            for n in sheet.possibleClassNames(layer: source) + extraClasses where !names.contains(n) { names.append(n) }
            selections = names.map { .named($0) } + [.unclassified]
        } else {
            selections = [.any]
            if !sheet.possibleClassNames(layer: source).isEmpty {
                warn(
                    "layer \(layer.id): the package has no classes (built without --style?); drawn from the sheet's "
                        + "attribute rules only")
            }
        }
        let tileMax = min(max(layer.maxZoom ?? package.maxZoom ?? 24, 0), 24)
        let families: [GeometryFamily] = layer.geometry.map { [$0] } ?? [.polygon, .line, .point]
        for (selIndex, selection) in selections.enumerated() {
            var order: [String] = []
            var runs: [String: [(lo: Int, hi: Int, layer: PlannedLayer)]] = [:]
            for z in 0...24 {
                let zEval = min(z, tileMax)
                if case .named(let c) = selection, let names = layer.classNames(atZoom: zEval), !names.contains(c),
                    !extraClasses.contains(c)
                {
                    continue
                }
                guard
                    let look = cascade.look(zoom: zEval, knowledge: selection.knowledge, hasFlag: layer.fields.contains)
                else { continue }
                for need in cascade.neededFlags(zoom: zEval, knowledge: selection.knowledge)
                where !layer.fields.contains(need.key) {
                    let shown = cascade.selector(forFlag: need.key).map {
                        "'\($0.selector)' (line \($0.rule.location.line))"
                    }
                    warn(
                        "layer \(layer.id): the client cannot test \(shown ?? need.key) (\(need.limitation.rawValue)) "
                            + "and the package lacks its match flag \(need.key); those features are drawn without "
                            + "that rule"
                    )
                }
                let declares = look.branches.keys.contains { !$0.isPipelineProperty }
                if !declares {
                    if case .unclassified = selection { continue }
                    if case .any = selection {
                        warn("layer \(layer.id): the sheet gives its features no look; drawn with defaults")
                    }
                }
                var planner = LookPlanner(
                    look: look, layer: layer, labelLayer: labelLayer, selection: selection, options: options,
                    displayZoom: z, tileMax: tileMax, iconFolder: iconFolder)
                if planner.zoomVisible == .bool(false) { continue }
                var list: [PlannedLayer] = []
                for family in families {
                    list += planner.layers(family: family, filtersGeometry: layer.geometry == nil)
                }
                for w in planner.warnings { warn(w) }
                for image in planner.images where !images.contains(where: { $0.name == image.name }) {
                    images.append(image)
                }
                for l in list {
                    if var existing = runs[l.id] {
                        if let last = existing.last, last.hi == z - 1, last.layer.drawsLike(l) {
                            existing[existing.count - 1].hi = z
                        } else {
                            existing.append((z, z, l))
                        }
                        runs[l.id] = existing
                    } else {
                        order.append(l.id)
                        runs[l.id] = [(z, z, l)]
                    }
                }
            }
            let ruleOrder = firstRule(selection, source)
            if order.isEmpty, case .named(let c) = selection, layer.allClassNames.contains(c) {
                warn("class \(c) of layer \(layer.id) is drawn at no zoom (the sheet gives it no look there)")
            }
            for (k, id) in order.enumerated() {
                let list = runs[id] ?? []
                for (r, run) in list.enumerated() {
                    var l = run.layer
                    l.minZoom = run.lo == 0 ? nil : run.lo
                    l.maxZoom = run.hi >= 24 ? nil : run.hi + 1
                    if list.count > 1 && r > 0 { l.id += "-z\(run.lo)" }
                    planned.append(([l.kind.drawRank, ruleOrder, index, selIndex, k, r], l))
                }
            }
        }
    }

    var iconFolder: String {
        options.iconFolder ?? RegularFile.parentPath(sheet.file)
    }

    /// The sheet position of the first rule that sets the class for the layer (or of the first rule for the
    /// layer for `any` / `unclassified`).
    func firstRule(_ selection: ClassSelection, _ layer: String) -> Int {
        for rule in sheet.rules where rule.selectors.contains(where: { $0.subject.appliesTo(layer: layer) }) {
            switch selection {
            case .named(let c): if rule.value(of: .className) == .text(c) { return rule.index }
            case .any, .unclassified: return rule.index
            }
        }
        return Int.max - 1
    }

    mutating func finish() -> [PlannedLayer] {
        planned.sort { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }
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
        return out
    }
}
