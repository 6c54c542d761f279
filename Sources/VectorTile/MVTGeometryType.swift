/// The MVT `GeomType` enum.
public enum MVTGeometryType: UInt32, Sendable, Hashable, CaseIterable, Codable {
    /// No declared type; clients may ignore such features. Kartpack never writes it.
    case unknown = 0
    /// Point or multipoint.
    case point = 1
    /// Line or multiline.
    case lineString = 2
    /// Polygon or multipolygon.
    case polygon = 3
}
