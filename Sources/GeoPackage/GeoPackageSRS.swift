import Foundation

/// One row of `gpkg_spatial_ref_sys`: how a GeoPackage names a coordinate reference system.
public struct GeoPackageSRS: Sendable, Hashable {
    /// `srs_id`: the key geometry columns and blobs refer to.
    public var srsID: Int32
    /// `srs_name`.
    public var name: String
    /// `organization` (`EPSG`, `NONE`, …).
    public var organization: String
    /// `organization_coordsys_id`.
    public var organizationCode: Int64
    /// `definition`: WKT (1 or 2), or `undefined`.
    public var definition: String

    /// Creates a row.
    public init(srsID: Int32, name: String, organization: String, organizationCode: Int64, definition: String) {
        self.srsID = srsID
        self.name = name
        self.organization = organization
        self.organizationCode = organizationCode
        self.definition = definition
    }

    /// What the CRS resolver is given, the way a Shapefile's `.prj` text is: the WKT `definition` (untrusted text:
    /// sanitized and parsed in the isolated child, as a `.prj` is). Nil when the row defines nothing — `undefined`
    /// or empty, as for the spec's rows -1 (undefined Cartesian) and 0 (undefined geographic) — so the layer needs
    /// `--source-crs` (or `epsgFallback`).
    public var wktDefinition: String? {
        let trimmed = definition.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.lowercased() != "undefined" else { return nil }
        return trimmed
    }

    /// `EPSG:<code>` when the row names an EPSG code but has no definition: a CRS text made of a number only, so
    /// nothing of the file's text reaches PROJ. Nil otherwise.
    public var epsgFallback: String? {
        guard wktDefinition == nil, organization.uppercased() == "EPSG", organizationCode > 0,
            organizationCode < 1_000_000
        else { return nil }
        return "EPSG:\(organizationCode)"
    }
}
