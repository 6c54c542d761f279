public import KartpackJSON

/// What a package's metadata says about itself, read once with the tolerances every reader shares: the
/// client library (KartpackKit), client styles (MapStyle), `inspect` and `extract` all take their layers from
/// here, so a package reads the same everywhere.
///
/// The input is the metadata object (PMTiles: the JSON metadata; MBTiles: the `json` row's object with the plain
/// rows added as string members). TileJSON keys are read as written by Kartpack and tolerated as written by other
/// tools: zooms as integers, exact doubles or numeric strings in 0…30, `bounds`/`center` as comma-separated text or
/// arrays. Kartpack's run summary (`kartpack`, a JSON string; an object is accepted too) adds each layer's geometry,
/// feature count and classes (docs/convert.md). Nothing is trusted for sizes: a hostile summary is read in part,
/// and every member that cannot be used is skipped with a line in `warnings`.
public struct PackageMetadata: Sendable {
    /// One `vector_layers` entry.
    public struct Layer: Sendable {
        /// The MVT layer name (never empty; the first entry of a repeated id wins).
        public var id: String
        /// The attributes and their declared TileJSON types as written (`Number`, `String`, `Boolean`, or any
        /// other text), in metadata order.
        public var fields: [(name: String, type: String)]
        /// The lowest zoom holding the layer, when the entry says.
        public var minZoom: Int?
        /// The highest zoom holding the layer, when the entry says.
        public var maxZoom: Int?
        /// The entry's description.
        public var description: String?
    }

    /// Features of one class (a `classes` or `classes_by_zoom` member of the run summary).
    public struct ClassCount: Sendable, Hashable {
        /// The class name (never empty).
        public var name: String
        /// Features of the class.
        public var features: Int
    }

    /// One layer of Kartpack's run summary (`kartpack.layers.<id>`).
    public struct RunLayer: Sendable {
        /// The layer name.
        public var id: String
        /// `point`, `line` or `polygon`, as written.
        public var geometry: String?
        /// Features written to the layer.
        public var features: Int?
        /// Features per class at the layer's highest zoom, in metadata order; nil when the summary has no
        /// `classes`.
        public var classes: [ClassCount]?
        /// Features per class at each zoom a class is written (`classes_by_zoom`), in metadata order; nil when the
        /// summary has none.
        public var classesByZoom: [Int: [ClassCount]]?
    }

    /// Most run-summary layers read (as many as a tile may hold): matching a hostile summary of tens of thousands
    /// of layers would cost more than it could tell.
    public static let maxRunLayers = 1_000
    /// The zooms a metadata value may name.
    public static let zooms = 0...30

    /// The tileset name.
    public var name: String?
    /// The attribution text (HTML allowed, as TileJSON says); nil when empty.
    public var attribution: String?
    /// The data bounds in degrees, when the metadata gives a valid box.
    public var bounds: GeoBounds?
    /// The default view, when the metadata gives a valid one.
    public var center: GeoCenter?
    /// The lowest zoom of the package, when the metadata says.
    public var minZoom: Int?
    /// The highest zoom of the package, when the metadata says.
    public var maxZoom: Int?
    /// The `vector_layers` entries in metadata order.
    public var layers: [Layer]
    /// The layers of the run summary in metadata order (empty without a summary).
    public var runLayers: [RunLayer]
    /// True when the metadata has a `vector_layers` array.
    public var hasVectorLayers: Bool
    /// What could not be used, one line each.
    public var warnings: [String]

    /// Reads `metadata`; never fails (see `warnings`).
    public init(parsing metadata: JSONValue) {
        name = metadata["name"]?.stringValue
        attribution = metadata["attribution"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        minZoom = Self.zoom(metadata["minzoom"])
        maxZoom = Self.zoom(metadata["maxzoom"])
        bounds = Self.bounds(metadata["bounds"])
        center = Self.center(metadata["center"])
        warnings = []
        layers = []
        runLayers = []
        hasVectorLayers = metadata["vector_layers"]?.arrayValue != nil
        readVectorLayers(metadata["vector_layers"]?.arrayValue ?? [])
        if !hasVectorLayers { warnings.append("the metadata has no vector_layers") }
        readRunSummary(metadata["kartpack"])
    }

    /// The run-summary layer named `id`.
    public func runLayer(_ id: String) -> RunLayer? { runLayers.first { $0.id == id } }

    /// A zoom value: an integer, an exact double or a numeric string within `zooms`.
    public static func zoom(_ v: JSONValue?) -> Int? {
        guard let v else { return nil }
        let n = v.intValue ?? v.doubleValue.flatMap { Int64(exactly: $0) } ?? v.stringValue.flatMap { Int64($0) }
        guard let n, zooms.contains(Int(clamping: n)) else { return nil }
        return Int(n)
    }

    private mutating func readVectorLayers(_ list: [JSONValue]) {
        var seen = Set<String>()
        for entry in list {
            guard let id = entry["id"]?.stringValue, !id.isEmpty else {
                warnings.append("a vector_layers entry has no id")
                continue
            }
            guard seen.insert(id).inserted else {
                warnings.append("vector layer \(id) is listed twice")
                continue
            }
            let fields = (entry["fields"]?.objectMembers ?? []).map { (name: $0.key, type: $0.value.stringValue ?? "") }
            layers.append(
                Layer(
                    id: id, fields: fields, minZoom: Self.zoom(entry["minzoom"]), maxZoom: Self.zoom(entry["maxzoom"]),
                    description: entry["description"]?.stringValue))
        }
    }

    private mutating func readRunSummary(_ value: JSONValue?) {
        let summary: JSONValue?
        switch value {
        case .string(let text)?:
            do throws(JSONParseError) {
                summary = try JSONParser.parse(text, options: .archiveMetadata)
            } catch {
                summary = nil
                warnings.append("the kartpack metadata is not JSON: \(error)")
            }
        case .object(let members)?:
            summary = .object(members)
        case nil:
            summary = nil
            warnings.append("the metadata has no kartpack run summary (geometry and classes unknown)")
        default:
            summary = nil
            warnings.append("the kartpack metadata is neither a JSON string nor an object")
        }
        guard let perLayer = summary?["layers"]?.objectMembers else { return }
        if perLayer.count > Self.maxRunLayers {
            warnings.append(
                "the kartpack run summary lists \(perLayer.count) layers; the first \(Self.maxRunLayers) are read")
        }
        var seen = Set<String>()
        for (id, info) in perLayer.prefix(Self.maxRunLayers) where seen.insert(id).inserted {
            var layer = RunLayer(
                id: id, geometry: info["geometry"]?.stringValue,
                features: info["features"]?.intValue.flatMap { Int(exactly: $0) },
                classes: info["classes"]?.objectMembers.map { counts($0) },
                classesByZoom: info["classes_by_zoom"]?.objectMembers.map { _ in [:] })
            for (zoomText, classes) in info["classes_by_zoom"]?.objectMembers ?? [] {
                guard let z = Int(zoomText), Self.zooms.contains(z), let members = classes.objectMembers else {
                    warnings.append("layer \(id): bad classes_by_zoom entry \(zoomText)")
                    continue
                }
                layer.classesByZoom?[z] = counts(members)
            }
            runLayers.append(layer)
        }
    }

    /// Class counts in metadata order: empty names and counts that are not whole numbers ≥ 0 are skipped.
    private func counts(_ members: [(key: String, value: JSONValue)]) -> [ClassCount] {
        members.compactMap { m in
            guard !m.key.isEmpty, let n = m.value.intValue, n >= 0, let c = Int(exactly: n) else { return nil }
            return ClassCount(name: m.key, features: c)
        }
    }

    private static func numbers(_ v: JSONValue?) -> [Double?] {
        if let text = v?.stringValue {
            return text.split(separator: ",").map { Double(String($0.filter { $0 != " " })) }
        }
        return v?.arrayValue?.map(\.doubleValue) ?? []
    }

    private static func bounds(_ v: JSONValue?) -> GeoBounds? {
        let box = numbers(v)
        guard box.count == 4, let w = box[0], let s = box[1], let e = box[2], let n = box[3] else { return nil }
        let b = GeoBounds(west: w, south: s, east: e, north: n)
        return b.isValid ? b : nil
    }

    private static func center(_ v: JSONValue?) -> GeoCenter? {
        let c = numbers(v)
        guard c.count == 3, let lon = c[0], let lat = c[1], let z = c[2], lon.isFinite, lat.isFinite, z.isFinite,
            abs(lon) <= 180, abs(lat) <= 90, z >= 0, z <= 30
        else { return nil }
        return GeoCenter(longitude: lon, latitude: lat, zoom: Int(z))
    }
}
