/// The type of a layer attribute as TileJSON `vector_layers` declares it.
public enum FieldKind: String, Sendable, Hashable {
    /// `Number`.
    case number = "Number"
    /// `String`.
    case string = "String"
    /// `Boolean`.
    case boolean = "Boolean"
    /// Any other declared type.
    case other
}

/// One layer of a package: its attributes, zooms and, for kartpack packages, features and classes per zoom.
public struct PackageLayer: Sendable, Hashable {
    /// The MVT layer name.
    public var name: String
    /// The attributes (name and declared type) in metadata order.
    public var fields: [(name: String, kind: FieldKind)]
    /// The lowest zoom holding the layer (the package's when the metadata does not say).
    public var minZoom: Int
    /// The highest zoom holding the layer.
    public var maxZoom: Int
    /// Features written to the layer (kartpack run summary), nil when unknown.
    public var featureCount: Int?
    /// `point`, `line` or `polygon` (kartpack run summary), nil when unknown.
    public var geometryFamily: String?
    /// Features per class at their highest zoom (kartpack `classes`), sorted by class name.
    public var classes: [(name: String, features: Int)]
    /// Features per class at each zoom a class is written (kartpack `classes_by_zoom`, docs/convert.md).
    public var classesByZoom: [Int: [(name: String, features: Int)]]

    /// Creates a layer description.
    public init(
        name: String, fields: [(name: String, kind: FieldKind)], minZoom: Int, maxZoom: Int, featureCount: Int? = nil,
        geometryFamily: String? = nil, classes: [(name: String, features: Int)] = [],
        classesByZoom: [Int: [(name: String, features: Int)]] = [:]
    ) {
        self.name = name
        self.fields = fields
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.featureCount = featureCount
        self.geometryFamily = geometryFamily
        self.classes = classes
        self.classesByZoom = classesByZoom
    }

    /// The classes written at `zoom`, sorted by name: `classes_by_zoom` at that zoom, else (a zoom collapsed
    /// out of the summary, or above the highest listed) the nearest listed zoom below it.
    public func classes(atZoom zoom: Int) -> [String] {
        if let exact = classesByZoom[zoom] { return exact.map(\.name) }
        let below = classesByZoom.keys.filter { $0 < zoom }.max()
        guard let below, zoom <= maxZoom else { return [] }
        return classesByZoom[below]?.map(\.name) ?? []
    }

    /// Equality of every member.
    public static func == (a: PackageLayer, b: PackageLayer) -> Bool {
        a.name == b.name && a.minZoom == b.minZoom && a.maxZoom == b.maxZoom && a.featureCount == b.featureCount
            && a.geometryFamily == b.geometryFamily && a.fields.elementsEqual(b.fields, by: { $0 == $1 })
            && a.classes.elementsEqual(b.classes, by: { $0 == $1 })
            && a.classesByZoom.keys.sorted() == b.classesByZoom.keys.sorted()
            && a.classesByZoom.allSatisfy { z, v in b.classesByZoom[z]?.elementsEqual(v, by: { $0 == $1 }) ?? false }
    }

    /// Hashes the name and zooms.
    public func hash(into h: inout Hasher) {
        h.combine(name)
        h.combine(minZoom)
        h.combine(maxZoom)
    }
}
