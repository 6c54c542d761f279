import GeometryAlgorithms
import KartpackCore
import KartpackJSON
import Styling

extension Renderer {
    /// The Swift cascade's look of every drawn feature (see `SVGPreviewResult.features`), once per feature id.
    func featureLooks(drawn: [Bool], shapeOf: (Int) -> Shape) -> [JSONValue] {
        let classifier = StyleClassifier(sheet: sheet)
        func anchor(_ s: Shape) -> Point2? {
            if let p = Renderer.polygonLabelPoint(s.polygons) { return p.at }
            if let l = Renderer.lineLabelPoint(s.lines) { return l.at }
            return s.points.first
        }
        func inside(_ q: Point2, _ s: Shape) -> Bool {
            for rings in s.polygons {
                var hit = false
                for ring in rings where ring.count >= 3 {
                    var j = ring.count - 1
                    for i in 0..<ring.count {
                        let a = ring[i]
                        let b = ring[j]
                        if (a.y > q.y) != (b.y > q.y), q.x < (b.x - a.x) * (q.y - a.y) / (b.y - a.y) + a.x {
                            hit.toggle()
                        }
                        j = i
                    }
                }
                if hit { return true }
            }
            return false
        }
        var memo: [String: Bool] = [:]
        func member(_ j: Int, of id: AncestorSelectorID) -> Bool {
            let key = "\(j)|\(id.rawValue)"
            if let m = memo[key] { return m }
            let set = classifier.ancestorSelectors[id.rawValue]
            var ok =
                set.isLayer(items[j].layer) && items[j].family == .polygon
                && set.matches(properties: items[j].feature.properties)
            if ok, let parent = set.parent, let q = anchor(shapeOf(j)) { ok = isInside(q, parent, skip: j) }
            memo[key] = ok
            return ok
        }
        func isInside(_ q: Point2, _ id: AncestorSelectorID, skip: Int) -> Bool {
            items.indices.contains { j in j != skip && member(j, of: id) && inside(q, shapeOf(j)) }
        }
        var seen = Set<String>()
        var out: [JSONValue] = []
        for i in items.indices where drawn[i] {
            let item = items[i]
            let key = "\(item.layer)|\(item.feature.id.map(String.init) ?? "n\(i)")"
            guard seen.insert(key).inserted else { continue }
            let q = anchor(shapeOf(i))
            let style = classifier.style(layer: item.layer, properties: item.feature.properties, zoom: canvas.zoom) {
                id in
                guard let q else { return false }
                return isInside(q, id, skip: i)
            }
            var members: [(key: String, value: JSONValue)] = [("layer", .string(item.layer))]
            if let id = item.feature.id { members.append(("id", .int(Int64(id)))) }
            members.append(("class", style.className.map { .string($0) } ?? .null))
            members.append(("kinds", .object(FeatureLook.expected(style, family: item.family, options: options.plan))))
            out.append(.object(members))
        }
        return out
    }
}
