import GeoPackage
import KartpackCore
import Reprojection
import Shapefile

/// One layer of an input: a Shapefile set, or a feature table of a GeoPackage. The one rule for what an input
/// path holds (`layers(at:table:)`), shared by the read phase, `IntakeReader` (clip regions, ancestor sets, region
/// sets, `--max-zoom auto`), the input probe, the layer registry and `inspect`.
package enum InputLayer: Sendable, Hashable {
    /// A Shapefile set.
    case shapefile(ShapefileSet)
    /// Feature table `table` of the GeoPackage at `path`.
    case geoPackage(path: String, table: String)

    /// The layers at `path`: a `.gpkg`'s feature tables in `gpkg_contents` order (only `table` when given, which
    /// must name one), else every Shapefile set at the path (one file or a folder).
    package static func layers(at path: String, table: String? = nil) throws -> [InputLayer] {
        guard GeoPackageFile.isGeoPackagePath(path) else {
            return try ShapefileLocator.shapefiles(at: path).map { .shapefile($0) }
        }
        let file = try GeoPackageFile(path: path)
        if let table { return [.geoPackage(path: path, table: try file.layer(named: table).table)] }
        guard !file.layers.isEmpty else { throw GeoPackageError.noFeatureTables(file: file.name) }
        return file.layers.map { .geoPackage(path: path, table: $0.table) }
    }

    /// The `.shp`, or the `.gpkg`: the file reports and messages name.
    package var path: String {
        switch self {
        case .shapefile(let set): set.shp
        case .geoPackage(let path, _): path
        }
    }

    /// The layer's own name: the Shapefile's base name, or the table name.
    package var baseName: String {
        switch self {
        case .shapefile(let set): set.baseName
        case .geoPackage(_, let table): table
        }
    }

    /// The GeoPackage table, nil for a Shapefile.
    package var table: String? {
        if case .geoPackage(_, let table) = self { return table }
        return nil
    }

    /// Every file the layer reads: the Shapefile and its sidecars, or the GeoPackage.
    package var files: [String] {
        switch self {
        case .shapefile(let s): [s.shp, s.shx, s.dbf, s.prj, s.cpg, s.memo].compactMap { $0 }
        case .geoPackage(let path, _): [path]
        }
    }

    /// Opens the layer's reader; its skips and repairs go to `diagnostics`.
    package func open(encoding: String?, diagnostics: DiagnosticSink) throws -> any LayerReading {
        switch self {
        case .shapefile(let set):
            return try ShapefileReader(
                files: set, options: ShapefileReadOptions(encoding: encoding), diagnostics: diagnostics)
        case .geoPackage(let path, let table):
            let file = try GeoPackageFile(path: path)
            return try GeoPackageReader(file: file, layer: try file.layer(named: table), diagnostics: diagnostics)
        }
    }

    /// The records of a layer that could not be opened, and where the count comes from (`shx`, `shp`, `dbf`,
    /// `gpkg`), or nil when nothing can count them.
    package func probeRecordCount() -> (count: Int, source: String)? {
        switch self {
        case .shapefile(let set):
            return set.probeRecordCount().map { ($0.count, $0.source.rawValue) }
        case .geoPackage(let path, let table):
            guard let file = try? GeoPackageFile(path: path), let count = file.rowCount(table) else { return nil }
            return (count, "gpkg")
        }
    }
}

/// A layer's reader as the pipeline uses it: a `ShapefileReader` or a `GeoPackageReader`.
package protocol LayerReading: AnyObject {
    /// The layer's schema.
    var schema: LayerSchema { get }
    /// The next feature, nil at the end (skips are counted, not thrown).
    func next() throws -> Feature?
    /// The reader's counters in the Shapefile reader's shape (records, skips, repairs, coercions, warnings).
    var readerStats: ReaderStats { get }
    /// The layer's CRS, resolved as a Shapefile's `.prj` is (untrusted text in the isolated child) unless
    /// `override` (`--source-crs`) is given.
    func resolveCRS(override: String?) throws -> CRSInfo
    /// The attributes of record `record` (a skipped one too), or nil when there is none.
    func attributes(ofRecord record: Int) throws -> Properties?
}

extension ShapefileReader: LayerReading {
    package var readerStats: ReaderStats { stats }

    package func resolveCRS(override: String?) throws -> CRSInfo {
        try IsolatedCRS.resolve(prjText: prjText, override: override, prjFile: files.prj ?? files.shp)
    }
}

extension GeoPackageReader: LayerReading {
    package var readerStats: ReaderStats { stats }

    /// The SRS of the geometry column: its WKT definition goes to the CRS resolver as a `.prj`'s text does; a row
    /// without one (`undefined`) but with an EPSG code is read as that code; one with neither needs
    /// `--source-crs` (`gpkg_undefined_srs`).
    package func resolveCRS(override: String?) throws -> CRSInfo {
        let where_ = "\(label) (gpkg_spatial_ref_sys srs_id \(srs.srsID))"
        if let override { return try IsolatedCRS.resolve(prjText: nil, override: override, prjFile: where_) }
        var crs: CRSInfo
        if let wkt = srs.wktDefinition {
            crs = try IsolatedCRS.resolve(prjText: wkt, override: nil, prjFile: where_)
        } else if let epsg = srs.epsgFallback {
            crs = try IsolatedCRS.resolve(prjText: nil, override: epsg, prjFile: where_)
        } else {
            throw GeoPackageError.badTable(
                file: file.name, table: layer.table, code: .gpkgUndefinedSrs,
                reason:
                    "srs_id \(srs.srsID) (\(srs.name.isEmpty ? "no name" : srs.name)) defines no coordinate "
                    + "reference system; pass --source-crs (for example --source-crs EPSG:4326)")
        }
        // Shown as where it came from (`inspect`: "from gpkg_spatial_ref_sys"), not as a .prj or an option.
        crs.origin = "gpkg_spatial_ref_sys"
        return crs
    }

    package func attributes(ofRecord record: Int) throws -> Properties? {
        try attributes(ofFID: Int64(record))
    }
}

extension GeoPackageError: CodedError {}
