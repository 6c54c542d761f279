import KartpackCore

/// The layout promises of `Geometry` (see its documentation), checked on every feature a reader emits.
enum GeometryCheck {
    /// A description of the first broken promise, or nil when the geometry is well formed.
    static func problem(in g: Geometry) -> String? {
        let points = g.pointCount
        guard g.xy.count % 2 == 0 else { return "odd coordinate count \(g.xy.count)" }
        guard points > 0 else { return "no points" }
        guard g.isFinite else { return "a non-finite coordinate" }
        guard g.partStarts.first == 0 else { return "part starts \(g.partStarts.prefix(4)) do not begin at 0" }
        for i in 1..<max(1, g.partStarts.count) where g.partStarts[i] <= g.partStarts[i - 1] {
            return "part \(i) starts at \(g.partStarts[i]) after \(g.partStarts[i - 1])"
        }
        guard let lastPart = g.partStarts.last, Int(lastPart) < points else {
            return "the last part starts at \(g.partStarts.last ?? -1) of \(points) points"
        }
        switch g.kind {
        case .point:
            guard points == 1, g.partCount == 1 else { return "a point with \(points) points" }
        case .multiPoint:
            guard g.partCount == 1 else { return "a multipoint with \(g.partCount) parts" }
        case .lineString, .multiLineString:
            if g.kind == .lineString, g.partCount != 1 { return "a linestring with \(g.partCount) parts" }
            for i in 0..<g.partCount where g.pointRange(ofPart: i).count < 2 {
                return "line part \(i) has \(g.pointRange(ofPart: i).count) point(s)"
            }
        case .polygon, .multiPolygon:
            guard g.polygonStarts.first == 0 else { return "polygon starts \(g.polygonStarts.prefix(4))" }
            for j in 1..<max(1, g.polygonStarts.count) where g.polygonStarts[j] <= g.polygonStarts[j - 1] {
                return "polygon \(j) starts at part \(g.polygonStarts[j]) after \(g.polygonStarts[j - 1])"
            }
            guard let lastPolygon = g.polygonStarts.last, Int(lastPolygon) < g.partCount else {
                return "the last polygon starts at part \(g.polygonStarts.last ?? -1) of \(g.partCount)"
            }
            if g.kind == .polygon, g.polygonCount != 1 { return "a polygon with \(g.polygonCount) polygons" }
            for i in 0..<g.partCount {
                let r = g.pointRange(ofPart: i)
                guard r.count >= 4 else { return "ring \(i) has \(r.count) point(s)" }
                let first = g.point(r.lowerBound)
                let last = g.point(r.upperBound - 1)
                guard first.x == last.x, first.y == last.y else { return "ring \(i) is not closed" }
            }
            return nil
        }
        guard g.polygonStarts.isEmpty else { return "a \(g.kind) with polygon starts" }
        return nil
    }
}
