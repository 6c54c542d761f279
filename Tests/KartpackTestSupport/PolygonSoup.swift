import KartpackCore

/// Many small polygons, the shape of a dense ring's tile pieces (slivers) for clip tests.
public enum PolygonSoup {
    /// `count` polygons over [-5, 15]²: rectangles of either orientation, triangles, rings with a repeated vertex
    /// and a repeated closing point, rings without area; every seventh has a hole. They may overlap.
    public static func make(seed: UInt64, count: Int) -> Geometry {
        var rng = SplitMix64(seed: seed)
        func unit() -> Double { Double.random(in: 0..<1, using: &rng) }
        var polygons: [[[Double]]] = []
        for k in 0..<count {
            let x = -5 + 20 * unit()
            let y = -5 + 20 * unit()
            let w = 0.05 + 3 * unit()
            let h = 0.05 + 3 * unit()
            let shell: [Double]
            switch k % 5 {
            case 0: shell = [x, y, x + w, y, x + w, y + h, x, y + h, x, y]
            case 1: shell = [x, y, x, y + h, x + w, y + h, x + w, y, x, y]  // clockwise
            case 2: shell = [x, y, x + w, y + h / 2, x, y + h, x, y]
            case 3: shell = [x, y, x + w, y, x + w, y, x + w, y + h, x, y + h, x, y, x, y]  // repeats
            default: shell = [x, y, x + w, y, x + 2 * w, y, x, y]  // no area
            }
            var rings = [shell]
            if k % 7 == 0 {
                let (a, b, c, d) = (x + w / 4, y + h / 4, x + w / 2, y + h / 2)
                rings.append([a, b, a, d, c, d, c, b, a, b])
            }
            polygons.append(rings)
        }
        return .polygons(polygons)
    }
}
