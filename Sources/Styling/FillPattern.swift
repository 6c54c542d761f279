/// The named fill patterns a client draws from a generated sprite: the desktop-GIS set of hatches in four
/// directions, two crosses and dots.
public enum FillPattern: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Diagonal lines rising to the right (`/`).
    case diagonalHatch = "diagonal-hatch"
    /// Diagonal lines falling to the right (`\`).
    case backwardDiagonal = "backward-diagonal"
    /// Crossed diagonal lines (`x`).
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
