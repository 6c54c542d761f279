/// The `@map { … }` block of a sheet: settings of the whole map rather than of features.
public struct MapSettings: Sendable, Hashable {
    /// `background`: the colour under every layer (the client style's `background` layer, the preview's canvas);
    /// nil when not set.
    public var background: StyleColor?
    /// Where the last `@map` starts (1:1 when there is none).
    public var location: StyleLocation

    /// No settings.
    public init(background: StyleColor? = nil, location: StyleLocation = StyleLocation(line: 1, column: 1)) {
        self.background = background
        self.location = location
    }
}
