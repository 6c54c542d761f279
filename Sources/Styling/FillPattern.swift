/// The named fill patterns a client draws from a generated sprite.
public enum FillPattern: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Diagonal lines.
    case diagonalHatch = "diagonal-hatch"
    /// Crossed diagonal lines.
    case crossHatch = "cross-hatch"
    /// Horizontal lines.
    case horizontal
    /// Vertical lines.
    case vertical
    /// A dot grid.
    case dots
    /// Horizontal and vertical lines.
    case grid

    /// The name as written in a sheet.
    public var description: String { rawValue }
}
