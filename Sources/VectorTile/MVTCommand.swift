/// The MVT geometry command ids.
public enum MVTCommand: UInt32, Sendable, Hashable {
    /// Start a new part at the cursor plus (dx, dy), per repetition.
    case moveTo = 1
    /// Draw to the cursor plus (dx, dy), per repetition.
    case lineTo = 2
    /// Close the current ring (count 1, no parameters).
    case closePath = 7

    /// The largest repetition count a command integer can hold (2^29 − 1).
    public static let maxCount = (1 << 29) - 1

    /// `CommandInteger = (id & 0x7) | (count << 3)`.
    @inlinable
    public func integer(count: Int) -> UInt32 { (rawValue & 7) | (UInt32(truncatingIfNeeded: count) << 3) }
}
