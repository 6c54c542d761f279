public import KartpackCore
public import Styling

/// One layer of a package as its metadata describes it: the `vector_layers` entry merged with Kartpack's run
/// summary (`kartpack.layers[id]`).
public struct PackageLayerSummary: Sendable, Hashable {
    /// The MVT layer name (`source-layer` in a MapLibre style).
    public var id: String
    /// The attribute names from `vector_layers[].fields`, in metadata order.
    public var fields: [String]
    /// The kinds of the fields whose `vector_layers` type is `Number`, `String` or `Boolean`.
    public var fieldKinds: [String: ClientFieldKind] = [:]
    /// The lowest zoom with data for the layer, when the metadata says.
    public var minZoom: Int?
    /// The highest zoom with data for the layer, when the metadata says.
    public var maxZoom: Int?
    /// Point, line or polygon (`kartpack.layers[id].geometry`); nil when the metadata does not say.
    public var geometry: GeometryFamily?
    /// The classes written into the layer with their feature counts, in metadata order; nil when the metadata
    /// has no `classes` for the layer (then every class the sheet can give the layer is assumed).
    public var classes: [ClassCount]?
    /// The classes written at each zoom (`kartpack.layers[id].classes_by_zoom`); nil when the metadata does not
    /// say (older packages count classes at each feature's top zoom only).
    public var classesByZoom: [Int: [ClassCount]]?

    /// True when the package carries a `class` per feature (the metadata lists classes or the field).
    public var hasClasses: Bool {
        fields.contains("class") || !(classes ?? []).isEmpty
            || (classesByZoom?.values.contains { !$0.isEmpty } ?? false)
    }

    /// The class names written at `zoom`: from `classesByZoom` when present (nil when it does not list the zoom:
    /// no classed feature there), else nil (unknown).
    public func classNames(atZoom zoom: Int) -> [String]? {
        guard let byZoom = classesByZoom else { return nil }
        return (byZoom[zoom] ?? []).filter { $0.count > 0 }.map(\.name)
    }

    /// Every class name the metadata lists, at any zoom, in first-listed order.
    public var allClassNames: [String] {
        var out: [String] = []
        for c in classes ?? [] where !out.contains(c.name) { out.append(c.name) }
        for z in (classesByZoom ?? [:]).keys.sorted() {
            for c in classesByZoom?[z] ?? [] where !out.contains(c.name) { out.append(c.name) }
        }
        return out
    }

    /// A class name and how many features carry it.
    public struct ClassCount: Sendable, Hashable {
        /// The class name (the tile property `class`).
        public var name: String
        /// Features written with the class.
        public var count: Int

        /// Creates a count.
        public init(name: String, count: Int) {
            self.name = name
            self.count = count
        }
    }

    /// Creates a layer description.
    public init(
        id: String, fields: [String] = [], minZoom: Int? = nil, maxZoom: Int? = nil, geometry: GeometryFamily? = nil,
        classes: [ClassCount]? = nil
    ) {
        self.id = id
        self.fields = fields
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.geometry = geometry
        self.classes = classes
    }

    /// The field whose name equals `name` ignoring case (DBF names are case-insensitive), else nil.
    public func field(matching name: String) -> String? {
        if fields.contains(name) { return name }
        let lower = name.lowercased()
        return fields.first { $0.lowercased() == lower }
    }
}
