import GeometryAlgorithms
import KartpackCore
import Styling

/// Labels of the SVG preview: one per feature id, placed on its largest piece.
extension Renderer {
    /// Label elements for one label layer, one per feature id (the largest piece wins).
    func labels(
        _ layer: PlannedLayer, _ members: [Int], _ shapeOf: (Int) -> Shape, _ drawn: inout [Bool]
    ) -> [String] {
        var order: [String] = []
        var best: [String: (weight: Double, at: Point2, text: String, item: Int)] = [:]
        let labelPoints = layer.sourceLayer != layer.packageLayer
        for (n, i) in members.enumerated() {
            let item = items[i]
            let p = item.feature.properties
            guard let text = layer.value("text-field", p).stringValue, !text.isEmpty else { continue }
            let size = layer.value("text-size", p).numberValue ?? options.plan.defaultTextSize
            let s = shapeOf(i)
            var candidates: [(weight: Double, at: Point2)] = []
            switch item.family {
            case .polygon:
                if let c = Renderer.polygonLabelPoint(s.polygons) {
                    candidates.append((c.weight, Point2(x: c.at.x, y: c.at.y + size * 0.35)))
                }
            case .line:
                if let c = Renderer.lineLabelPoint(s.lines) {
                    candidates.append((c.weight, Point2(x: c.at.x, y: c.at.y + size * 0.35)))
                }
            case .point:
                for q in s.points {
                    // Label points are centred; point labels hang below the point (text-anchor top, offset 0.6 em).
                    let dy = labelPoints ? size * 0.35 : size * 1.4
                    candidates.append((0, Point2(x: q.x, y: q.y + dy)))
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
        for key in order {
            guard let b = best[key] else { continue }
            let p = items[b.item].feature.properties
            let color = layer.value("text-color", p).colorValue ?? options.plan.defaultColor
            let o = layer.value("text-opacity", p).numberValue ?? 1
            let size = layer.value("text-size", p).numberValue ?? options.plan.defaultTextSize
            drawn[b.item] = true
            out.append(
                "<text x=\"\(SVGText.num(b.at.x))\" y=\"\(SVGText.num(b.at.y))\" font-family=\"Noto Sans, sans-serif\" "
                    + "font-size=\"\(SVGText.num(size))\" text-anchor=\"middle\" fill=\"\(Renderer.color(color))\" "
                    + "fill-opacity=\"\(Renderer.opacity(color, o))\" stroke=\"#ffffff\" stroke-width=\"2\" "
                    + "stroke-linejoin=\"round\" paint-order=\"stroke\">\(SVGText.escape(b.text))</text>")
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
            let a = abs(RectangleClipper.area(exterior))
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
}
