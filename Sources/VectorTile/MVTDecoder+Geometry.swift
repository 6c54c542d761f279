import GeometryAlgorithms
import KartpackCore

/// Geometry of a feature: command streams checked against MVT 2.1 §4.3 and turned into parts.
extension MVTDecoder {
    /// A cursor over a command stream.
    struct CommandCursor {
        let commands: [UInt32]
        var index = 0
        var x: Int64 = 0
        var y: Int64 = 0

        var isAtEnd: Bool { index >= commands.count }
        var remaining: Int { commands.count - index }

        /// The next command integer as (id, count), without consuming it.
        func peek() -> (id: UInt32, count: Int)? {
            guard index < commands.count else { return nil }
            let c = commands[index]
            return (c & 7, Int(c >> 3))
        }

        /// Consumes a command of the expected kind and returns its count.
        mutating func expect(_ command: MVTCommand) throws(MVTDecodeError) -> Int {
            guard let (id, count) = peek() else { throw MVTDecodeError(.truncatedGeometry) }
            guard id == command.rawValue else { throw Self.unexpected(id, count) }
            index += 1
            return count
        }

        static func unexpected(_ id: UInt32, _ count: Int) -> MVTDecodeError {
            if let c = MVTCommand(rawValue: id) { return MVTDecodeError(.unexpectedCommand(c, count: count)) }
            return MVTDecodeError(.unknownCommand(id))
        }

        /// Ensures `count` parameter pairs follow.
        func requirePairs(_ count: Int) throws(MVTDecodeError) {
            guard remaining / 2 >= count else { throw MVTDecodeError(.truncatedGeometry) }
        }

        /// Reads one (dx, dy) pair and moves the cursor; requirePairs must have been checked.
        mutating func readPoint() throws(MVTDecodeError) -> (point: TilePoint, zeroLength: Bool) {
            let dx = Int64(ZigZag.decode(commands[index]))
            let dy = Int64(ZigZag.decode(commands[index + 1]))
            index += 2
            x += dx
            y += dy
            guard x >= Int64(Int32.min) && x <= Int64(Int32.max) && y >= Int64(Int32.min) && y <= Int64(Int32.max)
            else { throw MVTDecodeError(.coordinateOverflow) }
            return (TilePoint(Int32(x), Int32(y)), dx == 0 && dy == 0)
        }
    }

    /// The points of a POINT feature, checked; no parts when not `keep`.
    func decodePoints(_ commands: [UInt32], keep: Bool, state: inout State) throws(MVTDecodeError)
        -> DecodedGeometry
    {
        var c = CommandCursor(commands: commands)
        guard !c.isAtEnd else { throw MVTDecodeError(.missingGeometry) }
        let count = try c.expect(.moveTo)
        guard count >= 1 else { throw MVTDecodeError(.unexpectedCommand(.moveTo, count: count)) }
        try c.requirePairs(count)
        try state.addVertices(count)
        var points: [TilePoint] = []
        if keep { points.reserveCapacity(count) }
        for _ in 0..<count {
            let p = try c.readPoint().point
            if keep { points.append(p) }
        }
        if let (id, n) = c.peek() { throw CommandCursor.unexpected(id, n) }
        return DecodedGeometry(parts: keep ? [points] : [])
    }

    /// Reads LineTo commands after a MoveTo; returns how many LineTo commands were read.
    func readLineTos(
        _ c: inout CommandCursor, into part: inout [TilePoint], version: Int, state: inout State
    ) throws(MVTDecodeError) -> Int {
        var commandsRead = 0
        while let (id, count) = c.peek(), id == MVTCommand.lineTo.rawValue {
            c.index += 1
            guard count >= 1 else { throw MVTDecodeError(.unexpectedCommand(.lineTo, count: count)) }
            try c.requirePairs(count)
            try state.addVertices(count)
            for _ in 0..<count {
                let (p, zero) = try c.readPoint()
                if zero && version >= 2 { throw MVTDecodeError(.zeroLengthLineTo) }
                part.append(p)
            }
            commandsRead += 1
        }
        return commandsRead
    }

    func decodeLines(_ commands: [UInt32], version: Int, state: inout State) throws(MVTDecodeError)
        -> DecodedGeometry
    {
        var c = CommandCursor(commands: commands)
        guard !c.isAtEnd else { throw MVTDecodeError(.missingGeometry) }
        var parts: [[TilePoint]] = []
        while !c.isAtEnd {
            let count = try c.expect(.moveTo)
            guard count == 1 else { throw MVTDecodeError(.unexpectedCommand(.moveTo, count: count)) }
            try c.requirePairs(1)
            try state.addVertices(1)
            var part = [try c.readPoint().point]
            guard try readLineTos(&c, into: &part, version: version, state: &state) > 0 else {
                guard let (id, n) = c.peek() else { throw MVTDecodeError(.truncatedGeometry) }
                throw CommandCursor.unexpected(id, n)
            }
            parts.append(part)
        }
        return DecodedGeometry(parts: parts)
    }

    func decodePolygons(
        _ commands: [UInt32], version: Int, state: inout State, layerName: String, feature: Int
    ) throws(MVTDecodeError) -> DecodedGeometry {
        var c = CommandCursor(commands: commands)
        guard !c.isAtEnd else { throw MVTDecodeError(.missingGeometry) }
        var parts: [[TilePoint]] = []
        var exterior: [Bool] = []
        // Version 2: exteriors are positive. Version 1: the first ring's sign is the exterior sign.
        var exteriorSign: Int128? = version >= 2 ? 1 : nil
        while !c.isAtEnd {
            let count = try c.expect(.moveTo)
            guard count == 1 else { throw MVTDecodeError(.unexpectedCommand(.moveTo, count: count)) }
            try c.requirePairs(1)
            try state.addVertices(1)
            var ring = [try c.readPoint().point]
            guard try readLineTos(&c, into: &ring, version: version, state: &state) > 0 else {
                guard let (id, n) = c.peek() else { throw MVTDecodeError(.truncatedGeometry) }
                throw CommandCursor.unexpected(id, n)
            }
            guard ring.count >= 3 else { throw MVTDecodeError(.unexpectedCommand(.lineTo, count: ring.count - 1)) }
            let closeCount = try c.expect(.closePath)
            guard closeCount == 1 else { throw MVTDecodeError(.unexpectedCommand(.closePath, count: closeCount)) }
            if ring.count > 1, ring.last == ring.first {
                ring.removeLast()
                state.warn(.closingPointRepeated, layer: layerName, feature: feature)
            }
            let area = doubledSignedArea(ring)
            guard area != 0 else {
                state.warn(.zeroAreaRing, layer: layerName, feature: feature)
                continue
            }
            if exteriorSign == nil { exteriorSign = area.signum() }
            let isExterior = area.signum() == exteriorSign
            if exterior.isEmpty && !isExterior { throw MVTDecodeError(.firstRingNotExterior) }
            parts.append(ring)
            exterior.append(isExterior)
        }
        return DecodedGeometry(parts: parts, ringIsExterior: exterior)
    }
}
