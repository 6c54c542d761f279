/// The type of an attribute field.
public enum FieldType: String, Sendable, Hashable, Codable {
    case string, integer, double, logical, date

    /// The TileJSON `vector_layers` type name: "String", "Number" or "Boolean". Dates are ISO strings.
    public var tileJSONType: String {
        switch self {
        case .string, .date: "String"
        case .integer, .double: "Number"
        case .logical: "Boolean"
        }
    }
}

/// One attribute field of a layer.
public struct FieldDefinition: Sendable, Hashable, Codable {
    public var name: String
    public var type: FieldType
    public var width: Int
    public var decimals: Int
    /// The raw DBF type letter (`C`, `N`, `F`, `L`, `D`, …) when the field came from a DBF.
    public var nativeType: String?

    /// Creates a field definition.
    public init(name: String, type: FieldType, width: Int = 0, decimals: Int = 0, nativeType: String? = nil) {
        self.name = name
        self.type = type
        self.width = width
        self.decimals = decimals
        self.nativeType = nativeType
    }
}

/// A coordinate reference system as identified for a layer.
public struct CRSInfo: Sendable, Hashable, Codable {
    /// Human-readable name, e.g. "SWEREF99 TM".
    public var name: String
    /// The EPSG code PROJ identified the CRS as (confidence 90 or more, or an unnamed datum on the WGS 84
    /// ellipsoid; see `CRSResolver`).
    public var epsg: Int?
    /// The definition PROJ accepted (normalized WKT or the user's override text).
    public var definition: String
    /// Where the CRS came from: `prj` or `option`.
    public var origin: String
    /// True for a geographic (lon/lat) CRS.
    public var isGeographic: Bool
    /// PROJ's identification confidence (0…100) for `epsg`; nil when no EPSG match was found.
    public var confidence: Int?
    /// How `epsg` was chosen when it is not a plain match at 100 (e.g. an unnamed datum on the WGS 84 ellipsoid
    /// taken as WGS 84); nil otherwise. Meant for a warning.
    public var identification: String?

    /// Creates a CRS description.
    public init(
        name: String, epsg: Int?, definition: String, origin: String, isGeographic: Bool, confidence: Int? = nil,
        identification: String? = nil
    ) {
        self.name = name
        self.epsg = epsg
        self.definition = definition
        self.origin = origin
        self.isGeographic = isGeographic
        self.confidence = confidence
        self.identification = identification
    }

    /// `EPSG:3006`, or the name when there is no code.
    public var label: String { epsg.map { "EPSG:\($0)" } ?? name }
}

/// The text encoding of a layer's attributes and where it was decided.
public struct EncodingInfo: Sendable, Hashable, Codable {
    /// Canonical name: `UTF-8`, `ISO-8859-1`, `CP1252`, `CP850`, …
    public var name: String
    /// `cpg`, `ldid`, `option` or `detected` (from the text, when nothing declares it).
    public var origin: String
    /// The evidence: the `.cpg` text, `LDID/87`, or what the text showed.
    public var detail: String?
    /// How sure the reader is: `declared` (option, `.cpg`, LDID), `ascii` (nothing to decode) or `high` (one code
    /// page reads the text better than any other; when none does, the file is refused); nil when not known.
    public var confidence: String?

    /// Creates an encoding description.
    public init(name: String, origin: String, detail: String? = nil, confidence: String? = nil) {
        self.name = name
        self.origin = origin
        self.detail = detail
        self.confidence = confidence
    }
}

/// What a stream of features looks like, known before the first feature is read.
public struct LayerSchema: Sendable, Hashable {
    public var name: String
    public var geometryKind: GeometryKind?
    /// The Shapefile shape type name (e.g. `PolygonZ`) when read from a Shapefile.
    public var sourceShapeType: String?
    public var fields: [FieldDefinition]
    public var crs: CRSInfo?
    /// Bounds in the layer's own CRS, from the file header.
    public var bounds: Bounds?
    public var recordCount: Int
    public var encoding: EncodingInfo?

    /// Creates a schema.
    public init(
        name: String, geometryKind: GeometryKind?, sourceShapeType: String? = nil, fields: [FieldDefinition],
        crs: CRSInfo?, bounds: Bounds?, recordCount: Int, encoding: EncodingInfo?
    ) {
        self.name = name
        self.geometryKind = geometryKind
        self.sourceShapeType = sourceShapeType
        self.fields = fields
        self.crs = crs
        self.bounds = bounds
        self.recordCount = recordCount
        self.encoding = encoding
    }
}
