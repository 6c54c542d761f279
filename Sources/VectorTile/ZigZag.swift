/// ZigZag mapping between signed and unsigned integers, as used by `sint32`/`sint64` and MVT geometry parameters.
public enum ZigZag {
    /// `(v << 1) ^ (v >> 31)`: 0 → 0, −1 → 1, 1 → 2, −2 → 3, …
    @inlinable
    public static func encode(_ v: Int32) -> UInt32 { UInt32(bitPattern: (v &<< 1) ^ (v >> 31)) }

    /// `(p >> 1) ^ −(p & 1)`: the inverse of `encode(_:)` for `Int32`.
    @inlinable
    public static func decode(_ p: UInt32) -> Int32 { Int32(bitPattern: (p >> 1) ^ (0 &- (p & 1))) }

    /// 64-bit zigzag encoding.
    @inlinable
    public static func encode(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v &<< 1) ^ (v >> 63)) }

    /// 64-bit zigzag decoding.
    @inlinable
    public static func decode(_ p: UInt64) -> Int64 { Int64(bitPattern: (p >> 1) ^ (0 &- (p & 1))) }
}
