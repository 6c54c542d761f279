import GeometryAlgorithms
import KartpackCore

/// Turns the parts of a WKB geometry into a `Geometry` the way the Shapefile reader builds its records, so a
/// GeoPackage written from a Shapefile (`ogr2ogr -f GPKG`) gives the features the Shapefile gives:
///
/// - Points: a WKB Point is a `.point`, anything else holding points a `.multiPoint`.
/// - Lines: consecutive duplicate points removed (`removed_duplicates`), parts with fewer than 2 distinct points
///   dropped (`dropped_part`); one part is a `.lineString`, more a `.multiLineString`.
/// - Polygons: every ring of every polygon goes through `PolygonAssembler`, the Shapefile reader's ring assembly
///   (rings assigned to shells by containment, ESRI orientation, unclosed rings closed, degenerate rings dropped;
///   its repair codes).
/// - A GeometryCollection whose members are all of one family is read as that Multi* geometry; one mixing families
///   (a point and a polygon) is skipped as `mixed_geometry_collection`, since a feature has one kind.
/// - Nothing left (only empty members) is `empty_geometry`.
public enum WKBGeometry {
    /// The feature geometry of `parts`, or why there is none.
    public static func build(_ parts: WKBReader.Parts) -> GeometryAssembly {
        let families = [parts.hasPoints, parts.hasLines, parts.hasPolygons].filter { $0 }.count
        guard families > 0 else { return .skipped(code: .emptyGeometry, message: "an empty geometry") }
        guard families == 1 else {
            return .skipped(
                code: .mixedGeometryCollection,
                message: "a GeometryCollection mixing "
                    + [("points", parts.hasPoints), ("lines", parts.hasLines), ("polygons", parts.hasPolygons)]
                    .filter(\.1).map(\.0).joined(separator: " and ")
                    + "; a feature has one kind (split it into one table per kind)")
        }
        if parts.hasPoints {
            let kind: GeometryKind = parts.topType == 1 ? .point : .multiPoint
            return .built(Geometry(kind: kind, xy: parts.xy, partStarts: [0]), [])
        }
        if parts.hasPolygons { return PolygonAssembler.assemble(xy: parts.xy, parts: parts.parts) }
        return LineAssembler.assemble(xy: parts.xy, parts: parts.parts)
    }
}
