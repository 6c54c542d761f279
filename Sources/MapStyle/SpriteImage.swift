public import Styling

/// One image of the generated sprite: a fill pattern or a placeholder marker for an `icon`, drawn in one colour.
public struct SpriteImage: Sendable, Hashable {
    /// What is drawn.
    public enum Shape: Sendable, Hashable {
        /// A repeating fill pattern (16×16 at 1×).
        case pattern(FillPattern)
        /// A round marker standing in for an icon the client may replace (16×16 at 1×).
        case marker
    }

    /// The image name referenced by `fill-pattern` / `icon-image`.
    public var name: String
    /// What is drawn.
    public var shape: Shape
    /// The colour it is drawn in, on a transparent background.
    public var color: StyleColor

    /// Creates an image description.
    public init(name: String, shape: Shape, color: StyleColor) {
        self.name = name
        self.shape = shape
        self.color = color
    }

    /// The side of every sprite image at 1×, in pixels.
    public static let size = 16

    /// The sprite name of `pattern` drawn in `color`: `pattern-diagonal-hatch-1b5e20` (`…-1b5e2080` when the
    /// colour is not opaque).
    public static func patternName(_ pattern: FillPattern, _ color: StyleColor) -> String {
        "pattern-\(pattern.rawValue)-\(color.hexString.dropFirst())"
    }
}
