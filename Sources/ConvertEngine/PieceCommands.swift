import GeometryAlgorithms
import VectorTile

/// The steps of an MVT command stream of a tile piece, with the cursor applied: each MoveTo and LineTo point, and
/// each ClosePath. The walk stops at an unknown command or where the stream is cut short.
package enum PieceCommandStep {
    case moveTo(TilePoint)
    case lineTo(TilePoint)
    case closePath

    /// Calls `body` with every step of `commands` in order.
    package static func walk(_ commands: [UInt32], _ body: (PieceCommandStep) -> Void) {
        var x: Int32 = 0
        var y: Int32 = 0
        var i = 0
        while i < commands.count {
            let id = commands[i] & 7
            let count = Int(commands[i] >> 3)
            i += 1
            switch id {
            case 1, 2:
                for _ in 0..<count where i + 1 < commands.count {
                    x &+= ZigZag.decode(commands[i])
                    y &+= ZigZag.decode(commands[i + 1])
                    body(id == 1 ? .moveTo(TilePoint(x, y)) : .lineTo(TilePoint(x, y)))
                    i += 2
                }
            case 7:
                body(.closePath)
            default:
                return
            }
        }
    }
}

/// Reads back the polygon command streams `MVTGeometryEncoder.polygons` writes: MoveTo(1), LineTo(n), ClosePath per
/// ring; a ring with positive signed area (y down) starts a polygon, one with negative area is a hole of the last.
package enum PolygonCommands {
    /// The polygons of `commands`, each `[exterior, holes…]`, rings open.
    package static func decode(_ commands: [UInt32]) -> [[[TilePoint]]] {
        var polygons: [[[TilePoint]]] = []
        var ring: [TilePoint] = []
        PieceCommandStep.walk(commands) { step in
            switch step {
            case .moveTo(let p):
                ring.removeAll(keepingCapacity: true)
                ring.append(p)
            case .lineTo(let p):
                ring.append(p)
            case .closePath:
                if doubledSignedArea(ring) > 0 || polygons.isEmpty {
                    polygons.append([ring])
                } else {
                    polygons[polygons.count - 1].append(ring)
                }
                ring = []
            }
        }
        return polygons
    }
}

/// Reads back the line command streams `MVTGeometryEncoder.lines` writes: MoveTo(1) then LineTo(n) per part.
package enum LineCommands {
    /// The parts of `commands`, each with its points in order (a part with no LineTo has one point).
    package static func decode(_ commands: [UInt32]) -> [[TilePoint]] {
        var parts: [[TilePoint]] = []
        PieceCommandStep.walk(commands) { step in
            switch step {
            case .moveTo(let p):
                parts.append([p])
            case .lineTo(let p):
                if parts.isEmpty { parts.append([]) }
                parts[parts.count - 1].append(p)
            case .closePath:
                break
            }
        }
        return parts
    }
}
