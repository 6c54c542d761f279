import KartpackCore

/// Turns the parts of one line record into a (multi)line: the one rule the Shapefile and GeoPackage readers share,
/// so both give the same features for the same lines.
public enum LineAssembler {
    /// Lines from parts: consecutive duplicate points removed (`removed_duplicates`), parts with fewer than 2
    /// distinct points dropped (`dropped_part`); one part is a `.lineString`, more a `.multiLineString`.
    public static func assemble(xy: [Double], parts: [Range<Int>]) -> GeometryAssembly {
        var g = Geometry(kind: .lineString, xy: [], partStarts: [])
        g.xy.reserveCapacity(xy.count)
        var removed = 0
        var dropped = 0
        for r in parts {
            let startCount = g.xy.count
            var kept = 0
            for i in r {
                if kept > 0, xy[2 * i] == g.xy[g.xy.count - 2], xy[2 * i + 1] == g.xy[g.xy.count - 1] {
                    removed += 1
                    continue
                }
                g.xy.append(xy[2 * i])
                g.xy.append(xy[2 * i + 1])
                kept += 1
            }
            if kept < 2 {
                g.xy.removeSubrange(startCount...)
                dropped += 1
                removed -= r.count - kept
                continue
            }
            g.partStarts.append(Int32(startCount / 2))
        }
        guard !g.partStarts.isEmpty else {
            return .skipped(code: .emptyGeometry, message: "no part with 2 or more distinct vertices")
        }
        var repairs: [GeometryRepair] = []
        if dropped > 0 {
            repairs.append(
                GeometryRepair(
                    code: .droppedPart, message: "dropped \(dropped) part(s) with fewer than 2 distinct vertices"))
        }
        if removed > 0 {
            repairs.append(
                GeometryRepair(code: .removedDuplicates, message: "removed \(removed) repeated consecutive point(s)"))
        }
        g.kind = g.partStarts.count == 1 ? .lineString : .multiLineString
        return .built(g, repairs)
    }
}
