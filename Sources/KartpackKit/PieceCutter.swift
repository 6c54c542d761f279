import KartpackCore
import GeometryAlgorithms
import VectorTile

/// Cuts one tile's piece of a feature to the tile's own square (dropping the buffer, so neighbouring tiles never
/// double a point or an area) and, for ``GeometryMode/clipped``, to the region; converts it to WGS 84.
struct PieceCutter {
    struct Piece {
        var points: [GeoCoordinate] = []
        var lines: [[GeoCoordinate]] = []
        var polygons: [GeoPolygon] = []
    }

    let projection: TileProjection
    let mode: GeometryMode
    /// The tile's square in tile units.
    let tileRect: Bounds
    /// The region ∩ the tile square, in tile units (nil when they do not meet).
    let regionRect: Bounds?

    init(projection: TileProjection, region: GeoRegion, mode: GeometryMode) {
        self.projection = projection
        self.mode = mode
        let e = projection.extent
        tileRect = Bounds(minX: 0, minY: 0, maxX: e, maxY: e)
        let nw = projection.tileUnits(GeoCoordinate(longitude: region.west, latitude: region.north))
        let se = projection.tileUnits(GeoCoordinate(longitude: region.east, latitude: region.south))
        let r = Bounds(minX: max(nw.x, 0), minY: max(nw.y, 0), maxX: min(se.x, e), maxY: min(se.y, e))
        regionRect = r.isEmpty ? nil : r
    }

    /// Where the feature sits for spreading, in `0..<extent`: a point's first position (nil when it lies in the
    /// buffer: the neighbouring tile owns it), else the first vertex clamped into the tile.
    func anchor(_ f: DecodedFeature) -> (x: Double, y: Double)? {
        guard let first = f.geometry.parts.first(where: { !$0.isEmpty })?.first else { return nil }
        let e = projection.extent
        let x = Double(first.x)
        let y = Double(first.y)
        if f.type == .point {
            return x >= 0 && x < e && y >= 0 && y < e ? (x, y) : nil
        }
        return (min(max(x, 0), e.nextDown), min(max(y, 0), e.nextDown))
    }

    /// The piece inside the region (or, for `.whole`, the tile's piece of a feature that reaches the region);
    /// nil when nothing is left.
    func cut(_ f: DecodedFeature) -> Piece? {
        guard let regionRect else { return nil }
        let clip = mode == .clipped ? regionRect : tileRect
        var piece = Piece()
        switch f.type {
        case .point:
            let e = projection.extent
            var reaches = false
            for part in f.geometry.parts {
                for p in part {
                    let x = Double(p.x)
                    let y = Double(p.y)
                    guard x >= 0, x < e, y >= 0, y < e else { continue }
                    let inRegion =
                        x >= regionRect.minX && x <= regionRect.maxX && y >= regionRect.minY
                        && y <= regionRect.maxY
                    reaches = reaches || inRegion
                    if inRegion || mode == .whole { piece.points.append(projection.coordinate(x: x, y: y)) }
                }
            }
            return reaches ? piece : nil
        case .lineString:
            var reaches = false
            for part in f.geometry.parts {
                let line = part.map { Point2(x: Double($0.x), y: Double($0.y)) }
                let cut = RectangleClipper.clipLine(line, to: clip)
                if mode == .clipped {
                    reaches = reaches || !cut.isEmpty
                } else if !reaches {
                    reaches = !RectangleClipper.clipLine(line, to: regionRect).isEmpty
                }
                piece.lines += cut.map { $0.map { projection.coordinate(x: $0.x, y: $0.y) } }
            }
            return reaches && !piece.lines.isEmpty ? piece : nil
        case .polygon:
            var reaches = false
            for range in f.geometry.polygonRanges {
                let rings = range.map { i in f.geometry.parts[i].map { Point2(x: Double($0.x), y: Double($0.y)) } }
                guard let outer = rings.first else { continue }
                let exterior = RectangleClipper.clipRing(outer, to: clip)
                guard !exterior.isEmpty else { continue }
                if mode == .clipped {
                    reaches = true
                } else if !reaches {
                    reaches = !RectangleClipper.clipRing(outer, to: regionRect).isEmpty
                }
                let holes = rings.dropFirst().map { RectangleClipper.clipRing($0, to: clip) }.filter { !$0.isEmpty }
                piece.polygons.append(GeoPolygon(exterior: closed(exterior), holes: holes.map(closed)))
            }
            return reaches && !piece.polygons.isEmpty ? piece : nil
        case .unknown:
            return nil
        }
    }

    private func closed(_ ring: [Point2]) -> [GeoCoordinate] {
        var out = ring.map { projection.coordinate(x: $0.x, y: $0.y) }
        if let first = out.first { out.append(first) }
        return out
    }
}
