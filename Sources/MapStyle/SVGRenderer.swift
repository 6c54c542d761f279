import KartpackCore
import Styling
import VectorTile

/// Draws collected tile features with a `StylePlan` into SVG text (see `SVGPreview`).
struct Renderer {
    let info: PackageInfo
    let sheet: Stylesheet
    let canvas: Canvas
    let options: SVGPreviewOptions
    let classifier: StyleClassifier

    /// One classified feature of one tile, with how to place and clip it.
    struct Item {
        var layer: String
        var feature: DecodedFeature
        var family: GeometryFamily
        var className: String
        /// Pixel = (ax * tx + bx, ay * ty + by) for tile units (tx, ty).
        var ax: Double, bx: Double, ay: Double, by: Double
        /// The tile square ∩ canvas, in tile units.
        var clip: ClipRect
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
    var byPair: [String: [Int]] = [:]
    var discovered: [(layer: String, className: String, family: GeometryFamily)] = []
    var unclassified = 0

    init(info: PackageInfo, sheet: Stylesheet, canvas: Canvas, options: SVGPreviewOptions) {
        self.info = info
        self.sheet = sheet
        self.canvas = canvas
        self.options = options
        classifier = StyleClassifier(sheet: sheet)
    }

    static func key(_ layer: String, _ className: String) -> String { layer + "\u{0}" + className }

    mutating func collect(_ tiles: [(coordinate: TileCoordinate, tile: DecodedTile)]) {
        for (coordinate, tile) in tiles {
            let tb = SphericalMercator.bounds(of: coordinate)
            let size = SphericalMercator.tileSize(zoom: coordinate.z)
            for layer in tile.layers {
                let extent = Double(max(1, layer.extent))
                let k = canvas.scale * size / extent
                let ax = k
                let bx = (tb.minX - canvas.bounds.minX) * canvas.scale
                let ay = k
                let by = (canvas.bounds.maxY - tb.maxY) * canvas.scale
                let clip = ClipRect(
                    minX: max(0, (canvas.bounds.minX - tb.minX) / size * extent),
                    minY: max(0, (tb.maxY - canvas.bounds.maxY) / size * extent),
                    maxX: min(extent, (canvas.bounds.maxX - tb.minX) / size * extent),
                    maxY: min(extent, (tb.maxY - canvas.bounds.minY) / size * extent))
                guard !clip.isEmpty else { continue }
                for feature in layer.features {
                    let family: GeometryFamily
                    switch feature.type {
                    case .point: family = .point
                    case .lineString: family = .line
                    case .polygon: family = .polygon
                    case .unknown: continue
                    }
                    var className: String?
                    if let v = feature.properties["class"] {
                        if case .string(let s) = v, !s.isEmpty { className = s }
                    } else {
                        className =
                            classifier.style(
                                layer: layer.name, properties: feature.properties, zoom: canvas.zoom
                            ).className
                    }
                    guard let className else {
                        unclassified += 1
                        continue
                    }
                    let key = Renderer.key(layer.name, className)
                    if byPair[key] == nil { discovered.append((layer.name, className, family)) }
                    byPair[key, default: []].append(items.count)
                    items.append(
                        Item(
                            layer: layer.name, feature: feature, family: family, className: className, ax: ax, bx: bx,
                            ay: ay, by: by, clip: clip, extent: extent))
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
                    let clipped = Clipping.clipRing(ring, to: item.clip)
                    if n == 0 && clipped.isEmpty { break }
                    if !clipped.isEmpty { rings.append(clipped.map(px)) }
                    if ring.count >= 2 {
                        for part in Clipping.clipLine(ring + [ring[0]], to: item.clip) {
                            s.outlines.append(part.map(px))
                        }
                    }
                }
                if !rings.isEmpty { s.polygons.append(rings) }
            }
        case .line:
            for part in g.parts {
                for piece in Clipping.clipLine(part.map(unit), to: item.clip) { s.lines.append(piece.map(px)) }
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

    /// The pairs to plan: the package's (as the style does), then classes found only in the tiles.
    func pairs() -> [(layer: PackageLayer, className: String)] {
        var out: [(layer: PackageLayer, className: String)] = []
        var seen = Set<String>()
        for layer in info.layers {
            for name in layer.classes?.map(\.name) ?? sheet.possibleClassNames(layer: layer.id)
            where seen.insert(Renderer.key(layer.id, name)).inserted {
                out.append((layer, name))
            }
        }
        for d in discovered where seen.insert(Renderer.key(d.layer, d.className)).inserted {
            out.append((info.layer(d.layer) ?? PackageLayer(id: d.layer), d.className))
        }
        return out
    }

    func draw() -> SVGPreviewResult {
        var warnings: [String] = []
        let pairList = pairs()
        let plan = StylePlan(
            sheet: sheet, pairs: pairList, packageMaxZoom: info.maxZoom, options: options.plan, warnings: &warnings)
        var shapes: [Int: Shape] = [:]
        func shapeOf(_ i: Int) -> Shape {
            if let s = shapes[i] { return s }
            let s = shape(items[i])
            shapes[i] = s
            return s
        }
        var drawn = [Bool](repeating: false, count: items.count)
        var drawnPairs = Set<String>()
        var paths = 0
        var mapGroups: [String] = []
        for layer in plan.layers where layer.isVisible(atZoom: canvas.zoom) {
            let members = (byPair[Renderer.key(layer.sourceLayer, layer.className)] ?? []).filter {
                layer.geometry == nil || layer.geometry == items[$0].family
            }
            guard !members.isEmpty else { continue }
            var elements: [String] = []
            let c = Renderer.color(layer.color)
            let o = Renderer.opacity(layer.color, layer.opacity)
            switch layer.kind {
            case .fill, .pattern:
                let fill = layer.kind == .fill ? c : "url(#kp-\(SVGText.escape(layer.imageName ?? "")))"
                let fillOpacity = layer.kind == .fill ? o : SVGText.num(layer.opacity)
                for i in members {
                    let s = shapeOf(i)
                    let d = Renderer.pathData(s.polygons.flatMap { $0 }, close: true)
                    guard !d.isEmpty else { continue }
                    elements.append(
                        "<path d=\"\(d)\" fill=\"\(fill)\" fill-opacity=\"\(fillOpacity)\" fill-rule=\"evenodd\"/>")
                    drawn[i] = true
                }
            case .outline, .line:
                var attrs =
                    "fill=\"none\" stroke=\"\(c)\" stroke-opacity=\"\(o)\" stroke-width=\"\(SVGText.num(layer.width))\" "
                    + "stroke-linejoin=\"round\""
                if let dashes = layer.dashes {
                    attrs +=
                        " stroke-dasharray=\"\(dashes.map { SVGText.num($0 * layer.width) }.joined(separator: " "))\""
                }
                for i in members {
                    let s = shapeOf(i)
                    let d = Renderer.pathData(layer.kind == .outline ? s.outlines : s.lines, close: false)
                    guard !d.isEmpty else { continue }
                    elements.append("<path d=\"\(d)\" \(attrs)/>")
                    drawn[i] = true
                }
            case .circle, .icon:
                for i in members {
                    for p in shapeOf(i).points {
                        if layer.kind == .circle {
                            var e =
                                "<circle cx=\"\(SVGText.num(p.x))\" cy=\"\(SVGText.num(p.y))\" r=\"\(SVGText.num(layer.radius))\" "
                                + "fill=\"\(c)\" fill-opacity=\"\(o)\""
                            if let outline = layer.outlineColor {
                                e +=
                                    " stroke=\"\(Renderer.color(outline))\" stroke-width=\"\(SVGText.num(layer.width))\""
                            }
                            elements.append(e + "/>")
                        } else {
                            elements.append(
                                "<circle cx=\"\(SVGText.num(p.x))\" cy=\"\(SVGText.num(p.y))\" r=\"\(SVGText.num(PatternRaster.markerRadius + 0.75))\" "
                                    + "fill=\"\(c)\" fill-opacity=\"\(o)\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>")
                        }
                        drawn[i] = true
                    }
                }
            case .label:
                elements += labels(layer, members, shapeOf, &drawn)
            }
            guard !elements.isEmpty else { continue }
            if layer.kind != .label { paths += elements.filter { $0.hasPrefix("<path") }.count }
            drawnPairs.insert(Renderer.key(layer.sourceLayer, layer.className))
            mapGroups.append(
                "<g class=\"\(layer.kind.rawValue)\" data-layer=\"\(SVGText.escape(layer.id))\">\n"
                    + elements.joined(separator: "\n") + "\n</g>")
        }

        // Legend: one row per drawn (layer, class), in planning order.
        var legendRows: [String] = []
        for pair in pairList where drawnPairs.contains(Renderer.key(pair.layer.id, pair.className)) {
            let layers = plan.layers.filter {
                $0.sourceLayer == pair.layer.id && $0.className == pair.className && $0.isVisible(atZoom: canvas.zoom)
            }
            legendRows.append(legendRow(layers, title: "\(pair.className) (\(pair.layer.id))"))
        }
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
            if case .pattern(let p) = image.shape {
                svg += SVGPattern.definition(id: "kp-" + image.name, pattern: p, color: image.color) + "\n"
            }
        }
        svg += "</defs>\n"
        svg +=
            "<rect id=\"background\" x=\"0\" y=\"0\" width=\"\(SVGText.num(width))\" height=\"\(SVGText.num(total))\" "
            + "fill=\"\(Renderer.color(options.background))\"/>\n"
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
        return SVGPreviewResult(
            svg: svg, width: Int(width), height: Int(height), sourceZoom: canvas.zoom, tilesRead: 0, tilesMissing: 0,
            paths: paths, featuresDrawn: drawn.filter { $0 }.count, unclassified: unclassified,
            warnings: info.warnings + warnings)
    }

    func title() -> String {
        let name = info.name ?? "package"
        return "Kartpack preview of \(name) at zoom \(canvas.zoom)"
    }

    /// Label elements for one label layer, one per feature id (the largest piece wins).
    func labels(
        _ layer: PlannedLayer, _ members: [Int], _ shapeOf: (Int) -> Shape, _ drawn: inout [Bool]
    ) -> [String] {
        var order: [String] = []
        var best: [String: (weight: Double, at: Point2, text: String, item: Int)] = [:]
        for (n, i) in members.enumerated() {
            let item = items[i]
            guard let text = Renderer.labelText(item.feature.properties, layer.labelField ?? ""), !text.isEmpty else {
                continue
            }
            let s = shapeOf(i)
            var candidates: [(weight: Double, at: Point2)] = []
            switch item.family {
            case .polygon:
                if let c = Renderer.polygonLabelPoint(s.polygons) { candidates.append(c) }
            case .line:
                if let c = Renderer.lineLabelPoint(s.lines) { candidates.append(c) }
            case .point:
                for p in s.points {
                    candidates.append((0, Point2(x: p.x, y: p.y + layer.radius + layer.textSize * 0.9)))
                }
            }
            for (k, c) in candidates.enumerated() {
                // Points are already owned by one tile; polygons and lines are merged by feature id.
                let key: String
                if item.family != .point, let id = item.feature.id {
                    key = "id:\(id)"
                } else {
                    key = "n:\(n):\(k)"
                }
                if let old = best[key] {
                    if c.weight > old.weight { best[key] = (c.weight, c.at, text, i) }
                } else {
                    order.append(key)
                    best[key] = (c.weight, c.at, text, i)
                }
            }
        }
        var out: [String] = []
        let c = Renderer.color(layer.color)
        let o = Renderer.opacity(layer.color, layer.opacity)
        for key in order {
            guard let b = best[key] else { continue }
            drawn[b.item] = true
            out.append(
                "<text x=\"\(SVGText.num(b.at.x))\" y=\"\(SVGText.num(b.at.y))\" font-family=\"sans-serif\" "
                    + "font-size=\"\(SVGText.num(layer.textSize))\" text-anchor=\"middle\" fill=\"\(c)\" "
                    + "fill-opacity=\"\(o)\" stroke=\"#ffffff\" stroke-width=\"2\" stroke-linejoin=\"round\" "
                    + "paint-order=\"stroke\">\(SVGText.escape(b.text))</text>")
        }
        return out
    }

    /// The label value of `field` (exact name first, then ignoring case), as MapLibre writes it.
    static func labelText(_ props: Properties, _ field: String) -> String? {
        var value = props[field]
        if value == nil {
            let lower = field.lowercased()
            if let i = props.keys.firstIndex(where: { $0.lowercased() == lower }) { value = props.values[i] }
        }
        switch value {
        case .string(let s)?: return s
        case .int(let v)?: return String(v)
        case .uint(let v)?: return String(v)
        case .double(let d)?:
            if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
            return String(d)
        case .bool(let b)?: return b ? "true" : "false"
        default: return nil
        }
    }

    /// An interior point of the largest polygon piece, weighted by its area: the middle of the widest span of
    /// the horizontal line through the middle of the exterior's box.
    static func polygonLabelPoint(_ polygons: [[[Point2]]]) -> (weight: Double, at: Point2)? {
        var best: (weight: Double, rings: [[Point2]])?
        for rings in polygons {
            guard let exterior = rings.first else { continue }
            let a = abs(Clipping.area(exterior))
            if a > (best?.weight ?? -1) { best = (a, rings) }
        }
        guard let best, let exterior = best.rings.first else { return nil }
        let ys = exterior.map(\.y)
        guard let minY = ys.min(), let maxY = ys.max() else { return nil }
        let y = (minY + maxY) / 2
        var xs: [Double] = []
        for ring in best.rings {
            for i in 0..<ring.count {
                let p = ring[i]
                let q = ring[(i + 1) % ring.count]
                if (p.y <= y && q.y > y) || (q.y <= y && p.y > y) {
                    xs.append(p.x + (y - p.y) / (q.y - p.y) * (q.x - p.x))
                }
            }
        }
        xs.sort()
        var span: (width: Double, mid: Double)?
        var i = 0
        while i + 1 < xs.count {
            let w = xs[i + 1] - xs[i]
            if w > (span?.width ?? -1) { span = (w, (xs[i] + xs[i + 1]) / 2) }
            i += 2
        }
        let xsAll = exterior.map(\.x)
        let x = span?.mid ?? ((xsAll.min() ?? 0) + (xsAll.max() ?? 0)) / 2
        return (best.weight, Point2(x: x, y: y))
    }

    /// The middle of the longest line piece, weighted by its length.
    static func lineLabelPoint(_ lines: [[Point2]]) -> (weight: Double, at: Point2)? {
        func length(_ l: [Point2]) -> Double {
            zip(l, l.dropFirst()).reduce(0) {
                $0 + (($1.1.x - $1.0.x) * ($1.1.x - $1.0.x) + ($1.1.y - $1.0.y) * ($1.1.y - $1.0.y)).squareRoot()
            }
        }
        var best: (weight: Double, line: [Point2])?
        for l in lines {
            let len = length(l)
            if len > (best?.weight ?? -1) { best = (len, l) }
        }
        guard let best, best.line.count >= 2 else { return nil }
        var remaining = best.weight / 2
        for (a, b) in zip(best.line, best.line.dropFirst()) {
            let seg = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            if seg >= remaining, seg > 0 {
                let t = remaining / seg
                return (best.weight, Point2(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y)))
            }
            remaining -= seg
        }
        return (best.weight, best.line[best.line.count - 1])
    }

    /// The legend swatch and title for one (layer, class).
    func legendRow(_ layers: [PlannedLayer], title: String) -> String {
        var swatch = ""
        for l in layers {
            let c = Renderer.color(l.color)
            let o = Renderer.opacity(l.color, l.opacity)
            switch l.kind {
            case .fill:
                swatch += "<rect x=\"0\" y=\"0\" width=\"16\" height=\"12\" fill=\"\(c)\" fill-opacity=\"\(o)\"/>"
            case .pattern:
                swatch +=
                    "<rect x=\"0\" y=\"0\" width=\"16\" height=\"12\" fill=\"url(#kp-\(SVGText.escape(l.imageName ?? "")))\" "
                    + "fill-opacity=\"\(SVGText.num(l.opacity))\"/>"
            case .outline:
                swatch +=
                    "<rect x=\"0\" y=\"0\" width=\"16\" height=\"12\" fill=\"none\" stroke=\"\(c)\" stroke-opacity=\"\(o)\" "
                    + "stroke-width=\"\(SVGText.num(min(l.width, 3)))\"/>"
            case .line:
                var e =
                    "<line x1=\"0\" y1=\"6\" x2=\"16\" y2=\"6\" stroke=\"\(c)\" stroke-opacity=\"\(o)\" "
                    + "stroke-width=\"\(SVGText.num(min(l.width, 6)))\""
                if let d = l.dashes {
                    e += " stroke-dasharray=\"\(d.map { SVGText.num($0 * min(l.width, 6)) }.joined(separator: " "))\""
                }
                swatch += e + "/>"
            case .circle:
                var e =
                    "<circle cx=\"8\" cy=\"6\" r=\"\(SVGText.num(min(l.radius, 6)))\" fill=\"\(c)\" fill-opacity=\"\(o)\""
                if let outline = l.outlineColor { e += " stroke=\"\(Renderer.color(outline))\"" }
                swatch += e + "/>"
            case .icon:
                swatch += "<circle cx=\"8\" cy=\"6\" r=\"5\" fill=\"\(c)\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>"
            case .label:
                if layers.count == 1 {
                    swatch += "<text x=\"8\" y=\"10\" text-anchor=\"middle\" fill=\"\(c)\">Aa</text>"
                }
            }
        }
        return swatch + "<text x=\"22\" y=\"10\" fill=\"#222222\">\(SVGText.escape(title))</text>"
    }
}
