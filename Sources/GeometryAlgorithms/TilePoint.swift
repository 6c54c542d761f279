/// A vertex in integer tile coordinates (x right, y down; `0...extent` is the tile, beyond it the buffer).
public struct TilePoint: Sendable, Hashable, CustomStringConvertible {
    /// Column in tile units.
    public var x: Int32
    /// Row in tile units (grows downward).
    public var y: Int32

    /// Creates a point.
    @inlinable
    public init(_ x: Int32, _ y: Int32) {
        self.x = x
        self.y = y
    }

    /// Creates a point.
    @inlinable
    public init(x: Int32, y: Int32) {
        self.x = x
        self.y = y
    }

    /// `(x,y)`.
    public var description: String { "(\(x),\(y))" }
}

/// Signed area ×2 of a ring by the surveyor's formula Σ(xᵢ·yᵢ₊₁ − xᵢ₊₁·yᵢ), exact for any `Int32` input.
///
/// The ring is open (no closing duplicate needed; one is harmless). On tile coordinates (y down) a positive
/// value means clockwise on screen: an MVT exterior ring.
@inlinable
public func doubledSignedArea(_ ring: some Collection<TilePoint>) -> Int128 {
    guard let first = ring.first else { return 0 }
    var sum: Int128 = 0
    var prev = first
    for p in ring.dropFirst() {
        sum += Int128(cross(prev, p))
        prev = p
    }
    sum += Int128(cross(prev, first))
    return sum
}

/// a.x · b.y − b.x · a.y, exactly: each product of two `Int32` is within ±2^62 and their difference within
/// ±(2^63 − 2^31), so 64-bit arithmetic suffices (only the sum over a ring needs 128 bits).
@usableFromInline @inline(__always)
internal func cross(_ a: TilePoint, _ b: TilePoint) -> Int64 {
    Int64(a.x) * Int64(b.y) - Int64(b.x) * Int64(a.y)
}
