import Foundation
import GeometryAlgorithms
import KartpackCore
import KartpackJSON
import Styling
import VectorTile

/// Draws collected tile features with a `StylePlan` into SVG text (see `SVGPreview`).
struct Renderer {
    let info: PackageInfo
    let sheet: Stylesheet
    let canvas: Canvas
    let options: SVGPreviewOptions

    /// One feature of one tile, with how to place and clip it.
    struct Item {
        var layer: String
        var feature: DecodedFeature
        var family: GeometryFamily
        /// Pixel = (ax * tx + bx, ay * ty + by) for tile units (tx, ty).
        var ax: Double, bx: Double, ay: Double, by: Double
        /// The tile square ∩ canvas, in tile units.
        var clip: Bounds
        var extent: Double
    }

    /// A feature's clipped geometry in pixels.
    struct Shape {
        var polygons: [[[Point2]]] = []
        var outlines: [[Point2]] = []
        var lines: [[Point2]] = []
        var points: [Point2] = []
        var isEmpty: Bool { polygons.isEmpty && outlines.isEmpty && lines.isEmpty && points.isEmpty }
    }

    var items: [Item] = []
    var byLayer: [String: [Int]] = [:]
    /// Classes seen in tiles per layer that the metadata does not list.
    var extraClasses: [String: [String]] = [:]

    init(info: PackageInfo, sheet: Stylesheet, canvas: Canvas, options: SVGPreviewOptions) {
        self.info = info
        self.sheet = sheet
        self.canvas = canvas
        self.options = options
    }

    mutating func collect(_ tiles: [(coordinate: TileCoordinate, tile: DecodedTile)]) {
        for (coordinate, tile) in tiles {
            let tb = SphericalMercator.bounds(of: coordinate)
            let size = SphericalMercator.tileSize(zoom: coordinate.z)
            for layer in tile.layers {
                let extent = Double(max(1, layer.extent))
                let k = canvas.scale * size / extent
                let bx = (tb.minX - canvas.bounds.minX) * canvas.scale
                let by = (canvas.bounds.maxY - tb.maxY) * canvas.scale
                let clip = Bounds(
                    minX: max(0, (canvas.bounds.minX - tb.minX) / size * extent),
                    minY: max(0, (tb.maxY - canvas.bounds.maxY) / size * extent),
                    maxX: min(extent, (canvas.bounds.maxX - tb.minX) / size * extent),
                    maxY: min(extent, (tb.maxY - canvas.bounds.minY) / size * extent))
                guard clip.hasArea else { continue }
                let known = Set(info.layer(layer.name)?.allClassNames ?? [])
                for feature in layer.features {
                    let family: GeometryFamily
                    switch feature.type {
                    case .point: family = .point
                    case .lineString: family = .line
                    case .polygon: family = .polygon
                    case .unknown: continue
                    }
                    if case .string(let c)? = feature.properties["class"], !known.contains(c),
                        !(extraClasses[layer.name] ?? []).contains(c)
                    {
                        extraClasses[layer.name, default: []].append(c)
                    }
                    byLayer[layer.name, default: []].append(items.count)
                    items.append(
                        Item(
                            layer: layer.name, feature: feature, family: family, ax: k, bx: bx, ay: k, by: by,
                            clip: clip, extent: extent))
                }
            }
        }
    }

    func shape(_ item: Item) -> Shape {
        var s = Shape()
        func px(_ p: Point2) -> Point2 { Point2(x: item.ax * p.x + item.bx, y: item.ay * p.y + item.by) }
        func unit(_ p: TilePoint) -> Point2 { Point2(x: Double(p.x), y: Double(p.y)) }
        let g = item.feature.geometry
        switch item.family {
        case .polygon:
            for range in g.polygonRanges {
                var rings: [[Point2]] = []
                for (n, i) in range.enumerated() {
                    let ring = g.parts[i].map(unit)
                    let clipped = RectangleClipper.clipRing(ring, to: item.clip)
                    if n == 0 && clipped.isEmpty { break }
                    if !clipped.isEmpty { rings.append(clipped.map(px)) }
                    if ring.count >= 2 {
                        for part in RectangleClipper.clipLine(ring + [ring[0]], to: item.clip) {
                            s.outlines.append(part.map(px))
                        }
                    }
                }
                if !rings.isEmpty { s.polygons.append(rings) }
            }
        case .line:
            for part in g.parts {
                for piece in RectangleClipper.clipLine(part.map(unit), to: item.clip) { s.lines.append(piece.map(px)) }
            }
        case .point:
            for part in g.parts {
                for p in part {
                    let u = unit(p)
                    // Each tile owns the points in [0, extent) so that none is drawn twice.
                    guard u.x >= 0, u.y >= 0, u.x < item.extent, u.y < item.extent, u.x >= item.clip.minX,
                        u.x <= item.clip.maxX, u.y >= item.clip.minY, u.y <= item.clip.maxY
                    else { continue }
                    s.points.append(px(u))
                }
            }
        }
        return s
    }

    static func pathData(_ rings: [[Point2]], close: Bool) -> String {
        var d = ""
        for ring in rings where ring.count >= 2 {
            // A polyline that ends where it starts (an unclipped ring outline) is closed, so its corner joins.
            let loop = !close && ring.count >= 4 && ring.first == ring.last
            for (i, p) in (loop ? ring.dropLast() : ring[...]).enumerated() {
                d += (i == 0 ? "M" : "L") + SVGText.num(p.x) + "," + SVGText.num(p.y)
            }
            if close || loop { d += "Z" }
        }
        return d
    }

    static func color(_ c: StyleColor) -> String { SVGText.rgb((c.red, c.green, c.blue)) }

    static func opacity(_ c: StyleColor, _ o: Double) -> String { SVGText.num(Double(c.alpha) / 255 * o) }

    func draw() -> SVGPreviewResult {
        var planOptions = options.plan
        if planOptions.iconFolder == nil { planOptions.iconFolder = RegularFile.parentPath(sheet.file) }
        let plan = StylePlan(sheet: sheet, package: info, options: planOptions, extraClasses: extraClasses)
        var shapes: [Int: Shape] = [:]
        func shapeOf(_ i: Int) -> Shape {
            if let s = shapes[i] { return s }
            let s = shape(items[i])
            shapes[i] = s
            return s
        }
        var drawn = [Bool](repeating: false, count: items.count)
        var drawnLegend: [String] = []
        var legendLayers: [String: [PlannedLayer]] = [:]
        var paths = 0
        var mapGroups: [String] = []
        var usedImages: [String] = []
        for layer in plan.layers where layer.isVisible(atZoom: canvas.zoom) {
            let members = (byLayer[layer.sourceLayer] ?? []).filter {
                layer.draws(items[$0].feature.properties, family: items[$0].family)
            }
            guard !members.isEmpty else { continue }
            var elements: [String] = []
            switch layer.kind {
            case .fill, .pattern:
                for i in members {
                    let p = items[i].feature.properties
                    let d = Renderer.pathData(shapeOf(i).polygons.flatMap { $0 }, close: true)
                    guard !d.isEmpty else { continue }
                    let opacity = layer.value("fill-opacity", p).numberValue ?? 1
                    let paint: String
                    if layer.kind == .fill {
                        let c = layer.value("fill-color", p).colorValue ?? options.plan.defaultColor
                        paint = "fill=\"\(Renderer.color(c))\" fill-opacity=\"\(Renderer.opacity(c, opacity))\""
                    } else {
                        let name = layer.value("fill-pattern", p).stringValue ?? ""
                        if !usedImages.contains(name) { usedImages.append(name) }
                        paint = "fill=\"url(#kp-\(SVGText.escape(name)))\" fill-opacity=\"\(SVGText.num(opacity))\""
                    }
                    elements.append("<path d=\"\(d)\" \(paint) fill-rule=\"evenodd\"/>")
                    drawn[i] = true
                }
            case .outline, .line:
                for i in members {
                    let p = items[i].feature.properties
                    let s = shapeOf(i)
                    let d = Renderer.pathData(layer.kind == .outline ? s.outlines : s.lines, close: false)
                    guard !d.isEmpty else { continue }
                    let c = layer.value("line-color", p).colorValue ?? options.plan.defaultColor
                    let o = layer.value("line-opacity", p).numberValue ?? 1
                    let w = layer.value("line-width", p).numberValue ?? 1
                    var attrs =
                        "fill=\"none\" stroke=\"\(Renderer.color(c))\" stroke-opacity=\"\(Renderer.opacity(c, o))\" "
                        + "stroke-width=\"\(SVGText.num(w))\" stroke-linejoin=\"round\""
                    if let dashes = layer.dashes {
                        attrs += " stroke-dasharray=\"\(dashes.map { SVGText.num($0 * w) }.joined(separator: " "))\""
                    }
                    elements.append("<path d=\"\(d)\" \(attrs)/>")
                    drawn[i] = true
                }
            case .circle:
                for i in members {
                    let p = items[i].feature.properties
                    let c = layer.value("circle-color", p).colorValue ?? options.plan.defaultColor
                    let o = layer.value("circle-opacity", p).numberValue ?? 1
                    let r = layer.value("circle-radius", p).numberValue ?? options.plan.circleRadius
                    let sw = layer.value("circle-stroke-width", p).numberValue ?? 0
                    let sc = layer.value("circle-stroke-color", p).colorValue ?? options.plan.defaultColor
                    for q in shapeOf(i).points {
                        var e =
                            "<circle cx=\"\(SVGText.num(q.x))\" cy=\"\(SVGText.num(q.y))\" r=\"\(SVGText.num(r))\" "
                            + "fill=\"\(Renderer.color(c))\" fill-opacity=\"\(Renderer.opacity(c, o))\""
                        if sw > 0 { e += " stroke=\"\(Renderer.color(sc))\" stroke-width=\"\(SVGText.num(sw))\"" }
                        elements.append(e + "/>")
                        drawn[i] = true
                    }
                }
            case .icon:
                for i in members {
                    let p = items[i].feature.properties
                    let name = layer.value("icon-image", p).stringValue ?? ""
                    let o = layer.value("icon-opacity", p).numberValue ?? 1
                    guard plan.images.contains(where: { $0.name == name }) else { continue }
                    if !usedImages.contains(name) { usedImages.append(name) }
                    let half = Double(MapSymbol.side) / 2
                    for q in shapeOf(i).points {
                        elements.append(
                            "<use href=\"#kp-\(SVGText.escape(name))\" x=\"\(SVGText.num(q.x - half))\" "
                                + "y=\"\(SVGText.num(q.y - half))\" width=\"20\" height=\"20\" "
                                + "opacity=\"\(SVGText.num(o))\"/>"
                        )
                        drawn[i] = true
                    }
                }
            case .label:
                elements += labels(layer, members, shapeOf, &drawn)
            }
            guard !elements.isEmpty else { continue }
            if layer.kind != .label { paths += elements.filter { $0.hasPrefix("<path") }.count }
            let legendKey = "\(layer.classSelection) (\(layer.packageLayer))"
            if legendLayers[legendKey] == nil { drawnLegend.append(legendKey) }
            legendLayers[legendKey, default: []].append(layer)
            mapGroups.append(
                "<g class=\"\(layer.kind.rawValue)\" data-layer=\"\(SVGText.escape(layer.id))\">\n"
                    + elements.joined(separator: "\n") + "\n</g>")
        }
        let legendRows = drawnLegend.map { legendRow(legendLayers[$0] ?? [], title: $0, plan: plan) }
        let width = canvas.width
        let height = canvas.height
        let columns = max(1, Int(width / 240))
        let rowHeight = 18.0
        let legendHeight =
            options.legend && !legendRows.isEmpty
            ? (Double((legendRows.count + columns - 1) / columns) * rowHeight + 12) : 0
        let total = height + legendHeight

        var svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        svg +=
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(SVGText.num(width))\" "
            + "height=\"\(SVGText.num(total))\" viewBox=\"0 0 \(SVGText.num(width)) \(SVGText.num(total))\">\n"
        svg += "<title>\(SVGText.escape(title()))</title>\n<defs>\n"
        svg +=
            "<clipPath id=\"canvas-clip\"><rect x=\"0\" y=\"0\" width=\"\(SVGText.num(width))\" "
            + "height=\"\(SVGText.num(height))\"/></clipPath>\n"
        for image in plan.images {
            switch image.shape {
            case .pattern(let spec):
                svg += SVGPattern.definition(id: "kp-" + image.name, spec: spec) + "\n"
            case .symbol(let symbol, let color) where usedImages.contains(image.name):
                svg +=
                    "<symbol id=\"kp-\(SVGText.escape(image.name))\" width=\"20\" height=\"20\" viewBox=\"0 0 20 20\">"
                    + symbol.svgElements(color: color) + "</symbol>\n"
            case .svg(let path) where usedImages.contains(image.name):
                if let bytes = try? SVGIcon.bytes(path: path) {
                    svg +=
                        "<symbol id=\"kp-\(SVGText.escape(image.name))\" width=\"20\" height=\"20\">"
                        + "<image width=\"20\" height=\"20\" href=\"data:image/svg+xml;base64,"
                        + Data(bytes).base64EncodedString() + "\"/></symbol>\n"
                }
            default:
                break
            }
        }
        svg += "</defs>\n"
        svg +=
            "<rect id=\"background\" x=\"0\" y=\"0\" width=\"\(SVGText.num(width))\" height=\"\(SVGText.num(total))\" "
            + "fill=\"\(Renderer.color(plan.background))\"/>\n"
        svg += "<g id=\"map\" clip-path=\"url(#canvas-clip)\">\n"
        for g in mapGroups { svg += g + "\n" }
        svg += "</g>\n"
        if options.legend && !legendRows.isEmpty {
            svg +=
                "<g id=\"legend\" font-family=\"sans-serif\" font-size=\"11\">\n"
                + "<rect x=\"0\" y=\"\(SVGText.num(height))\" width=\"\(SVGText.num(width))\" "
                + "height=\"\(SVGText.num(legendHeight))\" fill=\"#ffffff\" fill-opacity=\"0.9\"/>\n"
            let columnWidth = width / Double(columns)
            for (i, row) in legendRows.enumerated() {
                let x = 8 + Double(i % columns) * columnWidth
                let y = height + 8 + Double(i / columns) * rowHeight
                svg += "<g transform=\"translate(\(SVGText.num(x)),\(SVGText.num(y)))\">\(row)</g>\n"
            }
            svg += "</g>\n"
        }
        svg += "</svg>\n"
        var result = SVGPreviewResult(
            svg: svg, width: Int(width), height: Int(height), sourceZoom: canvas.zoom, tilesRead: 0, tilesMissing: 0,
            paths: paths, featuresDrawn: drawn.filter { $0 }.count,
            unclassified: items.filter { $0.feature.properties["class"] == nil }.count, warnings: plan.warnings)
        if options.reportFeatures { result.features = featureLooks(drawn: drawn, shapeOf: shapeOf) }
        return result
    }

    func title() -> String {
        let name = info.name ?? "package"
        return "Kartpack preview of \(name) at zoom \(canvas.zoom)"
    }

    /// The legend swatch and title for one (layer, class), drawn with each layer's first possible values.
    func legendRow(_ layers: [PlannedLayer], title: String, plan: StylePlan) -> String {
        var swatch = ""
        func first(_ l: PlannedLayer, _ key: String) -> StyleLiteral {
            (l.paint[key] ?? l.layout[key])?.possibleLiterals.first ?? .null
        }
        for l in layers {
            switch l.kind {
            case .fill:
                let c = first(l, "fill-color").colorValue ?? options.plan.defaultColor
                let o = first(l, "fill-opacity").numberValue ?? 1
                swatch +=
                    "<rect x=\"0\" y=\"0\" width=\"16\" height=\"12\" fill=\"\(Renderer.color(c))\" "
                    + "fill-opacity=\"\(Renderer.opacity(c, o))\"/>"
            case .pattern:
                let name = first(l, "fill-pattern").stringValue ?? ""
                if plan.images.contains(where: { $0.name == name }) {
                    swatch +=
                        "<rect x=\"0\" y=\"0\" width=\"16\" height=\"12\" fill=\"url(#kp-\(SVGText.escape(name)))\"/>"
                }
            case .outline, .line:
                let c = first(l, "line-color").colorValue ?? options.plan.defaultColor
                let w = min(first(l, "line-width").numberValue ?? 1, 4)
                if l.kind == .outline {
                    swatch +=
                        "<rect x=\"0\" y=\"0\" width=\"16\" height=\"12\" fill=\"none\" "
                        + "stroke=\"\(Renderer.color(c))\" "
                        + "stroke-width=\"\(SVGText.num(w))\"/>"
                } else {
                    var e =
                        "<line x1=\"0\" y1=\"6\" x2=\"16\" y2=\"6\" stroke=\"\(Renderer.color(c))\" "
                        + "stroke-width=\"\(SVGText.num(w))\""
                    if let d = l.dashes {
                        e += " stroke-dasharray=\"\(d.map { SVGText.num($0 * w) }.joined(separator: " "))\""
                    }
                    swatch += e + "/>"
                }
            case .circle:
                let c = first(l, "circle-color").colorValue ?? options.plan.defaultColor
                swatch += "<circle cx=\"8\" cy=\"6\" r=\"4\" fill=\"\(Renderer.color(c))\"/>"
            case .icon:
                let name = first(l, "icon-image").stringValue ?? ""
                if let img = plan.images.first(where: { $0.name == name }), case .symbol(let s, let c) = img.shape {
                    swatch += "<g transform=\"translate(0,-2) scale(0.8)\">" + s.svgElements(color: c) + "</g>"
                }
            case .label:
                if layers.count == 1 {
                    let c = first(l, "text-color").colorValue ?? options.plan.defaultColor
                    swatch += "<text x=\"8\" y=\"10\" text-anchor=\"middle\" fill=\"\(Renderer.color(c))\">Aa</text>"
                }
            }
        }
        return swatch + "<text x=\"22\" y=\"10\" fill=\"#222222\">\(SVGText.escape(title))</text>"
    }
}
