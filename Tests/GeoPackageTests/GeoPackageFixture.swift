import Foundation
import SQLiteStore

/// Writes small GeoPackages the way GDAL lays them out (the three gpkg_ tables, one feature table per layer).
struct GeoPackageFixture {
    struct Table {
        var name: String
        var geometryType = "GEOMETRY"
        var srsID: Int32 = 4326
        /// Attribute columns: name and declared type.
        var columns: [(String, String)] = []
        /// Rows: fid, geometry blob (nil = NULL), attribute values as SQL literals.
        var rows: [(fid: Int64, geometry: [UInt8]?, values: [String])] = []
    }

    var tables: [Table] = []
    var srs: [(id: Int32, org: String, code: Int64, definition: String)] = [
        (4326, "EPSG", 4326, Self.wgs84), (0, "NONE", 0, "undefined"), (-1, "NONE", -1, "undefined"),
    ]
    var applicationID: Int64 = 0x4750_4B47

    static let wgs84 =
        #"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],"#
        + #"AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,"#
        + #"AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]"#

    static func q(_ name: String) -> String { SQLiteConnection.quotedIdentifier(name)! }

    static func hex(_ b: [UInt8]) -> String { "X'" + b.map { String(format: "%02X", $0) }.joined() + "'" }

    func write(_ path: String) throws {
        let db = try SQLiteConnection(path: path, mode: .readWriteCreate)
        try db.exec(
            """
            PRAGMA application_id = \(applicationID);
            CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY,
              organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL,
              description TEXT);
            CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL,
              identifier TEXT UNIQUE, description TEXT DEFAULT '', last_change DATETIME, min_x DOUBLE, min_y DOUBLE,
              max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
            CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,
              geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
              CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name));
            """)
        for s in srs {
            let stmt = try db.prepare("INSERT INTO gpkg_spatial_ref_sys VALUES ('srs', ?1, ?2, ?3, ?4, NULL)")
            try stmt.bind(1, int64: Int64(s.id))
            try stmt.bind(2, text: s.org)
            try stmt.bind(3, int64: s.code)
            try stmt.bind(4, text: s.definition)
            try stmt.step()
            stmt.finalize()
        }
        for t in tables {
            let columns = t.columns.map { ", \(Self.q($0.0)) \($0.1)" }.joined()
            try db.exec(
                "CREATE TABLE \(Self.q(t.name)) (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom GEOMETRY\(columns))")
            for stmtText in [
                "INSERT INTO gpkg_contents (table_name, data_type, srs_id) VALUES (?1, 'features', ?2)",
                "INSERT INTO gpkg_geometry_columns VALUES (?1, 'geom', '\(t.geometryType)', ?2, 0, 0)",
            ] {
                let stmt = try db.prepare(stmtText)
                try stmt.bind(1, text: t.name)
                try stmt.bind(2, int64: Int64(t.srsID))
                try stmt.step()
                stmt.finalize()
            }
            for row in t.rows {
                let values = ([row.geometry.map(Self.hex) ?? "NULL"] + row.values).joined(separator: ", ")
                try db.exec("INSERT INTO \(Self.q(t.name)) VALUES (\(row.fid), \(values))")
            }
        }
        try db.close()
    }
}
