/// Facts about this build of Kartpack.
public enum Kartpack {
    /// The version written into package metadata and reports.
    public static let version = "0.1.0"
    /// The `generator` string written into packages.
    public static let generator = "kartpack \(version)"
}
