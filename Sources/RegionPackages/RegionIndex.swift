import KartpackCore

/// A uniform grid over the regions' extents (in Web Mercator metres): which regions a feature's extent may touch.
/// Candidates are then checked with the same box test the clip stage starts with (`Bounds.intersects`): the
/// regions a clipped run could keep some of the feature in, which `RegionRouting` then tests against the polygons.
package struct RegionIndex: Sendable {
    private let boxes: [Bounds]
    private let extent: Bounds
    private let columns: Int
    private let rows: Int
    private let cellWidth: Double
    private let cellHeight: Double
    private var cells: [[Int32]]

    package init(_ boxes: [Bounds]) {
        self.boxes = boxes
        var e = Bounds.empty
        for b in boxes where !b.isEmpty { e.include(b) }
        extent = e
        let side = max(1, min(1024, Int(Double(boxes.count).squareRoot().rounded(.up))))
        columns = side
        rows = side
        cellWidth = e.isEmpty ? 1 : max((e.maxX - e.minX) / Double(side), 1e-9)
        cellHeight = e.isEmpty ? 1 : max((e.maxY - e.minY) / Double(side), 1e-9)
        cells = Array(repeating: [], count: side * side)
        for (i, b) in boxes.enumerated() where !b.isEmpty {
            let (c0, r0, c1, r1) = range(b)
            for r in r0...r1 {
                for c in c0...c1 { cells[r * columns + c].append(Int32(i)) }
            }
        }
    }

    private func range(_ b: Bounds) -> (Int, Int, Int, Int) {
        func clamp(_ v: Double, _ n: Int) -> Int { max(0, min(n - 1, Int(v.rounded(.down)))) }
        return (
            clamp((b.minX - extent.minX) / cellWidth, columns), clamp((b.minY - extent.minY) / cellHeight, rows),
            clamp((b.maxX - extent.minX) / cellWidth, columns), clamp((b.maxY - extent.minY) / cellHeight, rows)
        )
    }

    /// The regions whose box intersects `b`, in ascending order.
    package func regions(touching b: Bounds) -> [Int] {
        guard !b.isEmpty, !extent.isEmpty, b.intersects(extent) else { return [] }
        let (c0, r0, c1, r1) = range(b)
        var out: [Int] = []
        for r in r0...r1 {
            for c in c0...c1 {
                for i in cells[r * columns + c] where boxes[Int(i)].intersects(b) { out.append(Int(i)) }
            }
        }
        out.sort()
        var unique: [Int] = []
        for i in out where unique.last != i { unique.append(i) }
        return unique
    }
}
